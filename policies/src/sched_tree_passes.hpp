// The passes of compile_sched_tree(), in the order it runs them. Each pass relies on what the
// passes before it established; the first error of the first failing pass is the result, so the
// order of the passes is the order of the errors a suite author sees.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "qb/common/result.hpp"
#include "qb/common/warning.hpp"
#include "qb/policies/sched_tree.hpp"

namespace qb::policy::sched_tree_passes {

/// A spec index meaning "none": the root's parent, or no root found yet.
inline constexpr size_t kNoSpec = SIZE_MAX;

/// Spec index by element name (the views point into the specs).
using NameIndex = std::unordered_map<std::string_view, size_t>;

/// Every spec's parent as a spec index (kNoSpec for the root), and the root's spec index.
struct ParentLinks {
  std::vector<size_t> parent;
  size_t root = kNoSpec;
};

/// The tree being compiled and, per element index, the spec it came from (for error locations).
struct TreeDraft {
  SchedTree tree;
  std::vector<size_t> spec_of;
};

/// The DWRR weight of a bw_share: bw_share 0 (the device default) counts as kDefaultWeight.
inline uint32_t effective_weight(uint32_t bw_share) noexcept {
  return bw_share != 0 ? bw_share : SchedTree::kDefaultWeight;
}

/// Pass 1, names: every name is non-empty and unique, so parents can be looked up by name.
Result<NameIndex> index_names(const std::vector<SchedElementSpec>& specs);

/// Pass 2, entry by entry in spec order: at most one parentless entry, a node without bw_share or
/// max_avg_bw (the root); every other entry has a valid cap and a parent that exists and is a
/// node. Caps are checked here, not in a pass of their own, so errors keep spec order.
Result<ParentLinks> resolve_parents(const std::vector<SchedElementSpec>& specs,
                                    const NameIndex& names, double port_rate_bps);

/// Pass 3, structure: every chain of parents reaches the root (no cycle), so the links form one
/// tree rooted at links.root.
Status check_reaches_root(const std::vector<SchedElementSpec>& specs, const ParentLinks& links);

/// Pass 4, elements: the root first, then spec order; children in spec order; effective weights
/// from bw_share. Depths are still 0.
TreeDraft build_elements(const std::vector<SchedElementSpec>& specs, const ParentLinks& links);

/// Pass 5, depths: every element's depth (root = 0), none beyond SchedTree::kMaxDepth.
Status assign_depths(TreeDraft& draft, const std::vector<SchedElementSpec>& specs);

/// Pass 6, warnings on the valid tree, in element order: childless nodes, and bw_share 0 mixed
/// with non-zero bw_share among siblings.
void warn_about_tree(const TreeDraft& draft, const std::vector<SchedElementSpec>& specs,
                     std::vector<Warning>& warnings);

}  // namespace qb::policy::sched_tree_passes
