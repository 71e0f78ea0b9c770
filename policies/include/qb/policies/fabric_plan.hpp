// A multi-switch fabric as the drivers see it (issue 29): nodes, directed channels (one egress
// port and the cable behind it), how each channel arbitrates, and every flow's path with its
// class at each hop. Plain data, built by suite::compile_scenario() from a [topology] through
// qb::fabric (routing, the expectation); the simulator's graph model runs it. Kept free of
// qb::fabric types so the drivers need only `policies`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qb/policies/port_qos.hpp"

namespace qb::policy {

struct FabricChannel {
  uint32_t from_node = 0;
  uint32_t to_node = 0;
  double rate_bps = 0.0;
  int64_t delay_ns = 0;  // one way (propagation)
};

struct FabricPlan {
  std::vector<std::string> node_names;
  std::vector<uint8_t> node_is_host;    // per node
  std::vector<uint32_t> host_node;      // host index -> node
  std::vector<FabricChannel> channels;  // channel 2*l + d: link l leaving its end d
  std::vector<std::string> channel_names;  // "leaf0:3->spine1:1"
  /// Per channel: how its egress arbitrates between classes (a host's NIC port: the plan's
  /// nic_qos and its tree; a switch egress: the switch's QoS).
  std::vector<PortQos> channel_qos;
  /// Per flow instance (QosPlan::flows order): the channels it crosses, its NIC port first, and
  /// its arbitration class on each (TC or VL at that egress).
  std::vector<std::vector<uint32_t>> flow_path;
  std::vector<std::vector<uint8_t>> flow_class;
  std::vector<uint32_t> flow_source;       // host index (QosPlan's FlowPlan::host)
  std::vector<uint32_t> flow_destination;  // host index
  /// Inside a class at a switch egress: round robin over ingress ports (false) or over flows.
  bool per_flow_fairness = false;
  /// Bytes of every (switch ingress port, class) lossless buffer; 0: the simulator's default.
  int64_t buffer_bytes = 0;
  /// The expectation's view, for explain and the judge: per channel its expected load, per
  /// flow the channel that limits it (UINT32_MAX: its own offered load).
  std::vector<double> channel_expected_bps;
  std::vector<uint32_t> flow_bottleneck;

  uint32_t host_count() const noexcept { return static_cast<uint32_t>(host_node.size()); }
  uint32_t channel_count() const noexcept { return static_cast<uint32_t>(channels.size()); }
  bool from_host(uint32_t channel) const noexcept {
    return node_is_host[channels[channel].from_node] != 0;
  }
  bool to_host(uint32_t channel) const noexcept {
    return node_is_host[channels[channel].to_node] != 0;
  }
};

}  // namespace qb::policy
