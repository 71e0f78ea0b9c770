#include "nic_sched_tree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace qb::drv::verbs {

mlx5dv_sched_attr sched_attr_for(const policy::SchedTree& tree, uint32_t element,
                                 mlx5dv_sched_node* parent) noexcept {
  mlx5dv_sched_attr attr{};
  attr.parent = parent;
  attr.comp_mask = 0;
  if (element == tree.root()) return attr;  // the man page: the root's flags must be 0
  const policy::SchedTree::Element& e = tree.elements[element];
  if (e.bw_share != 0) {
    attr.flags |= MLX5DV_SCHED_ELEM_ATTR_FLAGS_BW_SHARE;
    attr.bw_share = e.bw_share;
  }
  if (const uint32_t mbps = policy::programmed_max_avg_bw_mbps(e.max_avg_bw_bps); mbps != 0) {
    attr.flags |= MLX5DV_SCHED_ELEM_ATTR_FLAGS_MAX_AVG_BW;
    attr.max_avg_bw = mbps;
  }
  return attr;
}

// What to do about a refused element. The limits are the device's: rdma-core 44 does not
// expose them (libmlx5 reads the QoS capabilities for itself), so only the device can tell.
// libmlx5's own checks (rdma-core providers/mlx5, attr_supported): BW_SHARE needs the
// nic_bw_share capability, MAX_AVG_BW nic_rate_limit, else EOPNOTSUPP. The firmware's (the
// create command fails, EINVAL): bw_share at most the QoS capability max_tsar_bw_share (100 on a
// ConnectX-6 Dx, in the capability dump of the mlx5ctl tool's documentation), and at most
// 2^log_nic_max_sched_depth levels (log 2 there: 4, the root included).
static std::string advice(int error, const mlx5dv_sched_attr& attr, uint32_t depth) {
  if (error == EOPNOTSUPP) {
    std::string missing;
    if ((attr.flags & MLX5DV_SCHED_ELEM_ATTR_FLAGS_MAX_AVG_BW) != 0) {
      missing = "nic_rate_limit (for its max_avg_bw cap)";
    }
    if ((attr.flags & MLX5DV_SCHED_ELEM_ATTR_FLAGS_BW_SHARE) != 0) {
      missing += fmt::format("{}nic_bw_share (for its bw_share)", missing.empty() ? "" : " or ");
    }
    return fmt::format(
        ": the device has NIC scheduling elements (the root was made) but not the "
        "QoS capability {}; remove that key from the suite, or run it on a "
        "ConnectX that has it",
        missing.empty() ? "this element needs" : missing);
  }
  if (error == EINVAL) {
    return fmt::format(
        ": the device refused the element (depth {}, the root's is 0; bw_share "
        "{}): ConnectX firmware takes bw_share up to its max_tsar_bw_share (100 on "
        "a ConnectX-6 Dx: scale the weights down keeping their ratios) and trees "
        "of up to 2^log_nic_max_sched_depth levels (4 there, root included: "
        "flatten the tree)",
        depth, attr.bw_share);
  }
  return "";
}

Status NicSchedTree::build(VerbsOps& ops, ibv_context* context, const policy::SchedTree& tree,
                           const std::string& device) {
  destroy();
  ops_ = &ops;
  leaf_of_.assign(tree.elements.size(), nullptr);
  std::vector<mlx5dv_sched_node*> node_of(tree.elements.size(), nullptr);
  std::vector<uint32_t> depth_of(tree.elements.size(), 0);
  // Depth first from the root: every parent exists before its children.
  std::vector<uint32_t> stack{tree.root()};
  while (!stack.empty()) {
    const uint32_t i = stack.back();
    stack.pop_back();
    const policy::SchedTree::Element& e = tree.elements[i];
    mlx5dv_sched_node* parent =
        e.parent == policy::SchedTree::kNoParent ? nullptr : node_of[e.parent];
    const mlx5dv_sched_attr attr = sched_attr_for(tree, i, parent);
    errno = 0;
    const uint32_t depth = e.parent == policy::SchedTree::kNoParent ? 0 : depth_of[e.parent] + 1;
    depth_of[i] = depth;
    Created made{i, depth, nullptr, nullptr};
    if (e.is_leaf) {
      made.leaf = ops.sched_leaf_create(context, &attr);
    } else {
      made.node = ops.sched_node_create(context, &attr);
    }
    if (made.node == nullptr && made.leaf == nullptr) {
      const int error = errno != 0 ? errno : EIO;
      const bool root_made = !created_.empty();
      destroy();
      if (error == EOPNOTSUPP && !root_made) {
        // No scheduling elements at all: the device is not a ConnectX with NIC QoS.
        return make_error(
            Errc::unavailable,
            fmt::format(
                "verbs: {} has no NIC scheduling elements: mlx5dv_sched_node_create for node "
                "'{}' failed: {} (errno {}). The suite's tree needs mlx5dv_sched, a ConnectX "
                "with the NIC QoS capability nic_qp_scheduling (Soft-RoCE, other vendors' "
                "RNICs and VFs without it have none): set tree = \"software\" under "
                "[driver.verbs] (or --driver-option tree=software) to pace each QP at its oracle "
                "share instead, or run the suite on --driver sim",
                device, e.name, std::strerror(error), error),
            "driver.verbs.tree");
      }
      return make_error(
          error == EOPNOTSUPP ? Errc::unavailable : Errc::runtime,
          fmt::format("verbs: mlx5dv_sched_{}_create for {} '{}' failed: {} (errno {}){}",
                      e.is_leaf ? "leaf" : "node", e.is_leaf ? "leaf" : "node", e.name,
                      std::strerror(error), error, advice(error, attr, depth)),
          "sched");
    }
    created_.push_back(made);
    node_of[i] = made.node;
    leaf_of_[i] = made.leaf;
    for (auto child = e.children.rbegin(); child != e.children.rend(); ++child) {
      stack.push_back(*child);
    }
  }
  return {};
}

const mlx5dv_sched_leaf* NicSchedTree::leaf(uint32_t element) const noexcept {
  return element < leaf_of_.size() ? leaf_of_[element] : nullptr;
}

void NicSchedTree::destroy() noexcept {
  // All leaves first (their QPs are detached by now), then the nodes deepest first: a node goes
  // only when nothing is left under it. Within a depth, the reverse of creation order.
  uint32_t deepest = 0;
  for (const Created& c : created_) deepest = std::max(deepest, c.depth);
  for (auto it = created_.rbegin(); it != created_.rend(); ++it) {
    if (it->leaf != nullptr && ops_->sched_leaf_destroy(it->leaf) != 0) ++failed_destroys_;
  }
  for (uint32_t depth = deepest + 1; depth-- > 0;) {
    for (auto it = created_.rbegin(); it != created_.rend(); ++it) {
      if (it->node != nullptr && it->depth == depth && ops_->sched_node_destroy(it->node) != 0) {
        ++failed_destroys_;
      }
    }
  }
  created_.clear();
  leaf_of_.clear();
}

}  // namespace qb::drv::verbs
