// The mlx5 scheduling tree (mlx5dv_sched nodes and leaves): its queries and programmatic
// construction, and compile_sched_tree() as the sequence of its passes (sched_tree_passes.hpp).
#include "qb/policies/sched_tree.hpp"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "sched_tree_passes.hpp"

namespace qb::policy {

namespace {

// A suite without a scheduling tree: a root with the one leaf every flow attaches to.
SchedTree default_tree() {
  SchedTree tree;
  SchedTree::Element root;
  root.name = "root";
  root.children = {1};
  SchedTree::Element leaf;
  leaf.name = std::string(kDefaultLeafName);
  leaf.parent = 0;
  leaf.is_leaf = true;
  leaf.depth = 1;
  tree.elements = {std::move(root), std::move(leaf)};
  return tree;
}

}  // namespace

uint32_t SchedTree::find(std::string_view name) const noexcept {
  for (size_t i = 0; i < elements.size(); ++i) {
    if (elements[i].name == name) return static_cast<uint32_t>(i);
  }
  return kNoParent;
}

std::vector<uint32_t> SchedTree::leaves() const {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < elements.size(); ++i) {
    if (elements[i].is_leaf) out.push_back(static_cast<uint32_t>(i));
  }
  return out;
}

Result<SchedTree> compile_sched_tree(const std::vector<SchedElementSpec>& specs,
                                     double port_rate_bps, std::vector<Warning>& warnings) {
  namespace passes = sched_tree_passes;
  if (specs.empty()) return default_tree();
  auto names = passes::index_names(specs);
  if (!names) return std::move(names).error();
  auto links = passes::resolve_parents(specs, *names, port_rate_bps);
  if (!links) return std::move(links).error();
  if (auto status = passes::check_reaches_root(specs, *links); !status) {
    return std::move(status).error();
  }
  passes::TreeDraft draft = passes::build_elements(specs, *links);
  if (auto status = passes::assign_depths(draft, specs); !status) {
    return std::move(status).error();
  }
  passes::warn_about_tree(draft, specs, warnings);
  return std::move(draft.tree);
}

SchedTree SchedTree::with_root(std::string name) {
  SchedTree tree;
  tree.elements.emplace_back();
  tree.elements[0].name = std::move(name);
  return tree;
}

uint32_t SchedTree::add_child(uint32_t parent, std::string name, bool is_leaf, uint32_t bw_share,
                              double max_avg_bw_bps) {
  Element element;
  element.name = std::move(name);
  element.parent = parent;
  element.is_leaf = is_leaf;
  element.bw_share = bw_share;
  element.weight = sched_tree_passes::effective_weight(bw_share);
  element.max_avg_bw_bps = max_avg_bw_bps;
  element.depth = elements[parent].depth + 1;
  const auto index = static_cast<uint32_t>(elements.size());
  elements[parent].children.push_back(index);
  elements.push_back(std::move(element));
  return index;
}

uint32_t programmed_max_avg_bw_mbps(double max_avg_bw_bps) noexcept {
  if (!(max_avg_bw_bps > 0.0)) return 0;
  const double mbps = std::round(max_avg_bw_bps / 1e6);
  if (mbps < 1.0) return 1;
  return mbps >= 4294967295.0 ? UINT32_MAX : static_cast<uint32_t>(mbps);
}

bool is_implicit_tree(const SchedTree& tree) noexcept {
  if (tree.elements.size() != 2) return false;
  const SchedTree::Element& leaf = tree.elements[1];
  return leaf.is_leaf && leaf.name == kDefaultLeafName && leaf.bw_share == 0 &&
         leaf.max_avg_bw_bps == 0.0;
}

}  // namespace qb::policy
