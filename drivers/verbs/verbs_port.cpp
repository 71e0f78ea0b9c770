#include "verbs_port.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "gid_select.hpp"

namespace qb::drv::verbs {

double port_speed_bps(uint8_t active_speed, uint8_t active_width, bool ethernet) noexcept {
  // InfiniBand: the per-lane data rate of each speed (SDR..QDR use 8b/10b: 2, 4, 8 Gbit/s of
  // data per lane; FDR10 and up 64b/66b).
  //
  // Ethernet (RoCE): the speed and width are not the link's. The mlx5 kernel driver reads the
  // port's Ethernet protocol (PTYS) and reports it as an IB speed x width pair
  // (drivers/infiniband/hw/mlx5/main.c, translate_eth_legacy_proto_oper /
  // translate_eth_ext_proto_oper): 1 GbE is SDR x1, 5 GbE DDR x1, 10 GbE QDR x1, 40 GbE QDR x4,
  // 56 GbE FDR x4, 25 GbE EDR x1, 50 GbE EDR x2 or HDR x1, 100 GbE EDR x4, HDR x2 or NDR x1,
  // 200 GbE HDR x4 or NDR x2, 400 GbE HDR x8 or NDR x4, 800 GbE NDR x8. So on Ethernet a lane of
  // each speed carries 1, 5, 10, 10, 14, 25, 50, 100 Gbit/s (FDR10 is not used by mlx5 on
  // Ethernet; the generic ib_get_eth_speed of the kernel's core maps 10 GbE to it, at 10).
  // rdma-core 44 has no ibv_port_attr.active_speed_ex (XDR, 200 Gbit/s per lane, needs it): an
  // XDR port reads as unknown (0) here.
  struct Lane {
    uint8_t speed;
    double ib_gbps;
    double ethernet_gbps;
  };
  static constexpr Lane kLanes[] = {
      {1, 2.0, 1.0},       // SDR
      {2, 4.0, 5.0},       // DDR
      {4, 8.0, 10.0},      // QDR
      {8, 10.0, 10.0},     // FDR10
      {16, 13.64, 14.0},   // FDR
      {32, 25.0, 25.0},    // EDR
      {64, 50.0, 50.0},    // HDR
      {128, 100.0, 100.0}  // NDR
  };
  struct Width {
    uint8_t width;
    uint32_t lanes;
  };
  static constexpr Width kWidths[] = {{1, 1}, {16, 2}, {2, 4}, {4, 8}, {8, 12}};  // 1x..12x
  double lane_gbps = 0.0;
  for (const Lane& lane : kLanes) {
    if (lane.speed == active_speed) lane_gbps = ethernet ? lane.ethernet_gbps : lane.ib_gbps;
  }
  uint32_t lanes = 0;
  for (const Width& w : kWidths) {
    if (w.width == active_width) lanes = w.lanes;
  }
  return lane_gbps * 1e9 * lanes;
}

std::optional<ibv_mtu> ib_mtu_for_bytes(uint32_t bytes) noexcept {
  switch (bytes) {
    case 256:
      return IBV_MTU_256;
    case 512:
      return IBV_MTU_512;
    case 1024:
      return IBV_MTU_1024;
    case 2048:
      return IBV_MTU_2048;
    case 4096:
      return IBV_MTU_4096;
    default:
      return std::nullopt;
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
    return make_error(
        Errc::unavailable,
        fmt::format("verbs: no RDMA device '{}' (this host has: {})", name, fmt::join(names, ", ")),
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
                                  device, config.port, ibv_port_state_str(port_attr.state)),
                      "driver.verbs.port");
  }
  info.infiniband = port_attr.link_layer != IBV_LINK_LAYER_ETHERNET;
  info.active_mtu = port_attr.active_mtu;
  info.speed_bps = port_speed_bps(port_attr.active_speed, port_attr.active_width, !info.infiniband);
  info.lid = port_attr.lid;
  // RoCE: the QPs' GRH uses this GID, and the driver's traffic is RoCE v2 (UDP/IP, DSCP in the
  // traffic class). IB: the port GID, for a GRH.
  auto gid = choose_gid(ops, context, device, config.port, port_attr.gid_tbl_len, info.infiniband,
                        config.gid_index);
  if (!gid) return std::move(gid).error();
  info.gid_index = static_cast<int>(gid->index);
  info.gid = gid->gid;
  info.gid_note = std::move(gid->note);
  info.vendor_id = device_attr.orig_attr.vendor_id;
  info.max_qp_wr = static_cast<uint32_t>(device_attr.orig_attr.max_qp_wr);
  info.max_cqe = device_attr.orig_attr.max_cqe;
  info.pacing = device_attr.packet_pacing_caps;
  info.completion_timestamps = device_attr.completion_timestamp_mask != 0;
  if (info.completion_timestamps) {
    info.clock_info = ops.get_clock_info(context, &info.clock) == 0;
  }
  if (info.clock_info) {
    mlx5dv_context mlx5{};
    mlx5.comp_mask = MLX5DV_CONTEXT_MASK_CLOCK_INFO_UPDATE;
    if (ops.query_mlx5_device(context, &mlx5) == 0 &&
        (mlx5.comp_mask & MLX5DV_CONTEXT_MASK_CLOCK_INFO_UPDATE) != 0) {
      info.clock_info_update_ns = mlx5.max_clock_info_update_nsec;
    }
  }
  return info;
}

}  // namespace qb::drv::verbs
