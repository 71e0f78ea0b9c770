// The fabric drawing's geometry; see qb/reports/fabric_layout.hpp.
#include "qb/reports/fabric_layout.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <unordered_map>

namespace qb::report {
namespace {

constexpr size_t kNone = std::numeric_limits<size_t>::max();
constexpr uint32_t kUnreached = std::numeric_limits<uint32_t>::max();
constexpr double kSwitchBoxHeight = 22.0;
constexpr double kHostBoxMax = 14.0;

bool is_host(const judge::TopologyNode& node) {
  return node.kind == "host";
}

// Distance in links from the nearest host; nodes no host reaches go on a row above the rest.
std::vector<uint32_t> tiers_of(const judge::TopologyResult& t,
                               const std::vector<std::vector<size_t>>& adjacent) {
  std::vector<uint32_t> tier(t.nodes.size(), kUnreached);
  std::deque<size_t> queue;
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    if (is_host(t.nodes[n])) {
      tier[n] = 0;
      queue.push_back(n);
    }
  }
  while (!queue.empty()) {
    const size_t n = queue.front();
    queue.pop_front();
    for (const size_t next : adjacent[n]) {
      if (tier[next] != kUnreached) continue;
      tier[next] = tier[n] + 1;
      queue.push_back(next);
    }
  }
  uint32_t top = 0;
  for (const uint32_t k : tier) {
    if (k != kUnreached) top = std::max(top, k);
  }
  for (uint32_t& k : tier) {
    if (k == kUnreached) k = top + 1;
  }
  return tier;
}

// Places `desired` (sorted) at least `sep` apart inside [lo, hi], moving each as little as a
// push from the left and one from the right allow: the mean of both keeps clusters centred.
std::vector<double> spread(const std::vector<double>& desired, double sep, double lo, double hi) {
  const size_t n = desired.size();
  if (n == 0) return {};
  const auto forward = [&](std::vector<double> x) {
    x[0] = std::max(x[0], lo);
    for (size_t i = 1; i < n; ++i) x[i] = std::max(x[i], x[i - 1] + sep);
    return x;
  };
  const auto backward = [&](std::vector<double> x) {
    x[n - 1] = std::min(x[n - 1], hi);
    for (size_t i = n - 1; i-- > 0;) x[i] = std::min(x[i], x[i + 1] - sep);
    return x;
  };
  const std::vector<double> left = forward(desired);
  const std::vector<double> right = backward(desired);
  std::vector<double> mean(n);
  for (size_t i = 0; i < n; ++i) mean[i] = (left[i] + right[i]) / 2.0;
  return backward(forward(mean));
}

// "h0–h15": the run's first and last names.
std::string run_label(const std::string& first, const std::string& last) {
  if (first == last) return first;
  return first + "\u2013" + last;
}

double text_px(const std::string& text, const FabricLayoutOptions& o) {
  // An en dash is three bytes and one character.
  size_t chars = 0;
  for (const unsigned char c : text) chars += (c & 0xC0) != 0x80 ? 1 : 0;
  return static_cast<double>(chars) * o.char_px;
}

// The graph as the layout walks it: per node its neighbours and tier, the rows of tiers, and
// each host's switch (the first of its neighbours one tier up: its run).
struct Graph {
  std::vector<std::vector<size_t>> adjacent;
  std::vector<uint32_t> tier;
  std::vector<std::vector<size_t>> rows;
  std::vector<size_t> anchor;
};

Graph graph_of(const judge::TopologyResult& t, FabricLayout& out) {
  const size_t count = t.nodes.size();
  Graph g;
  std::unordered_map<std::string, size_t> index;
  for (size_t n = 0; n < count; ++n) index.emplace(t.nodes[n].name, n);
  g.adjacent.resize(count);
  for (const judge::TopologyLink& link : t.links) {
    const auto a = link.ends.size() == 2 ? index.find(link.ends[0]) : index.end();
    const auto b = link.ends.size() == 2 ? index.find(link.ends[1]) : index.end();
    const bool drawn = a != index.end() && b != index.end();
    out.link_a.push_back(drawn ? a->second : kNone);
    out.link_b.push_back(drawn ? b->second : kNone);
    out.link_drawn.push_back(drawn);
    if (drawn && a->second != b->second) {
      g.adjacent[a->second].push_back(b->second);
      g.adjacent[b->second].push_back(a->second);
    }
  }
  g.tier = tiers_of(t, g.adjacent);
  out.tiers = count == 0 ? 1 : *std::max_element(g.tier.begin(), g.tier.end()) + 1;
  g.rows.resize(out.tiers);
  for (size_t n = 0; n < count; ++n) g.rows[g.tier[n]].push_back(n);
  g.anchor.assign(count, kNone);
  for (const size_t h : g.rows[0]) {
    for (const size_t next : g.adjacent[h]) {
      if (g.tier[next] == 1) g.anchor[h] = std::min(g.anchor[h], next);
    }
  }
  return g;
}

// Hosts in runs under their switch, a gap of one host between runs; the width grows when the
// widest row (hosts with their gaps, or a row of switches) would get less than min_pitch a node.
// Returns the hosts' pitch; out.width and `span` (the rows' width) are set.
double place_hosts(const judge::TopologyResult& t, const FabricLayoutOptions& o, Graph& g,
                   FabricLayout& out, double& span) {
  std::vector<size_t>& hosts = g.rows[0];
  std::stable_sort(hosts.begin(), hosts.end(),
                   [&](size_t a, size_t b) { return g.anchor[a] < g.anchor[b]; });
  std::vector<double> units(hosts.size());
  double unit = 0.0;
  for (size_t i = 0; i < hosts.size(); ++i) {
    if (i > 0 && g.anchor[hosts[i]] != g.anchor[hosts[i - 1]]) unit += 1.0;
    units[i] = unit + 0.5;
    unit += 1.0;
  }
  double widest = unit;
  for (uint32_t k = 1; k < out.tiers; ++k) {
    widest = std::max(widest, static_cast<double>(g.rows[k].size()));
  }
  out.width = o.width;
  span = out.width - o.left - o.right;
  if (widest > 0.0 && span / widest < o.min_pitch) {
    span = widest * o.min_pitch;
    out.width = o.left + o.right + span;
  }
  const double pitch = unit > 0.0 ? std::min(span / unit, span / 2.0) : span;
  // Few hosts: centred rather than spread to the edges.
  const double start = o.left + (span - unit * pitch) / 2.0;
  const double box = std::clamp(pitch * 0.7, 1.5, kHostBoxMax);
  for (size_t i = 0; i < hosts.size(); ++i) {
    LaidNode& node = out.nodes[hosts[i]];
    node.x = start + units[i] * pitch;
    node.y = out.tier_y[0];
    node.box_width = box;
    node.box_height = pitch >= 10.0 ? box : 10.0;
    node.label = text_px(t.nodes[hosts[i]].name, o) + 4.0 <= pitch;
  }
  return pitch;
}

// Row k's switches each over the middle of its neighbours below (placed already), pushed apart.
void place_switches(const judge::TopologyResult& t, const FabricLayoutOptions& o, uint32_t k,
                    double span, Graph& g, FabricLayout& out) {
  std::vector<size_t>& row = g.rows[k];
  const double sep = std::min(o.switch_pitch, span / static_cast<double>(row.size()));
  std::vector<double> desired(t.nodes.size(), 0.0);
  for (size_t i = 0; i < row.size(); ++i) {
    double sum = 0.0;
    size_t below = 0;
    for (const size_t next : g.adjacent[row[i]]) {
      if (g.tier[next] < k) {
        sum += out.nodes[next].x;
        ++below;
      }
    }
    desired[row[i]] = below > 0 ? sum / static_cast<double>(below)
                                : o.left + (static_cast<double>(i) + 0.5) * span /
                                               static_cast<double>(row.size());
  }
  std::stable_sort(row.begin(), row.end(),
                   [&](size_t a, size_t b) { return desired[a] < desired[b]; });
  std::vector<double> wanted(row.size());
  for (size_t i = 0; i < row.size(); ++i) wanted[i] = desired[row[i]];
  const std::vector<double> x = spread(wanted, sep, o.left + sep / 2.0, o.left + span - sep / 2.0);
  for (size_t i = 0; i < row.size(); ++i) {
    LaidNode& node = out.nodes[row[i]];
    node.x = x[i];
    node.y = out.tier_y[k];
    const double label_box = text_px(t.nodes[row[i]].name, o) + 10.0;
    node.label = label_box <= sep - 4.0;
    node.box_width = node.label ? std::max(label_box, std::min(40.0, sep - 4.0))
                                : std::max(2.0, std::min(28.0, sep * 0.7));
    node.box_height = kSwitchBoxHeight;
  }
}

// Runs of hosts whose own names do not fit: one label per run, when it fits the run.
void label_host_runs(const judge::TopologyResult& t, const FabricLayoutOptions& o, const Graph& g,
                     double pitch, FabricLayout& out) {
  const std::vector<size_t>& hosts = g.rows[0];
  for (size_t i = 0; i < hosts.size();) {
    size_t j = i;
    bool all_labelled = out.nodes[hosts[i]].label;
    while (j + 1 < hosts.size() && g.anchor[hosts[j + 1]] == g.anchor[hosts[i]]) {
      ++j;
      all_labelled = all_labelled && out.nodes[hosts[j]].label;
    }
    if (!all_labelled) {
      GroupLabel group;
      group.text = run_label(t.nodes[hosts[i]].name, t.nodes[hosts[j]].name);
      group.first = hosts[i];
      group.last = hosts[j];
      group.x = (out.nodes[hosts[i]].x + out.nodes[hosts[j]].x) / 2.0;
      group.y = out.tier_y[0] + out.nodes[hosts[i]].box_height / 2.0 + 14.0;
      const double run_px = out.nodes[hosts[j]].x - out.nodes[hosts[i]].x + pitch;
      // Drawn at 10.5 px, not 12; "h112…" when "h112–h127" is too wide.
      const auto fits = [&](const std::string& text) {
        return text_px(text, o) * 0.875 + 2.0 <= run_px;
      };
      if (!fits(group.text)) group.text = t.nodes[hosts[i]].name + "\u2026";
      if (fits(group.text)) out.host_groups.push_back(std::move(group));
    }
    i = j + 1;
  }
}

}  // namespace

