// Finding the device and reading its port: link layer, speed, MTU, LID/GID, the device clock
// and packet pacing, with the errors a user can act on ("no RDMA device found", an unknown
// device, a port that is down, a missing GID).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "qb/common/result.hpp"
#include "verbs_config.hpp"
#include "verbs_ops.hpp"

namespace qb::drv::verbs {

struct PortInfo {
  std::string device;
  uint8_t port = 1;
  bool infiniband = false;  // else Ethernet (RoCE)
  ibv_mtu active_mtu = IBV_MTU_1024;
  double speed_bps = 0.0;  // IB: active speed x width (data rate); Ethernet: the link speed
  uint16_t lid = 0;
  ibv_gid gid{};
  int gid_index = 0;
  /// Which GID and why (gid_select.hpp): printed when the driver opens the port.
  std::string gid_note;
  uint32_t vendor_id = 0;  // 0x02c9: NVIDIA (Mellanox); Soft-RoCE's is 0xffffff
  uint32_t max_qp_wr = 0;
  int max_cqe = 0;
  bool completion_timestamps = false;  // the CQs can carry them
  bool clock_info = false;             // and mlx5dv_get_clock_info converts them
  mlx5dv_clock_info clock{};
  /// mlx5dv_get_clock_info(3): the clock info must be read again at least this often
  /// (mlx5dv_query_device's max_clock_info_update_nsec); 0 when the device did not say.
  uint64_t clock_info_update_ns = 0;
  ibv_packet_pacing_caps pacing{};
  /// "mlx5_0 port 1: Ethernet (RoCE), 100 Gbit/s, active MTU 4096"
  std::string describe() const;
};

/// The port's rate from its active speed x width pair (ibv_port_attr encodings), 0 when unknown.
/// InfiniBand: the data rate. Ethernet: the link speed the mlx5 driver encoded in the pair
/// (10 GbE is QDR x1, 40 GbE QDR x4: not the IB data rates of those pairs).
double port_speed_bps(uint8_t active_speed, uint8_t active_width, bool ethernet) noexcept;
/// The path MTU enum for a byte count (256..4096), or nullopt.
std::optional<ibv_mtu> ib_mtu_for_bytes(uint32_t bytes) noexcept;
uint32_t ib_mtu_bytes(ibv_mtu mtu) noexcept;

/// Opens `device` (empty: the first one). Errc::unavailable: "no RDMA device found" when the
/// list is empty, or the device is not there (the message lists those that are).
Result<ibv_context*> open_verbs_device(VerbsOps& ops, const std::string& device,
                                       std::string* opened_name);

/// Errc::unavailable for a port out of range or down, and for the GID (choose_gid).
Result<PortInfo> query_verbs_port(VerbsOps& ops, ibv_context* context, const std::string& device,
                                  const VerbsConfig& config);

}  // namespace qb::drv::verbs
