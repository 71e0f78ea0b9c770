// The fabric drawing of a [topology] scenario (docs/report.md, "The fabric drawing"): nodes in
// tiers (qb/reports/fabric_layout.hpp), each link as two half-lines (the half at an end is the
// channel leaving that end) coloured by the channel's load, victims marked, and the per-hop
// classes of every flow.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <utility>

#include "figure_parts.hpp"
#include "json_node.hpp"
#include "qb/reports/fabric_layout.hpp"
#include "svg_figures.hpp"

namespace qb::report::html {
namespace {

/// At most this many flows in the per-hop class table (the HTML stays bounded on big fabrics).
constexpr size_t kMaxHopRows = 200;
/// The victims whose paths are drawn, and those a paused channel's tooltip names.
constexpr size_t kMaxVictimPaths = 3;
constexpr size_t kMaxVictimNames = 6;

struct Point {
  double x = 0.0, y = 0.0;
};

// A link's two halves: from end a to the middle, and from the middle to end b, each a path.
struct LinkGeometry {
  std::string half[2];  // half[0]: a's channel (a -> b), half[1]: b's channel (b -> a)
  Point mid[2];         // the middle of each half, where a victim's marker goes
  Point middle;
};

Point lerp(Point a, Point b, double t) {
  return {a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t};
}

std::string move_to(Point p) {
  return "M" + coord(p.x) + "," + coord(p.y);
}

// Straight between tiers; an arc above the row between two nodes of one tier. `offset` moves a
// link sideways when several join the same two nodes.
LinkGeometry link_geometry(Point a, Point b, double offset) {
  LinkGeometry g;
  const double dx = b.x - a.x, dy = b.y - a.y;
  const double length = std::hypot(dx, dy);
  if (length > 0.0 && offset != 0.0) {
    const Point normal{-dy / length * offset, dx / length * offset};
    a = {a.x + normal.x, a.y + normal.y};
    b = {b.x + normal.x, b.y + normal.y};
  }
  if (std::fabs(dy) < 0.5) {  // one tier: a quadratic arc, split at its middle
    const double lift = std::min(40.0, std::fabs(dx) / 3.0) + 10.0;
    const Point control{(a.x + b.x) / 2.0, a.y - lift};
    const Point c0 = lerp(a, control, 0.5), c1 = lerp(control, b, 0.5);
    g.middle = lerp(c0, c1, 0.5);
    g.half[0] = move_to(a) + " Q" + coord(c0.x) + "," + coord(c0.y) + " " + coord(g.middle.x) +
                "," + coord(g.middle.y);
    g.half[1] = move_to(g.middle) + " Q" + coord(c1.x) + "," + coord(c1.y) + " " + coord(b.x) +
                "," + coord(b.y);
    g.mid[0] = lerp(lerp(a, c0, 0.5), lerp(c0, g.middle, 0.5), 0.5);
    g.mid[1] = lerp(lerp(g.middle, c1, 0.5), lerp(c1, b, 0.5), 0.5);
    return g;
  }
  g.middle = lerp(a, b, 0.5);
  g.half[0] = move_to(a) + " L" + coord(g.middle.x) + "," + coord(g.middle.y);
  g.half[1] = move_to(g.middle) + " L" + coord(b.x) + "," + coord(b.y);
  g.mid[0] = lerp(a, b, 0.25);
  g.mid[1] = lerp(a, b, 0.75);
  return g;
}

// What the drawing shows of a channel: its results row (null: no flow crosses it) and the load
// its colour stands for.
struct ChannelView {
  const LinkResult* result = nullptr;
  double load = 0.0;
  int bucket = 0;
};

// The load is the simulator's busy time when the driver measured one, else the sum of the
// measured rates of the channel's flows over its rate.
bool busy_time_measured(const ScenarioResult& s) {
  return std::any_of(s.links.begin(), s.links.end(),
                     [](const LinkResult& link) { return link.utilisation > 0.0; });
}

ChannelView channel_view(const LinkResult* result, bool busy) {
  ChannelView view;
  view.result = result;
  if (result != nullptr) {
    view.load = busy ? result->utilisation
                     : (result->rate_bps > 0.0 ? result->measured_bps / result->rate_bps : 0.0);
  }
  view.bucket = load_bucket(result != nullptr, view.load);
  return view;
}

std::string channel_text(const std::string& from, const std::string& to, const std::string& channel,
                         const ChannelView& view, bool busy) {
  std::string text = from + " \u2192 " + to + " (" + channel + "): ";
  if (view.result == nullptr) return text + "no flow";
  const LinkResult& r = *view.result;
  text += "expected " + format_sig(r.expected_bps / 1e9, 4) + ", measured " +
          format_sig(r.measured_bps / 1e9, 4) + " Gbit/s";
  text += busy ? ", busy " : ", load ";
  text += format_trimmed(view.load * 100.0, 1) + " %";
  text += ", paused " + format_ns(r.paused_ns);
  if (r.queue_max_bytes > 0.0)
    text += ", queue \u2264 " + format_trimmed(r.queue_max_bytes, 0) + " B";
  if (r.ecn_marks > 0.0) text += ", " + format_trimmed(r.ecn_marks, 0) + " ECN marks";
  if (r.drops > 0.0) text += ", " + format_trimmed(r.drops, 0) + " drops";
  return text;
}

// The legend: what the colours, the two halves and the victim marks mean.
void fabric_legend(Markup& m, bool busy, bool victims) {
  m.open("ul", {{"class", "legend fabric-legend"}});
  m.open("li");
  m.text(busy ? "busy time of the channel: " : "measured load / rate: ");
  m.close();
  for (int bucket = 0; bucket < kLoadBuckets; ++bucket) {
    legend_item(m, load_bucket_colour(bucket), false, load_bucket_label(bucket));
  }
  if (victims)
    legend_item(m, "var(--fail)", true,
                "victims: the channels that paused them (!), and the paths of the worst three");
  m.close();
  m.element("p", {{"class", "note"}},
            "Each link is two channels: the half next to a node is the channel leaving it. "
            "Hover a link for both channels' expected and measured load and pause time, a "
            "node for its name.");
}

// Where each channel is drawn: its link and which half.
struct ChannelPlace {
  size_t link = 0;
  int half = 0;
};

// A channel that paused victims, and they (in the results' order).
struct PausedChannel {
  std::string name;
  ChannelPlace place;
  std::vector<const VictimResult*> victims;
};

std::vector<PausedChannel> paused_channels(
    const std::vector<VictimResult>& victims,
    const std::unordered_map<std::string, ChannelPlace>& places) {
  std::vector<PausedChannel> out;
  std::unordered_map<std::string, size_t> index;
  for (const VictimResult& victim : victims) {
    const auto place = places.find(victim.paused_at);
    if (place == places.end()) continue;
    const auto [at, added] = index.emplace(victim.paused_at, out.size());
    if (added) out.push_back({victim.paused_at, place->second, {}});
    out[at->second].victims.push_back(&victim);
  }
  return out;
}

// The `most` victims that lost most (largest shortfall first).
std::vector<VictimResult> worst_victims(std::vector<VictimResult> victims, size_t most) {
  std::stable_sort(victims.begin(), victims.end(),
                   [](const VictimResult& a, const VictimResult& b) { return a.error < b.error; });
  if (victims.size() > most) victims.resize(most);
  return victims;
}

// What every part of the drawing needs: the layout, where each channel is drawn, its results.
struct Scene {
  FabricLayout layout;
  bool busy = false;
  std::unordered_map<std::string, const LinkResult*> results;
  std::unordered_map<std::string, ChannelPlace> places;
  std::vector<LinkGeometry> geometry;  // per link
  double min_rate_bps = 0.0;

