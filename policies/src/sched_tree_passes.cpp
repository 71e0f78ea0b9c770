// The passes of compile_sched_tree(): validation of the [[sched.node]] / [[sched.leaf]] entries
// and construction of the SchedTree (see sched_tree_passes.hpp for the order).
#include "sched_tree_passes.hpp"

#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "qb/common/units.hpp"

namespace qb::policy::sched_tree_passes {

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

// The root's flags must be 0: no bw_share and no max_avg_bw, not even written as 0.
Status check_root_flags(const SchedElementSpec& spec) {
  if (spec.has_bw_share || spec.bw_share != 0) {
    return config_error(
        "the root node " + quoted(spec.name) + " must not have bw_share (root flags must be 0)",
        spec.where + ".bw_share", key_loc(spec.bw_share_loc, spec.loc));
  }
  if (spec.has_max_avg_bw || spec.max_avg_bw_bps != 0.0) {
    return config_error(
        "the root node " + quoted(spec.name) + " must not have max_avg_bw (root flags must be 0)",
        spec.where + ".max_avg_bw", key_loc(spec.max_avg_bw_loc, spec.loc));
  }
  return {};
}

// The cap of a non-root entry: finite, >= 1 Mbit/s when set, not above the port rate.
Status check_cap(const SchedElementSpec& spec, double port_rate_bps) {
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

// The spec index of a non-root entry's parent: a known name that is a node.
Result<size_t> find_parent(const std::vector<SchedElementSpec>& specs, const NameIndex& names,
                           const SchedElementSpec& spec) {
  const std::string parent_where = spec.where + ".parent";
  const SourceLoc& parent_loc = key_loc(spec.parent_loc, spec.loc);
  const auto it = names.find(spec.parent);
  if (it == names.end()) {
    return config_error("unknown parent " + quoted(spec.parent) +
                            " (known nodes: " + join_names(specs, false) + ")",
                        parent_where, parent_loc);
  }
  if (specs[it->second].is_leaf) {
    return config_error("parent " + quoted(spec.parent) + " is a leaf (" + specs[it->second].where +
                            "); leaves cannot have children",
                        parent_where, parent_loc);
  }
  return it->second;
}

// The error for a cycle closed at walk[pos]: "a -> b -> a" from the member first in spec order,
// reported on that member's `.parent`.
Error cycle_error(const std::vector<SchedElementSpec>& specs, const std::vector<size_t>& walk,
                  size_t pos) {
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
  return config_error("parent cycle " + cycle + " never reaches the root", head.where + ".parent",
                      key_loc(head.parent_loc, head.loc));
}

// "root -> ... -> element", for the depth error.
std::string path_to(const SchedTree& tree, uint32_t element) {
  std::string path = tree.elements[element].name;
  for (uint32_t up = tree.elements[element].parent; up != SchedTree::kNoParent;
       up = tree.elements[up].parent) {
    path = tree.elements[up].name + " -> " + path;
  }
  return path;
}

// The warning for a node whose children mix bw_share 0 with non-zero bw_share; none otherwise.
std::optional<Warning> mixed_share_warning(const TreeDraft& draft,
                                           const std::vector<SchedElementSpec>& specs,
                                           const SchedTree::Element& node) {
  const auto& elements = draft.tree.elements;
  bool any_zero = false;
  bool any_nonzero = false;
  for (const uint32_t child : node.children) {
    (elements[child].bw_share == 0 ? any_zero : any_nonzero) = true;
  }
  if (!(any_zero && any_nonzero)) return std::nullopt;
  std::string listing;
  const SchedElementSpec* first_zero = nullptr;
  for (const uint32_t child : node.children) {
    const auto& c = elements[child];
    if (!listing.empty()) listing += ", ";
    listing += c.name + "=" + std::to_string(c.bw_share);
    if (c.bw_share == 0 && first_zero == nullptr) first_zero = &specs[draft.spec_of[child]];
  }
  return Warning{
      "bw_share 0 (the device default weight, counted as " +
          std::to_string(SchedTree::kDefaultWeight) +
          ") is mixed with non-zero bw_share among the children of " + quoted(node.name) + " (" +
          listing + "); the real device default may differ, give every sibling a bw_share",
      first_zero->where + ".bw_share", key_loc(first_zero->bw_share_loc, first_zero->loc)};
}

}  // namespace

Result<NameIndex> index_names(const std::vector<SchedElementSpec>& specs) {
  NameIndex by_name;
  by_name.reserve(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
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
  return by_name;
}

Result<ParentLinks> resolve_parents(const std::vector<SchedElementSpec>& specs,
                                    const NameIndex& names, double port_rate_bps) {
  ParentLinks links;
  links.parent.assign(specs.size(), kNoSpec);
  for (size_t i = 0; i < specs.size(); ++i) {
    const auto& spec = specs[i];
    if (spec.parent.empty()) {
      if (spec.is_leaf) {
        return config_error("leaf " + quoted(spec.name) +
                                " has no parent: a leaf needs a parent (only the root node, a "
                                "[[sched.node]] without `parent`, may omit it)",
                            spec.where, spec.loc);
      }
      if (links.root != kNoSpec) {
        const auto& root = specs[links.root];
        return config_error("more than one root: " + quoted(root.name) + " (" + root.where +
                                ") and " + quoted(spec.name) +
                                " have no parent; only the root node may omit `parent`",
                            spec.where, spec.loc);
      }
      links.root = i;
      if (auto status = check_root_flags(spec); !status) return std::move(status).error();
      continue;
    }
    if (auto status = check_cap(spec, port_rate_bps); !status) return std::move(status).error();
    auto parent = find_parent(specs, names, spec);
    if (!parent) return std::move(parent).error();
    links.parent[i] = *parent;
  }
  return links;
}

Status check_reaches_root(const std::vector<SchedElementSpec>& specs, const ParentLinks& links) {
  // Per spec: 0 not seen yet, 1 on the current walk, 2 known to reach a parentless entry.
  std::vector<uint8_t> state(specs.size(), 0);
  std::vector<size_t> walk;
  for (size_t start = 0; start < specs.size(); ++start) {
    walk.clear();
    size_t at = start;
    while (at != kNoSpec && state[at] == 0) {
      state[at] = 1;
      walk.push_back(at);
      at = links.parent[at];
    }
    if (at != kNoSpec && state[at] == 1) {
      size_t pos = 0;
      while (walk[pos] != at) ++pos;
      return cycle_error(specs, walk, pos);
    }
    for (const size_t member : walk) state[member] = 2;
  }
  if (links.root == kNoSpec) {
    // Unreachable when every parent is known and there is no cycle; kept for safety.
    return config_error("no root: the root is the one [[sched.node]] without `parent`",
                        specs.front().where, specs.front().loc);
  }
  return {};
}

TreeDraft build_elements(const std::vector<SchedElementSpec>& specs, const ParentLinks& links) {
  const size_t n = specs.size();
  std::vector<uint32_t> index_of(n);
  uint32_t next = 1;
  for (size_t i = 0; i < n; ++i) index_of[i] = (i == links.root) ? 0 : next++;

  TreeDraft draft;
  draft.tree.elements.resize(n);
  draft.spec_of.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const auto& spec = specs[i];
    auto& element = draft.tree.elements[index_of[i]];
    element.name = spec.name;
    element.is_leaf = spec.is_leaf;
    element.bw_share = spec.bw_share;
    element.weight = effective_weight(spec.bw_share);
    element.max_avg_bw_bps = spec.max_avg_bw_bps;
    element.parent = links.parent[i] == kNoSpec ? SchedTree::kNoParent : index_of[links.parent[i]];
    draft.spec_of[index_of[i]] = i;
  }
  for (size_t i = 0; i < n; ++i) {
    if (links.parent[i] != kNoSpec) {
      draft.tree.elements[index_of[links.parent[i]]].children.push_back(index_of[i]);
    }
  }
  return draft;
}

Status assign_depths(TreeDraft& draft, const std::vector<SchedElementSpec>& specs) {
  auto& elements = draft.tree.elements;
  // Top-down: a parent's depth is set before its children are visited.
  std::vector<uint32_t> stack{0};
  while (!stack.empty()) {
    const uint32_t at = stack.back();
    stack.pop_back();
    for (const uint32_t child : elements[at].children) {
      auto& element = elements[child];
      element.depth = elements[at].depth + 1;
      if (element.depth > SchedTree::kMaxDepth) {
        const auto& spec = specs[draft.spec_of[child]];
        return config_error("element " + quoted(spec.name) + " is at depth " +
                                std::to_string(element.depth) + " (" + path_to(draft.tree, child) +
                                "); the deepest accepted is " +
                                std::to_string(SchedTree::kMaxDepth) + " (root = 0)",
                            spec.where + ".parent", key_loc(spec.parent_loc, spec.loc));
      }
      stack.push_back(child);
    }
  }
  return {};
}

void warn_about_tree(const TreeDraft& draft, const std::vector<SchedElementSpec>& specs,
                     std::vector<Warning>& warnings) {
  for (size_t e = 0; e < draft.tree.elements.size(); ++e) {
    const auto& element = draft.tree.elements[e];
    if (element.is_leaf) continue;
    if (element.children.empty()) {
      const auto& spec = specs[draft.spec_of[e]];
      warnings.push_back(
          {"node " + quoted(element.name) + " has no children; it can never carry traffic",
           spec.where, spec.loc});
      continue;
    }
    if (auto warning = mixed_share_warning(draft, specs, element)) {
      warnings.push_back(std::move(*warning));
    }
  }
}

}  // namespace qb::policy::sched_tree_passes
