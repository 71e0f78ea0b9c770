// A suite's `[topology]` once read (topology_reader.hpp): the graph, how it routes and how its
// switches share a class. Plain data, without TOML, for the suite model.
#pragma once

#include <cstdint>
#include <string>

#include <vector>

#include "qb/common/result.hpp"
#include "qb/fabric/channel_qos.hpp"
#include "qb/fabric/expectation.hpp"
#include "qb/fabric/routing.hpp"
#include "qb/fabric/topology.hpp"

namespace qb::fabric {

inline constexpr int64_t kMinBufferBytes = 8192;
inline constexpr int64_t kMaxBufferBytes = int64_t{1} << 30;

enum class TopologyKind : uint8_t { leaf_spine, fat_tree, explicit_graph, ibnetdiscover };

/// `[topology]`, read and checked: the graph, how it routes, how switches share a class.
struct TopologySpec {
  TopologyKind kind = TopologyKind::leaf_spine;
  Topology topology;
  RoutingSpec routing;
  Fairness fairness = Fairness::per_ingress;
  /// `buffer`: bytes of every (switch ingress port, class) lossless buffer; 0: each channel's
  /// credit loop and two largest packets, at least 32 KiB (as the one-switch model).
  int64_t buffer_bytes = 0;
  std::string file;  // kind ibnetdiscover: the path as resolved
  /// `[[topology.switch_qos]]`, in order (read by the suite loader: they start from its [eth]
  /// and [ib]); fabric::channel_qos applies them.
  std::vector<SwitchQosOverride> switch_qos;
  std::string where;
  SourceLoc loc;
};

}  // namespace qb::fabric