FabricLayout layout_fabric(const judge::TopologyResult& t, const FabricLayoutOptions& o) {
  FabricLayout out;
  out.nodes.resize(t.nodes.size());
  Graph g = graph_of(t, out);
  for (size_t n = 0; n < t.nodes.size(); ++n) out.nodes[n].tier = g.tier[n];
  out.tier_y.resize(out.tiers);
  for (uint32_t k = 0; k < out.tiers; ++k) {
    out.tier_y[k] = o.top + kSwitchBoxHeight / 2.0 + (out.tiers - 1 - k) * o.tier_gap;
  }
  double span = 0.0;
  const double host_pitch = place_hosts(t, o, g, out, span);
  for (uint32_t k = 1; k < out.tiers; ++k) place_switches(t, o, k, span, g, out);
  label_host_runs(t, o, g, host_pitch, out);
  const double host_box = std::clamp(host_pitch * 0.7, 1.5, kHostBoxMax);
  out.height = out.tier_y[0] + std::max(10.0, host_box) / 2.0 + o.bottom;
  return out;
}

std::string tier_name(uint32_t tier, uint32_t tiers) {
  if (tier == 0) return "hosts";
  const uint32_t switch_tiers = tiers - 1;
  if (switch_tiers == 1) return "switches";
  if (switch_tiers == 2) return tier == 1 ? "leaves" : "spines";
  if (switch_tiers == 3) {
    if (tier == 1) return "leaves (ToR)";
    return tier == 2 ? "aggregation" : "cores";
  }
  return "tier " + std::to_string(tier);
}

int load_bucket(bool crossed, double load) {
  if (!crossed) return 0;
  if (!(load >= 0.25)) return 1;  // NaN too: nothing measured reads as light load
  if (load < 0.5) return 2;
  if (load < 0.75) return 3;
  if (load < 0.9) return 4;
  return 5;
}

// ColorBrewer Blues for the load, vermillion (the report's colour of a limit) for a channel
// at 90 % or more; grey: no flow crosses it.
const char* load_bucket_colour(int bucket) {
  static constexpr const char* kColours[kLoadBuckets] = {"#c4ccd4", "#9ecae1", "#4292c6",
                                                         "#2166ac", "#053061", "#d55e00"};
  return kColours[std::clamp(bucket, 0, kLoadBuckets - 1)];
}

const char* load_bucket_label(int bucket) {
  static constexpr const char* kLabels[kLoadBuckets] = {"no flow", "< 25 %",  "25–50 %",
                                                        "50–75 %", "75–90 %", "≥ 90 %"};
  return kLabels[std::clamp(bucket, 0, kLoadBuckets - 1)];
}

}  // namespace qb::report
