// Validation and compilation of the mlx5 scheduling tree (reference §1).
#include "qb/policies/sched_tree.hpp"

#include <cmath>
#include <string>
#include <unordered_map>
#include <utility>

#include "qb/common/units.hpp"

namespace qb::policy {

namespace {

constexpr double kMbitPerSecond = 1e6;

/// The location of a key when it was written, else the location of its entry.
const SourceLoc& key_loc(const SourceLoc& key, const SourceLoc& entry) {
  return key.line != 0 ? key : entry;
}

std::string describe_loc(const SourceLoc& loc) {
  if (loc.file.empty() && loc.line == 0) return {};
  std::string out = loc.file;
  if (loc.line != 0) {
    if (!out.empty()) out += ':';
    out += std::to_string(loc.line);
    if (loc.column != 0) out += ':' + std::to_string(loc.column);
  }
  return out;
}

std::string quoted(std::string_view name) {
  return "'" + std::string(name) + "'";
}

Error config_error(std::string message, std::string where, const SourceLoc& loc) {
  return make_error(Errc::invalid_config, std::move(message), std::move(where), loc);
}

std::string join_names(const std::vector<SchedElementSpec>& specs, bool leaves) {
  std::string out;
  for (const auto& spec : specs) {
    if (spec.is_leaf != leaves) continue;
    if (!out.empty()) out += ", ";
    out += spec.name;
  }
  return out.empty() ? "none" : out;
}

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

// The cap of a non-root entry: finite, >= 1 Mbit/s when set, not above the port rate.
Status check_entry(const SchedElementSpec& spec, double port_rate_bps) {
  const double cap = spec.max_avg_bw_bps;
  const std::string cap_where = spec.where + ".max_avg_bw";
  const SourceLoc& cap_loc = key_loc(spec.max_avg_bw_loc, spec.loc);
  if (!std::isfinite(cap) || cap < 0.0) {
    return config_error("max_avg_bw must be a finite rate >= 0 (0 = unlimited)", cap_where,
                        cap_loc);
  }
  if (cap > 0.0 && cap < kMbitPerSecond) {
    // The device takes Mbit/s and 0 means unlimited: a smaller cap cannot be programmed.
    return config_error("max_avg_bw " + format_rate_bps(cap) +
                            " is below 1 Mbit/s, the smallest cap the device takes "
                            "(max_avg_bw is programmed in Mbit/s; 0 = unlimited)",
                        cap_where, cap_loc);
  }
  if (port_rate_bps > 0.0 && cap > port_rate_bps) {
    return config_error("max_avg_bw " + format_rate_bps(cap) + " is above the port rate " +
                            format_rate_bps(port_rate_bps),
                        cap_where, cap_loc);
  }
  return {};
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
  if (specs.empty()) return default_tree();

  const size_t n = specs.size();
  constexpr size_t kNone = SIZE_MAX;

  // Names: non-empty, unique; per-entry checks on the way.
  std::unordered_map<std::string_view, size_t> by_name;
  by_name.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const auto& spec = specs[i];
    if (spec.name.empty()) {
      return config_error("a scheduling element needs a non-empty name", spec.where + ".name",
                          spec.loc);
    }
    auto [it, inserted] = by_name.emplace(spec.name, i);
    if (!inserted) {
      const auto& first = specs[it->second];
      std::string first_at = first.where;
      if (const std::string loc = describe_loc(first.loc); !loc.empty()) {
        first_at += " at " + loc;
      }
      return config_error(
          "duplicate name " + quoted(spec.name) + " (first defined in " + first_at + ")",
          spec.where + ".name", spec.loc);
    }
  }

  // Parents: resolve, find the root (the only parentless element, a node).
  std::vector<size_t> parent(n, kNone);
  size_t root = kNone;
  for (size_t i = 0; i < n; ++i) {
    const auto& spec = specs[i];
    if (spec.parent.empty()) {
      if (spec.is_leaf) {
        return config_error("leaf " + quoted(spec.name) +
                                " has no parent: a leaf needs a parent (only the root node, a "
                                "[[sched.node]] without `parent`, may omit it)",
                            spec.where, spec.loc);
      }
      if (root != kNone) {
        return config_error("more than one root: " + quoted(specs[root].name) + " (" +
                                specs[root].where + ") and " + quoted(spec.name) +
                                " have no parent; only the root node may omit `parent`",
                            spec.where, spec.loc);
      }
      root = i;
      if (spec.has_bw_share || spec.bw_share != 0) {
        return config_error(
            "the root node " + quoted(spec.name) + " must not have bw_share (root flags must be 0)",
            spec.where + ".bw_share", key_loc(spec.bw_share_loc, spec.loc));
      }
      if (spec.has_max_avg_bw || spec.max_avg_bw_bps != 0.0) {
        return config_error("the root node " + quoted(spec.name) +
                                " must not have max_avg_bw (root flags must be 0)",
                            spec.where + ".max_avg_bw", key_loc(spec.max_avg_bw_loc, spec.loc));
      }
      continue;
    }
    if (auto status = check_entry(spec, port_rate_bps); !status) return std::move(status).error();
    const std::string parent_where = spec.where + ".parent";
    const SourceLoc& parent_loc = key_loc(spec.parent_loc, spec.loc);
    const auto it = by_name.find(spec.parent);
    if (it == by_name.end()) {
      return config_error("unknown parent " + quoted(spec.parent) +
                              " (known nodes: " + join_names(specs, false) + ")",
                          parent_where, parent_loc);
    }
    if (specs[it->second].is_leaf) {
      return config_error("parent " + quoted(spec.parent) + " is a leaf (" +
                              specs[it->second].where + "); leaves cannot have children",
                          parent_where, parent_loc);
    }
    parent[i] = it->second;
  }

