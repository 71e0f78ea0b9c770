// Where the HTML report draws a [topology]'s nodes (docs/report.md, "The fabric drawing"):
// tiers by distance from the hosts (hosts at the bottom, then leaves/ToRs, spines/aggregation,
// cores), each tier a row, every switch over the middle of its neighbours below, and which
// labels fit. Pure geometry over the results' topology, so it is tested on its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "qb/judge/topology_results.hpp"

namespace qb::report {

struct FabricLayoutOptions {
  double width = 1180.0;  // grows when the widest tier needs more than min_pitch a node
  double left = 104.0;    // room for the tier names
  double right = 16.0;
  double top = 22.0;           // above the top tier's boxes
  double tier_gap = 100.0;     // between the rows of two tiers
  double bottom = 40.0;        // under the hosts' boxes, for their labels
  double min_pitch = 3.0;      // the least room a host gets
  double switch_pitch = 72.0;  // the room a switch wants (less when its tier is crowded)
  double char_px = 6.6;        // a label character's width (12 px system font, estimated)
};

struct LaidNode {
  uint32_t tier = 0;        // 0: hosts; a switch: its distance in links from the nearest host
  double x = 0.0, y = 0.0;  // centre
  double box_width = 0.0, box_height = 0.0;
  bool label = false;  // its own name fits under (host) or in (switch) its box
};

/// A run of hosts under the same switch whose names do not fit one by one: one label for them
/// ("h0–h15"), centred under the run.
struct GroupLabel {
  std::string text;
  double x = 0.0, y = 0.0;
  size_t first = 0, last = 0;  // node indices
};

struct FabricLayout {
  double width = 0.0, height = 0.0;
  uint32_t tiers = 0;                  // rows, hosts included
  std::vector<double> tier_y;          // per tier, the row's centre line
  std::vector<LaidNode> nodes;         // per topology node, in its order
  std::vector<size_t> link_a, link_b;  // per topology link: its ends' node indices
  std::vector<bool> link_drawn;        // false: an end is not a node (an edited file)
  std::vector<GroupLabel> host_groups;
};

/// Lays `topology` out. Every node gets a position inside [0, width] x [0, height]; nodes of one
/// tier keep at least their box width apart; nodes no host reaches sit on a row above the rest.
FabricLayout layout_fabric(const judge::TopologyResult& topology,
                           const FabricLayoutOptions& options = {});

/// "hosts", "leaves", "spines", "aggregation", "cores", "tier 4": a row's name by how many
/// tiers the fabric has.
std::string tier_name(uint32_t tier, uint32_t tiers);

/// The colour scale of the drawing: a channel's load in one of six buckets. 0: no flow crosses
/// the channel; 1..5: load below 25 %, 50 %, 75 %, 90 %, and from 90 % up.
inline constexpr int kLoadBuckets = 6;
int load_bucket(bool crossed, double load);
/// The bucket's stroke colour ("#rrggbb") and its legend text.
const char* load_bucket_colour(int bucket);
const char* load_bucket_label(int bucket);

}  // namespace qb::report