  const LinkResult* result_of(const std::string& channel) const {
    const auto found = results.find(channel);
    return found == results.end() ? nullptr : found->second;
  }
};

Scene scene_of(const ScenarioResult& s) {
  const TopologyResult& t = s.topology;
  Scene scene;
  scene.layout = layout_fabric(t);
  const FabricLayout& layout = scene.layout;
  scene.busy = busy_time_measured(s);
  for (const LinkResult& link : s.links) scene.results.emplace(link.name, &link);
  // Several links between the same two nodes: side by side, 4 px apart.
  std::map<std::pair<size_t, size_t>, std::vector<size_t>> bundles;
  for (size_t l = 0; l < t.links.size(); ++l) {
    if (!layout.link_drawn[l]) continue;
    bundles[std::minmax(layout.link_a[l], layout.link_b[l])].push_back(l);
    for (int d = 0; d < 2; ++d) scene.places.emplace(t.links[l].channels[d], ChannelPlace{l, d});
  }
  scene.geometry.resize(t.links.size());
  for (const auto& [ends, links] : bundles) {
    for (size_t k = 0; k < links.size(); ++k) {
      const size_t l = links[k];
      // Drawn from the bundle's first node, so that the offsets of links given either way round
      // point the same way; the halves then swap back to the link's own ends.
      const LaidNode& a = layout.nodes[ends.first];
      const LaidNode& b = layout.nodes[ends.second];
      const double offset = (static_cast<double>(k) - (links.size() - 1) / 2.0) * 4.0;
      LinkGeometry& g = scene.geometry[l];
      g = link_geometry({a.x, a.y}, {b.x, b.y}, offset);
      if (layout.link_a[l] != ends.first) {
        std::swap(g.half[0], g.half[1]);
        std::swap(g.mid[0], g.mid[1]);
      }
    }
  }
  for (const TopologyLink& link : t.links) {
    if (link.rate_bps > 0.0 && (scene.min_rate_bps == 0.0 || link.rate_bps < scene.min_rate_bps)) {
      scene.min_rate_bps = link.rate_bps;
    }
  }
  return scene;
}

// Links: one group each (its tooltip: both channels), a half per channel.
void draw_links(Markup& m, const TopologyResult& t, const Scene& scene) {
  m.open("g", {{"class", "fabric-edges"}});
  for (size_t l = 0; l < t.links.size(); ++l) {
    if (!scene.layout.link_drawn[l]) continue;
    const TopologyLink& link = t.links[l];
    const double width =
        scene.min_rate_bps > 0.0 && link.rate_bps > 0.0
            ? std::clamp(1.4 + std::log2(link.rate_bps / scene.min_rate_bps), 1.4, 4.0)
            : 1.4;
    const ChannelView views[2] = {channel_view(scene.result_of(link.channels[0]), scene.busy),
                                  channel_view(scene.result_of(link.channels[1]), scene.busy)};
    m.open("g", {{"class", "fabric-link"},
                 {"data-a", link.ends[0]},
                 {"data-b", link.ends[1]},
                 {"data-rate-bps", json_number(link.rate_bps)},
                 {"stroke-width", coord(width)}});
    m.element("title", {},
              link.ends[0] + " \u2014 " + link.ends[1] + ": " + format_bps(link.rate_bps) + ", " +
                  format_ns(static_cast<double>(link.delay_ns)) + " one way\n" +
                  channel_text(link.ends[0], link.ends[1], link.channels[0], views[0], scene.busy) +
                  "\n" +
                  channel_text(link.ends[1], link.ends[0], link.channels[1], views[1], scene.busy));
    for (int d = 0; d < 2; ++d) {
      std::vector<Attr> attrs{{"class", views[d].result ? "channel" : "channel idle"},
                              {"d", scene.geometry[l].half[d]},
                              {"stroke", load_bucket_colour(views[d].bucket)},
                              {"data-channel", link.channels[d]},
                              {"data-bucket", std::to_string(views[d].bucket)}};
      if (views[d].result) attrs.push_back({"data-load", json_number(views[d].load)});
      m.empty("path", attrs);
    }
    m.close();
  }
  m.close();
}

// The paths of the worst victims, dashed, node to node (more would hide the fabric).
void draw_victim_paths(Markup& m, const ScenarioResult& s, const Scene& scene) {
  const FabricLayout& layout = scene.layout;
  for (const VictimResult& victim : worst_victims(s.victims, kMaxVictimPaths)) {
    const auto path = std::find_if(s.topology.paths.begin(), s.topology.paths.end(),
                                   [&](const TopologyPath& p) { return p.flow == victim.flow; });
    if (path == s.topology.paths.end()) continue;
    std::string d;
    for (const TopologyHop& hop : path->hops) {
      const auto place = scene.places.find(hop.channel);
      if (place == scene.places.end()) continue;
      const size_t l = place->second.link;
      const bool forth = place->second.half == 0;
      const LaidNode& from = layout.nodes[forth ? layout.link_a[l] : layout.link_b[l]];
      const LaidNode& to = layout.nodes[forth ? layout.link_b[l] : layout.link_a[l]];
      if (d.empty()) d = move_to({from.x, from.y});
      d += " L" + coord(to.x) + "," + coord(to.y);
    }
    if (d.empty()) continue;
    m.open("path", {{"class", "victim-path"}, {"d", d}, {"data-flow", victim.flow}});
    m.element("title", {}, "victim " + victim.flow + ": its path");
    m.close();
  }
}

// Nodes: a box each (a switch's name in it, a host's under it when it fits), then the labels of
// the runs of hosts whose names do not.
void draw_nodes(Markup& m, const TopologyResult& t, const FabricLayout& layout) {
  m.open("g", {{"class", "fabric-nodes"}});
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    const TopologyNode& node = t.nodes[n];
    const LaidNode& at = layout.nodes[n];
    const bool host = node.kind == "host";
    m.open("g", {{"class", "fabric-node " + node.kind},
                 {"data-node", node.name},
                 {"data-kind", node.kind},
                 {"data-tier", std::to_string(at.tier)}});
    m.element("title", {},
              node.name + " (" + node.kind + ", " + tier_name(at.tier, layout.tiers) + ")");
    m.empty("rect", {{"x", coord(at.x - at.box_width / 2.0)},
                     {"y", coord(at.y - at.box_height / 2.0)},
                     {"width", coord(at.box_width)},
                     {"height", coord(at.box_height)},
                     {"rx", host ? "2" : "4"}});
    if (at.label) {
      m.element("text",
                {{"class", "small"},
                 {"x", coord(at.x)},
                 {"y", coord(host ? at.y + at.box_height / 2.0 + 13.0 : at.y)},
                 {"text-anchor", "middle"},
                 {"dominant-baseline", host ? "auto" : "central"}},
                node.name);
    }
    m.close();
  }
  m.close();
  for (const GroupLabel& group : layout.host_groups) {
    m.element("text",
              {{"class", "small muted host-group"},
               {"x", coord(group.x)},
               {"y", coord(group.y)},
               {"text-anchor", "middle"}},
              group.text);
  }
}

// A marker on each paused channel, naming its victims.
void draw_victim_markers(Markup& m, const std::vector<PausedChannel>& paused, const Scene& scene) {
  for (const PausedChannel& channel : paused) {
    const Point at = scene.geometry[channel.place.link].mid[channel.place.half];
    Json flows = Json::array();
    std::string title = channel.name + " paused by congestion not on the paths of its victims:";
    for (size_t v = 0; v < channel.victims.size(); ++v) {
      const VictimResult& victim = *channel.victims[v];
      flows.push_back(victim.flow);
      if (v < kMaxVictimNames) {
        title += "\n" + victim.flow + " " + format_percent(victim.error) +
                 " of its expectation, paused " + format_ns(victim.paused_ns);
      }
    }
    if (channel.victims.size() > kMaxVictimNames) {
      title += "\nand " + std::to_string(channel.victims.size() - kMaxVictimNames) + " more";
    }
    m.open(
        "g",
        {{"class", "victim-marker"}, {"data-channel", channel.name}, {"data-flows", flows.dump()}});
    m.element("title", {}, title);
    m.empty("circle", {{"cx", coord(at.x)}, {"cy", coord(at.y)}, {"r", "7"}});
    m.element("text",
              {{"x", coord(at.x)},
               {"y", coord(at.y)},
               {"text-anchor", "middle"},
               {"dominant-baseline", "central"}},
              "!");
    m.close();
  }
}

}  // namespace

