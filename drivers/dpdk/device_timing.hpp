// The mlx5 timing seam: send-on-time pacing (tx_pp devarg + SEND_ON_TIMESTAMP offload and the
// mbuf Tx timestamp dynfield), Rx hardware timestamps (RX_OFFLOAD_TIMESTAMP + dynfield), the
// device clock, and xstats. Every device call goes through DeviceOps, so the decisions are
// unit-tested with a fake; the real implementation calls DPDK. Control path only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "qb/common/result.hpp"
#include "dpdk_driver.hpp"
#include "qb/nic/port_counters.hpp"

namespace qb::drv::dpdk {

class DeviceOps {
 public:
  virtual ~DeviceOps() = default;
  virtual std::string driver_name(uint16_t port) = 0;   // "mlx5_pci", "net_null", ...
  virtual uint64_t tx_offload_capa(uint16_t port) = 0;  // RTE_ETH_TX_OFFLOAD_*
  virtual uint64_t rx_offload_capa(uint16_t port) = 0;  // RTE_ETH_RX_OFFLOAD_*
  /// rte_mbuf_dyn_tx_timestamp_register / rx_...: 0, or a negative errno.
  virtual int register_tx_timestamp(int* offset, uint64_t* flag) = 0;
  virtual int register_rx_timestamp(int* offset, uint64_t* flag) = 0;
  /// rte_eth_read_clock: the device clock (mlx5: ns in real-time mode, else raw ticks).
  virtual int read_clock(uint16_t port, uint64_t* clock) = 0;
  virtual std::vector<std::pair<std::string, uint64_t>> xstats(uint16_t port) = 0;
};

/// DeviceOps over DPDK.
std::unique_ptr<DeviceOps> make_device_ops();

/// What the ports will do for timing, decided before they are configured.
struct TimingPlan {
  uint64_t tx_offloads = 0;  // to add to the Tx port's rte_eth_conf
  uint64_t rx_offloads = 0;  // to add to the Rx port's rte_eth_conf
  bool hw_pacing = false;
  bool rx_hw_timestamps = false;
  int tx_ts_offset = -1;  // mbuf dynfield offsets and flags (registered)
  uint64_t tx_ts_flag = 0;
  int rx_ts_offset = -1;
  uint64_t rx_ts_flag = 0;
  /// The clock latency is measured with, named in the results: always "tsc" for now (both
  /// stamps come from the host TSC; Rx hardware stamps are counted, not used). "nic" would need
  /// the Tx stamp from the device clock too.
  std::string clock = "tsc";
};

/// Send-on-time when `hw_pacing` (Errc::not_supported, naming the tx_pp devarg, when the Tx
/// port does not offer SEND_ON_TIMESTAMP); Rx hardware timestamps whenever the Rx port offers
/// them (`receive`). Registers the dynfields it needs.
Result<TimingPlan> plan_timing(DeviceOps& ops, uint16_t tx_port, uint16_t rx_port, bool receive,
                               bool hw_pacing);

/// The port's xstats as a counter source of the NIC's checks (source "dpdk", the names the PMD
/// gives: mlx5's rx_prio<N>_buf_discard_packets, rx_phy_bytes, ...; a note when none).
nic::CounterSet xstats_counter_set(DeviceOps& ops, uint16_t port);

/// The port's xstats for the results, as "xstat.<port name>.<name>": every tx_pp_* counter
/// (mlx5 send scheduling: jitter, wander, errors) and every other counter that is not zero.
std::vector<std::pair<std::string, double>> xstats_for_results(DeviceOps& ops, uint16_t port,
                                                               const std::string& port_label);

/// Converts host TSC ticks to device clock units from two reads (TSC, device) taken at start.
struct DeviceClockMap {
  uint64_t tsc0 = 0;
  uint64_t device0 = 0;
  double device_per_tsc = 0.0;  // device clock units per TSC tick (0: no device clock)
  uint64_t to_device(uint64_t tsc) const noexcept {
    const auto delta = static_cast<double>(static_cast<int64_t>(tsc - tsc0));
    return device0 + static_cast<uint64_t>(static_cast<int64_t>(delta * device_per_tsc));
  }
};

/// Two device clock reads 10 ms apart give the ratio; Errc::not_supported when the
/// device has no readable clock.
Result<DeviceClockMap> map_device_clock(DeviceOps& ops, uint16_t port, uint64_t (*read_tsc)());

/// The DPDK driver with its device calls going through `ops` (tests: a fake).
std::unique_ptr<Driver> make_dpdk_driver_with_ops(DpdkConfig config,
                                                  std::unique_ptr<DeviceOps> ops);

}  // namespace qb::drv::dpdk
