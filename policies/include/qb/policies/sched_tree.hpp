// The mlx5 NIC scheduling hierarchy (reference §1): nodes (DWRR TSARs) and leaves
// (queue groups), with bw_share weights and max_avg_bw caps.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qb/common/result.hpp"

namespace qb::policy {

/// One `[[sched.node]]` or `[[sched.leaf]]` entry as written in the suite.
struct SchedElementSpec {
  std::string name;
  std::string parent;            // empty: none (only the root may have none)
  bool is_leaf = false;
  uint32_t bw_share = 0;         // 0 = device default weight
  double max_avg_bw_bps = 0.0;   // 0 = unlimited; written in the suite in Mbit/s or with a unit
  bool has_bw_share = false;     // whether the key was written (root may not have it)
  bool has_max_avg_bw = false;
  std::string where;             // key path for errors, e.g. "sched.leaf[1]"
  SourceLoc loc;                 // where the entry starts
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

  uint32_t root() const noexcept { return 0; }
  /// Index of an element by name, or kNoParent.
  uint32_t find(std::string_view name) const noexcept;
  std::vector<uint32_t> leaves() const;
};

struct Warning {
  std::string message;
  std::string where;
  SourceLoc loc;
};

/// Validates and compiles the tree. Errors (Errc::invalid_config, with where + loc):
/// no root / several roots, bw_share or max_avg_bw on the root, a leaf without a parent,
/// unknown parent, a leaf as parent, duplicate names, cycles, depth beyond kMaxDepth, a cap
/// above the port rate, a node with no children (warning only).
/// Warnings: bw_share 0 mixed with non-zero siblings (reference §1 model choice).
/// An empty spec list compiles to a single implicit root leaf named "default".
Result<SchedTree> compile_sched_tree(const std::vector<SchedElementSpec>& specs,
                                     double port_rate_bps, std::vector<Warning>& warnings);

}  // namespace qb::policy
