// The DPDK driver: Ethernet/IPv4/UDP frames from per-flow templates through a DPDK port, the
// receive side on the same port (loopback) or a peer port, TSC time, and the scheduling tree
// enforced in software (TreeScheduler) in front of the Tx queue.
//
// EAL: rte_eal_init can run once per process, so the EAL is owned process-wide: the first
// driver that opens initialises it with its eal_args; later drivers in the same process must
// pass the same arguments (or none) and share it. It is cleaned up at process exit, and the
// runtime directory it made under /var/run/dpdk is removed then.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "qb/common/config_table.hpp"
#include "qb/drivers/driver.hpp"

namespace qb::drv {

/// Per-flow header fields that are not in the QosPlan (yet): DSCP/ECN/PCP and addresses.
struct DpdkFlowMarking {
  uint8_t dscp = 0;  // 0..63
  uint8_t ecn = 0;   // 0..3 (0: not ECN-capable)
  uint8_t pcp = 0;   // 0..7, used when the port's wire model has a VLAN tag
};

struct DpdkConfig {
  /// EAL arguments without the program name, e.g. {"--no-huge", "-m", "512", "--no-pci",
  /// "--vdev", "net_ring0"}. When they name no --file-prefix, "--file-prefix=qosbench-<pid>" is
  /// added; "--no-telemetry" is added unless --telemetry is given.
  std::vector<std::string> eal_args;
  /// Tx port: an ethdev name ("net_ring0", "0000:03:00.0") or a device string to probe
  /// ("net_null1,size=64"); empty: the first port; "none" = receive only (a receiver process
  /// for a sender elsewhere: messages the engine posts are dropped unsent, the Rx side counts
  /// what arrives; rx_port names the port, empty: the first port).
  std::string tx_port;
  /// Rx port: empty = the Tx port (loopback); "none" = do not receive (net_null).
  std::string rx_port;
  uint16_t tx_descriptors = 1024;
  uint16_t rx_descriptors = 1024;
  /// Mbufs in the pool; 0 = sized from the queues (see docs/dpdk.md).
  uint32_t mbufs = 0;
  /// Put the scheduling tree (DWRR + caps) in software in front of the Tx queue. Off: every
  /// message goes to the PMD as soon as it is posted.
  bool software_shaper = true;
  /// mlx5 send-on-time: stamp every frame with its scheduled time (SEND_ON_TIMESTAMP offload);
  /// the port needs the tx_pp=<ns> devarg. open() fails (Errc::not_supported) on a port that
  /// does not offer it. Ignored when receiving only.
  bool hw_pacing = false;
  /// The NIC's own state on an mlx5 port (port_state_hooks.hpp): nic_qos "check" | "apply" |
  /// "off", nic_counters, nic_root (a recorded machine) with nic_netdev (its netdev).
  std::string nic_qos = "check";
  bool nic_counters = true;
  std::string nic_root;
  std::string nic_netdev;
  /// A network namespace (a name `ip netns` made, or a path) the ports are made and driven
  /// in: a rank that stands for a host of its own on one machine (netns.hpp). Empty: this one.
  std::string netns;
  /// Per-flow send-queue depth in the shaper (Capabilities::max_outstanding_per_flow).
  uint32_t send_queue_depth = 512;

  std::array<uint8_t, 6> src_mac{0x02, 0x51, 0x42, 0x00, 0x00, 0x01};
  std::array<uint8_t, 6> dst_mac{0x02, 0x51, 0x42, 0x00, 0x00, 0x02};
  uint16_t vlan_id = 0;
  uint32_t src_ip = 0xc6120001;  // 198.18.0.1 (RFC 2544 benchmarking range)
  uint32_t dst_ip = 0xc6120002;  // 198.18.0.2
  /// UDP source port of flow f is udp_src_base + f % 16384; every flow sends to udp_dst_port,
  /// which is also how the receiver recognises qosbench frames.
  uint16_t udp_src_base = 49152;
  uint16_t udp_dst_port = 5142;
  /// Marking per flow (index = flow); flows beyond the vector take DSCP and PCP (= priority)
  /// from the plan and ECN from `marking`.
  DpdkFlowMarking marking;
  std::vector<DpdkFlowMarking> flow_marking;
};

/// Workers the driver runs with these EAL arguments: one per EAL lcore (-l/--lcores/-c; all
/// CPUs when none is given), or 1 when the software shaper is on (one arbiter for the tree).
uint32_t dpdk_worker_count(const DpdkConfig& config);

/// [driver.dpdk] (docs/suite-format.md): eal, tx_port, rx_port, software_shaper, hw_pacing;
/// unset keys keep DpdkConfig's defaults. Throws ConfigError (located) for bad keys or values.
DpdkConfig parse_dpdk_config(const ConfigTable& table);

std::unique_ptr<Driver> make_dpdk_driver(DpdkConfig config);

}  // namespace qb::drv
