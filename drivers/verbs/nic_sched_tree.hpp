// The suite's scheduling tree in the NIC: one mlx5dv_sched_node per node, one
// mlx5dv_sched_leaf per leaf, created parents first; destroyed leaves first, then the nodes
// deepest first.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qb/common/result.hpp"
#include "qb/policies/sched_tree.hpp"
#include "verbs_ops.hpp"

namespace qb::drv::verbs {

/// The attributes an element is created with: the root has flags 0 (no share, no cap); the
/// others set BW_SHARE for a non-zero bw_share and MAX_AVG_BW for a cap (whole Mbit/s,
/// policy::programmed_max_avg_bw_mbps), and only those flags; comp_mask 0.
mlx5dv_sched_attr sched_attr_for(const policy::SchedTree& tree, uint32_t element,
                                 mlx5dv_sched_node* parent) noexcept;

class NicSchedTree {
 public:
  NicSchedTree() = default;
  ~NicSchedTree() { destroy(); }
  NicSchedTree(const NicSchedTree&) = delete;
  NicSchedTree& operator=(const NicSchedTree&) = delete;

  /// Creates every element of `tree` (root first, then depth first in child order). On a
  /// failure, what was made is destroyed again and the error names the element and the errno
  /// (Errc::unavailable for EOPNOTSUPP; at the root, a device without mlx5dv_sched: at
  /// driver.verbs.tree, naming the device, the capability and tree = "software").
  /// `device` names the device in the errors.
  Status build(VerbsOps& ops, ibv_context* context, const policy::SchedTree& tree,
               const std::string& device);
  /// The leaf made for tree element `element` (nullptr: not built, or not a leaf).
  const mlx5dv_sched_leaf* leaf(uint32_t element) const noexcept;
  bool built() const noexcept { return !created_.empty(); }
  /// Every leaf, then the nodes deepest first (children before parents). Idempotent. A destroy
  /// that fails is counted (failed_destroys()), not retried.
  void destroy() noexcept;
  uint32_t failed_destroys() const noexcept { return failed_destroys_; }

 private:
  struct Created {
    uint32_t element = 0;
    uint32_t depth = 0;  // the root's is 0
    mlx5dv_sched_node* node = nullptr;
    mlx5dv_sched_leaf* leaf = nullptr;
  };
  VerbsOps* ops_ = nullptr;
  std::vector<Created> created_;
  std::vector<const mlx5dv_sched_leaf*> leaf_of_;  // by tree element
  uint32_t failed_destroys_ = 0;
};

}  // namespace qb::drv::verbs