  // Cycles: every chain of parents must reach the root. state: 0 new, 1 on the walk, 2 reaches
  // root.
  std::vector<uint8_t> state(n, 0);
  std::vector<size_t> walk;
  for (size_t start = 0; start < n; ++start) {
    walk.clear();
    size_t at = start;
    while (at != kNone && state[at] == 0) {
      state[at] = 1;
      walk.push_back(at);
      at = parent[at];
    }
    if (at != kNone && state[at] == 1) {
      // `at` closes a cycle; report it starting from its first member in spec order.
      size_t pos = 0;
      while (walk[pos] != at) ++pos;
      size_t first = pos;
      for (size_t k = pos; k < walk.size(); ++k) {
        if (walk[k] < walk[first]) first = k;
      }
      std::string cycle;
      const size_t len = walk.size() - pos;
      for (size_t k = 0; k <= len; ++k) {
        const size_t member = walk[pos + (first - pos + k) % len];
        if (!cycle.empty()) cycle += " -> ";
        cycle += specs[member].name;
      }
      const auto& head = specs[walk[first]];
      return config_error("parent cycle " + cycle + " never reaches the root",
                          head.where + ".parent", key_loc(head.parent_loc, head.loc));
    }
    for (const size_t member : walk) state[member] = 2;
  }
  if (root == kNone) {
    // Unreachable when every parent is known and there is no cycle; kept for safety.
    return config_error("no root: the root is the one [[sched.node]] without `parent`",
                        specs.front().where, specs.front().loc);
  }

  // Element order: the root first, then spec order.
  std::vector<uint32_t> index_of(n);
  {
    uint32_t next = 1;
    for (size_t i = 0; i < n; ++i) index_of[i] = (i == root) ? 0 : next++;
  }
  SchedTree tree;
  tree.elements.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const auto& spec = specs[i];
    auto& element = tree.elements[index_of[i]];
    element.name = spec.name;
    element.is_leaf = spec.is_leaf;
    element.bw_share = spec.bw_share;
    element.weight = spec.bw_share != 0 ? spec.bw_share : SchedTree::kDefaultWeight;
    element.max_avg_bw_bps = spec.max_avg_bw_bps;
    element.parent = parent[i] == kNone ? SchedTree::kNoParent : index_of[parent[i]];
  }
  for (size_t i = 0; i < n; ++i) {
    if (parent[i] != kNone) tree.elements[index_of[parent[i]]].children.push_back(index_of[i]);
  }

  // Depths (top-down: the parent is always done before its children).
  std::vector<uint32_t> stack{0};
  std::vector<size_t> spec_of(n);
  for (size_t i = 0; i < n; ++i) spec_of[index_of[i]] = i;
  while (!stack.empty()) {
    const uint32_t at = stack.back();
    stack.pop_back();
    for (const uint32_t child : tree.elements[at].children) {
      auto& element = tree.elements[child];
      element.depth = tree.elements[at].depth + 1;
      if (element.depth > SchedTree::kMaxDepth) {
        const auto& spec = specs[spec_of[child]];
        std::string path = element.name;
        for (uint32_t up = element.parent; up != SchedTree::kNoParent;
             up = tree.elements[up].parent) {
          path = tree.elements[up].name + " -> " + path;
        }
        return config_error("element " + quoted(spec.name) + " is at depth " +
                                std::to_string(element.depth) + " (" + path +
                                "); the deepest accepted is " +
                                std::to_string(SchedTree::kMaxDepth) + " (root = 0)",
                            spec.where + ".parent", key_loc(spec.parent_loc, spec.loc));
      }
      stack.push_back(child);
    }
  }

  // Warnings, in element order.
  for (uint32_t e = 0; e < n; ++e) {
    const auto& element = tree.elements[e];
    const auto& spec = specs[spec_of[e]];
    if (element.is_leaf) continue;
    if (element.children.empty()) {
      warnings.push_back(
          {"node " + quoted(element.name) + " has no children; it can never carry traffic",
           spec.where, spec.loc});
      continue;
    }
    bool any_zero = false;
    bool any_nonzero = false;
    for (const uint32_t child : element.children) {
      (tree.elements[child].bw_share == 0 ? any_zero : any_nonzero) = true;
    }
    if (!(any_zero && any_nonzero)) continue;
    std::string listing;
    const SchedElementSpec* first_zero = nullptr;
    for (const uint32_t child : element.children) {
      const auto& c = tree.elements[child];
      if (!listing.empty()) listing += ", ";
      listing += c.name + "=" + std::to_string(c.bw_share);
      if (c.bw_share == 0 && first_zero == nullptr) first_zero = &specs[spec_of[child]];
    }
    warnings.push_back({"bw_share 0 (the device default weight, counted as " +
                            std::to_string(SchedTree::kDefaultWeight) +
                            ") is mixed with non-zero bw_share among the children of " +
                            quoted(element.name) + " (" + listing +
                            "); the real device default may differ, give every sibling a bw_share",
                        first_zero->where + ".bw_share",
                        key_loc(first_zero->bw_share_loc, first_zero->loc)});
  }
  return tree;
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
  element.weight = bw_share == 0 ? kDefaultWeight : bw_share;
  element.max_avg_bw_bps = max_avg_bw_bps;
  element.depth = elements[parent].depth + 1;
  const auto index = static_cast<uint32_t>(elements.size());
  elements[parent].children.push_back(index);
  elements.push_back(std::move(element));
  return index;
}

}  // namespace qb::policy