void fabric_figure(Markup& m, const ScenarioResult& s) {
  const TopologyResult& t = s.topology;
  if (t.empty()) return;
  const Scene scene = scene_of(s);
  const FabricLayout& layout = scene.layout;
  size_t hosts = 0;
  for (const TopologyNode& node : t.nodes) hosts += node.kind == "host" ? 1 : 0;
  m.open("figure", {{"class", "fabric"}});
  m.element("figcaption", {},
            fmt::format("{} hosts, {} switches, {} links in {} tiers", hosts,
                        t.nodes.size() - hosts, t.links.size(), layout.tiers));
  m.open("div", {{"class", "table-wrap"}});
  m.open("svg", {{"class", "chart fabric-topology"},
                 {"viewBox", "0 0 " + coord(layout.width) + " " + coord(layout.height)},
                 {"style", "width:" + coord(layout.width) + "px;max-width:none"},
                 {"role", "img"},
                 {"aria-label", "The fabric: hosts, switches and links coloured by load"},
                 {"data-load-basis", scene.busy ? "busy" : "measured"}});
  for (uint32_t k = 0; k < layout.tiers; ++k) {  // tier names, left
    m.element("text",
              {{"class", "tier-name small muted"},
               {"x", "8"},
               {"y", coord(layout.tier_y[k])},
               {"dominant-baseline", "central"}},
              tier_name(k, layout.tiers));
  }
  // The channels that paused victims, under their line: one mark per channel, whatever the
  // number of its victims.
  const std::vector<PausedChannel> paused = paused_channels(s.victims, scene.places);
  for (const PausedChannel& channel : paused) {
    m.empty("path", {{"class", "victim-halo"},
                     {"d", scene.geometry[channel.place.link].half[channel.place.half]},
                     {"data-channel", channel.name}});
  }
  draw_links(m, t, scene);
  draw_victim_paths(m, s, scene);
  draw_nodes(m, t, layout);
  draw_victim_markers(m, paused, scene);
  m.close();  // svg
  m.close();  // div
  fabric_legend(m, scene.busy, !s.victims.empty());
  m.close();  // figure
}

