// The mlx5 NIC scheduling hierarchy (mlx5dv_sched_node / mlx5dv_sched_leaf): nodes (DWRR
// TSARs) and leaves (queue groups), with bw_share weights and max_avg_bw caps.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "qb/common/result.hpp"
#include "qb/common/warning.hpp"

namespace qb::policy {

/// One `[[sched.node]]` or `[[sched.leaf]]` entry as written in the suite.
struct SchedElementSpec {
  std::string name;
  std::string parent;  // empty: none (only the root may have none)
  bool is_leaf = false;
  uint32_t bw_share = 0;        // 0 = device default weight
  double max_avg_bw_bps = 0.0;  // 0 = unlimited; written in the suite in Mbit/s or with a unit
  bool has_bw_share = false;    // whether the key was written (root may not have it)
  bool has_max_avg_bw = false;
  std::string where;                                   // key path for errors, e.g. "sched.leaf[1]"
  SourceLoc loc;                                       // where the entry starts
  SourceLoc parent_loc, bw_share_loc, max_avg_bw_loc;  // where those keys are (if written)
};

/// The compiled, validated tree. Element 0 is the root. Children indices are in spec order.
struct SchedTree {
  static constexpr uint32_t kNoParent = UINT32_MAX;
  /// Weight used for bw_share = 0 (model choice: the device default weight counts as 1).
  static constexpr uint32_t kDefaultWeight = 1;
  /// Deepest tree accepted (root = depth 0). mlx5 firmware exposes a few TSAR levels; we
  /// accept up to 8 and say so (model choice).
  static constexpr uint32_t kMaxDepth = 8;

  struct Element {
    std::string name;
    uint32_t parent = kNoParent;
    bool is_leaf = false;
    uint32_t bw_share = 0;        // as written
    uint32_t weight = 1;          // effective DWRR weight (bw_share, or kDefaultWeight for 0)
    double max_avg_bw_bps = 0.0;  // 0 = unlimited
    uint32_t depth = 0;
    std::vector<uint32_t> children;
  };

  std::vector<Element> elements;

  /// Programmatic construction (tests, benchmarks, tools): a tree holding only a root node.
  /// Suites go through compile_sched_tree(), which validates; these only keep the structure
  /// consistent (parent, children, depth, effective weight).
  static SchedTree with_root(std::string name = "root");
  /// Appends a child of `parent` and returns its index (bw_share 0 -> kDefaultWeight).
  uint32_t add_child(uint32_t parent, std::string name, bool is_leaf, uint32_t bw_share,
                     double max_avg_bw_bps = 0.0);

  uint32_t root() const noexcept { return 0; }
  /// Index of an element by name, or kNoParent.
  uint32_t find(std::string_view name) const noexcept;
  std::vector<uint32_t> leaves() const;
};

/// What mlx5dv_sched_attr.max_avg_bw holds for a cap: whole Mbit/s, the nearest one (model
/// choice: the field has no fraction, and rounding down could turn 1.5 Mbit/s into 1); 0 = no
/// cap. The verbs driver programs it and explain shows it.
uint32_t programmed_max_avg_bw_mbps(double max_avg_bw_bps) noexcept;

/// Whether the tree is the implicit one of a suite without [[sched.node]]/[[sched.leaf]] (a root
/// and the default leaf, no share, no cap): nothing to program in a NIC.
bool is_implicit_tree(const SchedTree& tree) noexcept;

/// Name of the implicit leaf of a suite without a scheduling tree (see compile_sched_tree()).
inline constexpr std::string_view kDefaultLeafName = "default";

/// Validates and compiles the tree: the rules mlx5dv_sched_* enforces (EINVAL), plus the input
/// errors a tree built through that API cannot have (unknown parents, cycles).
///
/// Errors (Errc::invalid_config; `where` is the key path, e.g. "sched.leaf[2].parent", and
/// `loc` the key's SourceLoc when it was written, else the entry's):
/// - a leaf without a parent ("a leaf needs a parent"); more than one parentless node
///   ("more than one root"); the root is the one [[sched.node]] without `parent`;
/// - bw_share or max_avg_bw on the root (root flags must be 0), even when written as 0;
/// - an empty name; a duplicate name (the message says where the first one is);
/// - an unknown parent (the message lists the known nodes); a leaf as parent;
/// - a cycle of parents that never reaches the root (reported as "a -> b -> a", starting at the
///   member that comes first in the spec, on that member's `.parent`);
/// - depth beyond kMaxDepth;
/// - max_avg_bw not finite or negative, above port_rate_bps (when port_rate_bps > 0), or
///   between 0 and 1 Mbit/s (the device takes Mbit/s and 0 means unlimited).
/// Warnings (appended to `warnings`): a node with no children (it can never carry traffic);
/// bw_share 0 mixed with non-zero among siblings (model choice: 0 counts as kDefaultWeight).
/// The first error found is returned; checks run entry by entry in spec order, then cycles, then
/// depth.
///
/// Order: element 0 is the root, the other elements follow in spec order; children are in
/// spec order; depth is filled in (root = 0).
/// An empty spec list compiles to a root node "root" with one leaf kDefaultLeafName under it,
/// so every flow without a `leaf` key attaches to "default".
Result<SchedTree> compile_sched_tree(const std::vector<SchedElementSpec>& specs,
                                     double port_rate_bps, std::vector<Warning>& warnings);

}  // namespace qb::policy
