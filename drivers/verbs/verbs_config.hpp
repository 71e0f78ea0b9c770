// [driver.verbs] options (docs/verbs.md): which device and port, how many workers, pacing, and
// the fake ConnectX that stands in for a device in CI.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "qb/common/config_table.hpp"

namespace qb::nic {
struct NicSeams;  // qb/nic/port_state.hpp
}

namespace qb::drv::verbs {

enum class Provider { rdma_core, fake };
/// How the fake completes work requests: on the simulator's timing behind the seam (virtual
/// time: runs land on the oracle), or at once (real time: measures the driver's own cost).
enum class FakeTiming { simulated, instant };
/// Where the suite's scheduling tree is enforced: in the NIC (mlx5dv_sched), or, on a device
/// without it (Soft-RoCE, other vendors' RNICs, a VF without the capability), by pacing each
/// QP at its oracle share in software.
enum class TreeMode { nic, software };

struct VerbsConfig {
  Provider provider = Provider::rdma_core;
  std::string device;  // "mlx5_0"; empty: the first device
  /// Loopback on two devices (same port number): the responder QPs on this one, so the flows
  /// cross the wire between the two ports (Soft-RoCE on a veth pair: READ on the wire).
  std::string responder_device;
  uint8_t port = 1;
  /// The GID the QPs use (show_gids lists the RoCE v2 ones); unset: picked as perftest does
  /// (gid_select.hpp).
  std::optional<uint32_t> gid_index;
  uint32_t workers = 1;
  TreeMode tree = TreeMode::nic;
  /// Per-QP hardware pacing (IBV_QP_RATE_LIMIT) at each paced flow's mean rate, on top of the
  /// engine's own pacing; needs packet_pacing_caps for RC QPs.
  bool hw_rate_limit = false;
  /// Per flow: the [[flow]] entries (or flow instances, "name#i") that ask for hardware pacing,
  /// whatever hw_rate_limit says; each must be paced (a finite rate). Empty: hw_rate_limit
  /// decides for every paced flow.
  std::vector<std::string> hw_pacing;
  /// Two hosts: the sender connects to the receiver's "HOST:PORT" (TCP, to exchange QP
  /// numbers); the receiver listens on a TCP port. Neither: loopback on one port.
  std::string peer;
  uint16_t listen = 0;
  FakeTiming fake_timing = FakeTiming::simulated;
  /// The fake answers every mlx5dv_sched_* call with EOPNOTSUPP (a device or firmware without
  /// NIC QoS): tests the refusal path end to end.
  bool fake_sched_support = true;
  /// The port's own QoS against the suite's [eth]/[ib] (nic_state.hpp): "check" (a mismatch
  /// stops the run, exit 3), "apply" (the suite's [eth] programmed for the run and the port's
  /// put back after it), "off".
  enum class NicQos { check, apply, off };
  NicQos nic_qos = NicQos::check;
  /// The port's counters before and after each repetition, their deltas in the results.
  bool nic_counters = true;
  /// A directory standing for the machine's sysfs, /dev and recorded NIC answers
  /// (qb/nic/recorded.hpp); empty: this machine. With provider = "fake" the NIC's state is
  /// read only under nic_root (the fake has no netdev of its own).
  std::string nic_root;
  /// Tests: the seams to read the NIC's state through (null: nic_root's, or this machine's).
  std::shared_ptr<nic::NicSeams> nic_seams;
};

/// Throws ConfigError (located) for unknown keys, values out of range, and fake_* keys without
/// provider = "fake".
VerbsConfig parse_verbs_config(const ConfigTable& table);

}  // namespace qb::drv::verbs
