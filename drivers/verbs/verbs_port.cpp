#include "verbs_port.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

namespace qb::drv::verbs {

double port_speed_bps(uint8_t active_speed, uint8_t active_width) noexcept {
  // Per-lane data rates (SDR..QDR use 8b/10b: 2, 4, 8 Gbit/s of data per lane).
  double lane_gbps = 0.0;
  switch (active_speed) {
    case 1: lane_gbps = 2.0; break;       // SDR
    case 2: lane_gbps = 4.0; break;       // DDR
    case 4: lane_gbps = 8.0; break;       // QDR
    case 8: lane_gbps = 10.0; break;      // FDR10
    case 16: lane_gbps = 13.64; break;    // FDR
    case 32: lane_gbps = 25.0; break;     // EDR (and 25/100 GbE)
    case 64: lane_gbps = 50.0; break;     // HDR (and 50/200 GbE)
    case 128: lane_gbps = 100.0; break;   // NDR
    default: return 0.0;
  }
  uint32_t lanes = 0;
  switch (active_width) {
    case 1: lanes = 1; break;
    case 16: lanes = 2; break;
    case 2: lanes = 4; break;
    case 4: lanes = 8; break;
    case 8: lanes = 12; break;
    default: return 0.0;
  }
  return lane_gbps * 1e9 * lanes;
}

std::optional<ibv_mtu> ib_mtu_for_bytes(uint32_t bytes) noexcept {
  switch (bytes) {
    case 256: return IBV_MTU_256;
    case 512: return IBV_MTU_512;
    case 1024: return IBV_MTU_1024;
    case 2048: return IBV_MTU_2048;
    case 4096: return IBV_MTU_4096;
    default: return std::nullopt;
  }
}

uint32_t ib_mtu_bytes(ibv_mtu mtu) noexcept {
  return 128U << static_cast<uint32_t>(mtu);
}

std::string PortInfo::describe() const {
  return fmt::format("{} port {}: {}, {:g} Gbit/s, active MTU {}", device, port,
                     infiniband ? "InfiniBand" : "Ethernet (RoCE)", speed_bps / 1e9,
                     ib_mtu_bytes(active_mtu));
}

Result<ibv_context*> open_verbs_device(VerbsOps& ops, const std::string& device,
                                       std::string* opened_name) {
  const std::vector<std::string> names = ops.device_names();
  if (names.empty()) {
    return make_error(Errc::unavailable,
                      "verbs: no RDMA device found (ibv_get_device_list returned none): load the "
                      "mlx5_ib module, or check `ibv_devices` (rdma-core's ibverbs-utils)");
  }
  std::string name = device.empty() ? names.front() : device;
  bool known = false;
  for (const auto& n : names) known = known || n == name;
  if (!known) {
    return make_error(Errc::unavailable,
                      fmt::format("verbs: no RDMA device '{}' (this host has: {})", name,
                                  fmt::join(names, ", ")),
                      "driver.verbs.device");
  }
  errno = 0;
  ibv_context* context = ops.open_device(name);
  if (context == nullptr) {
    const int error = errno != 0 ? errno : EIO;
    return make_error(Errc::unavailable,
                      fmt::format("verbs: cannot open {}: {} (errno {}); check the permissions "
                                  "of /dev/infiniband/uverbs*",
                                  name, std::strerror(error), error),
                      "driver.verbs.device");
  }
  *opened_name = name;
  return context;
}

Result<PortInfo> query_verbs_port(VerbsOps& ops, ibv_context* context, const std::string& device,
                                  const VerbsConfig& config) {
  PortInfo info;
  info.device = device;
  info.port = config.port;
  ibv_device_attr_ex device_attr{};
  if (int rc = ops.query_device(context, &device_attr); rc != 0) {
    return make_error(Errc::runtime, fmt::format("verbs: ibv_query_device_ex on {} failed: {}",
                                                 device, std::strerror(rc)));
  }
  if (config.port > device_attr.orig_attr.phys_port_cnt) {
    return make_error(Errc::unavailable,
                      fmt::format("verbs: {} has {} port(s); port {} does not exist", device,
                                  device_attr.orig_attr.phys_port_cnt, config.port),
                      "driver.verbs.port");
  }
  ibv_port_attr port_attr{};
  if (int rc = ops.query_port(context, config.port, &port_attr); rc != 0) {
    return make_error(Errc::unavailable,
                      fmt::format("verbs: {} port {}: ibv_query_port failed: {}", device,
                                  config.port, std::strerror(rc)),
                      "driver.verbs.port");
  }
  if (port_attr.state != IBV_PORT_ACTIVE) {
    return make_error(Errc::unavailable,
                      fmt::format("verbs: {} port {} is {} (not ACTIVE): check the cable and "
                                  "`ibstat`; on InfiniBand a subnet manager must be running",
                                  device, config.port,
                                  ibv_port_state_str(port_attr.state)),
                      "driver.verbs.port");
  }
  info.infiniband = port_attr.link_layer != IBV_LINK_LAYER_ETHERNET;
  info.active_mtu = port_attr.active_mtu;
  info.speed_bps = port_speed_bps(port_attr.active_speed, port_attr.active_width);
  info.lid = port_attr.lid;
  info.gid_index = config.gid_index;
  if (!info.infiniband || config.gid_index != 0) {
    if (config.gid_index >= port_attr.gid_tbl_len ||
        ops.query_gid(context, config.port, config.gid_index, &info.gid) != 0) {
      return make_error(Errc::unavailable,
                        fmt::format("verbs: {} port {} has no GID at index {} (the table has {}): "
                                    "pick a RoCE v2 GID with `show_gids` and set gid_index",
                                    device, config.port, config.gid_index, port_attr.gid_tbl_len),
                        "driver.verbs.gid_index");
    }
  }
  info.max_qp_wr = static_cast<uint32_t>(device_attr.orig_attr.max_qp_wr);
  info.max_cqe = device_attr.orig_attr.max_cqe;
  info.pacing = device_attr.packet_pacing_caps;
  info.completion_timestamps = device_attr.completion_timestamp_mask != 0;
  if (info.completion_timestamps) {
    info.clock_info = ops.get_clock_info(context, &info.clock) == 0;
  }
  return info;
}

}  // namespace qb::drv::verbs