void hop_classes_table(Markup& m, const ScenarioResult& s) {
  const TopologyResult& t = s.topology;
  const bool ib = s.transport == "ib";
  // Ethernet without classes: every hop is the one "port" class, nothing to show.
  const bool classes = std::any_of(t.paths.begin(), t.paths.end(), [](const TopologyPath& p) {
    return std::any_of(p.hops.begin(), p.hops.end(),
                       [](const TopologyHop& h) { return h.arb_class != "port"; });
  });
  if (t.paths.empty() || (!ib && !classes)) return;
  const size_t shown = std::min(t.paths.size(), kMaxHopRows);
  m.element("h3", {},
            ib ? "Per-hop classes: the SL and its VL at every hop"
               : "Per-hop classes: the priority and its TC at every hop");
  m.element("p", {{"class", "note"}},
            std::string(ib ? "A flow keeps its SL; each port's SL2VL table maps it to the VL it "
                             "arbitrates in there."
                           : "A flow keeps its priority; each port's prio_tc maps it to the TC "
                             "it arbitrates in there.") +
                " The NIC port first." +
                (shown < t.paths.size() ? " The first " + std::to_string(shown) + " of " +
                                              std::to_string(t.paths.size()) + " flows."
                                        : std::string()));
  // A short table open, a long one folded.
  if (shown > 20) {
    m.open("details");
  } else {
    m.open("details", {{"open", "open"}});
  }
  m.element("summary", {}, "Table of the flows' hops");
  m.open("div", {{"class", "table-wrap"}});
  m.open("table", {{"class", "hop-classes"}});
  m.open("thead").open("tr");
  m.element("th", {}, "flow");
  m.element("th", {{"class", "num"}}, ib ? "SL" : "priority");
  m.element("th", {}, "class at each hop");
  m.close().close();
  m.open("tbody");
  for (size_t p = 0; p < shown; ++p) {
    const TopologyPath& path = t.paths[p];
    m.open("tr", {{"class", "hop-path"},
                  {"data-flow", path.flow},
                  {"data-sl", std::to_string(path.sl)},
                  {"data-priority", std::to_string(path.priority)}});
    m.element("td", {}, path.flow);
    m.element("td", {{"class", "num"}}, std::to_string(ib ? path.sl : path.priority));
    m.open("td", {{"class", "hops"}});
    for (const TopologyHop& hop : path.hops) {
      m.open("span",
             {{"class", "hop"}, {"data-channel", hop.channel}, {"data-class", hop.arb_class}});
      m.element("span", {{"class", "mono"}}, hop.channel);
      m.text(" ");
      m.element("b", {}, hop.arb_class);
      m.close();
    }
    m.close();
    m.close();
  }
  m.close().close().close().close();
}

}  // namespace qb::report::html
