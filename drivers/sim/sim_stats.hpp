// The simulator's counters, reported as driver stats (sim_driver.cpp).
#pragma once

#include <array>
#include <cstdint>

#include "qb/policies/port_qos.hpp"

namespace qb::drv::sim {

struct PortStats {
  uint64_t packets = 0;
  uint64_t messages = 0;
  uint64_t posted_messages = 0;
  uint64_t wire_bytes = 0;
  uint64_t payload_bytes = 0;
  uint64_t steps = 0;           // event instants processed by wait_until()
  uint64_t busy_ps = 0;         // NIC links serialising (summed over the hosts)
  uint64_t rejected_posts = 0;  // tx_burst() short counts (send queue full / bad flow)
  uint64_t ring_stalls = 0;     // link held idle because a completion ring was full
  uint32_t max_send_queue_depth = 0;
  uint64_t completions = 0;

  // Fabric counters (reported when the plan has a fabric: port QoS, hosts, switch, drops).
  uint64_t drops = 0;             // packets of VL15 (dropped) flows discarded at the NIC
  uint64_t dropped_messages = 0;  // their messages, completed without an ACK
  uint64_t switch_busy_ps = 0;    // switch egress link serialising
  uint64_t credit_pauses = 0;     // a NIC class or flow began waiting for switch credit
  // Most bytes one switch buffer held: lossless, an (ingress, class) buffer's credit in use;
  // lossy, an egress class's bytes (queued or on their way; a dropped packet takes none).
  uint64_t switch_buffer_high_water_bytes = 0;
  uint64_t ecn_marks = 0;           // packets marked CE entering the switch
  uint64_t cnps = 0;                // CNPs the receiver sent
  uint64_t cnp_ring_overflows = 0;  // CNPs lost because too many were in flight (never with
                                    // the ring sized for the fabric; counted to be sure)
  // Lossy mode.
  uint64_t switch_drops = 0;             // packets tail-dropped at the switch egress
  uint64_t out_of_sequence_packets = 0;  // discarded by the receiver (after a gap)
  uint64_t nacks = 0;                    // NACKs the receiver sent
  uint64_t retransmitted_packets = 0;    // packets a NIC sent again after going back
  uint64_t retransmitted_wire_bytes = 0;
  uint64_t retransmit_timeouts = 0;  // go-backs after a silent flow's timeout (no NACK came)
  std::array<uint64_t, policy::kMaxArbClasses> switch_class_drops{};
  std::array<uint64_t, policy::kMaxArbClasses> class_packets{};  // NIC classes, all hosts
  std::array<uint64_t, policy::kMaxArbClasses> class_wire_bytes{};
  std::array<uint64_t, policy::kMaxArbClasses> switch_class_packets{};
  std::array<uint64_t, policy::kMaxArbClasses> switch_class_wire_bytes{};
};

}  // namespace qb::drv::sim
