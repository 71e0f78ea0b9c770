// The fake ConnectX's device (see fake_mlx5.hpp for what the fake enforces and its model
// choices): opening and closing it, and its queries (device, port, GIDs, clocks).
#include "fake_mlx5.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "fake_mlx5_state.hpp"

namespace qb::drv::verbs {

using namespace fake;  // the fake's records (fake_mlx5_state.hpp)

namespace {

// ibv_port_attr speed and width encodings (ibv_query_port(3)). InfiniBand: every pair, at its
// per-lane data rate. Ethernet: the pairs the mlx5 kernel driver reports for each Ethernet
// protocol (drivers/infiniband/hw/mlx5/main.c, translate_eth_legacy_proto_oper and
// translate_eth_ext_proto_oper), with the link speed each stands for.
struct SpeedCode {
  uint8_t code;
  double lane_gbps;
};
constexpr std::array<SpeedCode, 8> kIbSpeeds{
    {{1, 2.0}, {2, 4.0}, {4, 8.0}, {8, 10.0}, {16, 13.64}, {32, 25.0}, {64, 50.0}, {128, 100.0}}};
struct WidthCode {
  uint8_t code;
  uint32_t lanes;
};
constexpr std::array<WidthCode, 5> kWidths{{{1, 1}, {16, 2}, {2, 4}, {4, 8}, {8, 12}}};
// ibv_query_port(3)'s codes (rdma-core 44's verbs.h names none of them).
constexpr uint8_t kSdr = 1, kDdr = 2, kQdr = 4, kFdr = 16, kEdr = 32, kHdr = 64, kNdr = 128;
constexpr uint8_t k1x = 1, k2x = 16, k4x = 2, k8x = 4;
struct EthernetEncoding {
  double gbps;
  uint8_t speed;
  uint8_t width;
};
constexpr std::array<EthernetEncoding, 16> kEthernetEncodings{{
    {1, kSdr, k1x},
    {5, kDdr, k1x},
    {10, kQdr, k1x},
    {25, kEdr, k1x},
    {40, kQdr, k4x},
    {50, kHdr, k1x},
    {50, kEdr, k2x},
    {56, kFdr, k4x},
    {100, kEdr, k4x},
    {100, kHdr, k2x},
    {100, kNdr, k1x},
    {200, kHdr, k4x},
    {200, kNdr, k2x},
    {400, kNdr, k4x},
    {400, kHdr, k8x},
    {800, kNdr, k8x},
}};

}  // namespace

FakeMlx5::FakeMlx5(FakeDeviceConfig config) : state_(std::make_unique<State>(std::move(config))) {}
FakeMlx5::~FakeMlx5() = default;

std::vector<std::string> FakeMlx5::device_names() {
  return {state_->config.name};
}

ibv_context* FakeMlx5::open_device(std::string_view name) {
  State& s = *state_;
  if (s.begin(fmt::format("open_device({})", name))) {
    errno = s.fail_error;
    return nullptr;
  }
  if (name != s.config.name) return s.refuse_null<ibv_context>(ENODEV, "no such device");
  Record* record = s.make_record(s.context_records, "context");
  s.contexts.push_back(std::make_unique<ContextHandle>());
  s.contexts.back()->record = record;
  s.result(record->label());
  return &s.contexts.back()->raw;
}

int FakeMlx5::close_device(ibv_context* context) {
  State& s = *state_;
  Record* record = State::record_of(context);
  if (s.begin(fmt::format("close_device({})", label_of(record)))) return s.fail_error;
  if (!s.check_alive(record, "context")) return s.refuse(EINVAL, "not a live context");
  uint32_t left = 0;
  auto count_left = [&](const auto& records) {
    for (const auto& r : records) left += r->alive && r->context == record ? 1 : 0;
  };
  count_left(s.pd_records);
  count_left(s.mr_records);
  count_left(s.cq_records);
  count_left(s.qp_records);
  count_left(s.element_records);
  if (left != 0) {
    s.violations.push_back(fmt::format("{} closed with {} objects still allocated ({})",
                                       record->label(), left, live().describe()));
  }
  record->alive = false;
  // A simulated port lives as long as the context: the next open builds a new one.
  s.model_built = false;
  s.sim_qps.clear();
  return 0;
}

int FakeMlx5::query_device(ibv_context* context, ibv_device_attr_ex* attr) {
  State& s = *state_;
  if (s.begin("query_device()")) return s.fail_error;
  if (!s.check_alive(State::record_of(context), "context")) return s.refuse(EINVAL, "context");
  *attr = {};
  ibv_device_attr& a = attr->orig_attr;
  fmt::format_to_n(a.fw_ver, sizeof(a.fw_ver) - 1, "22.39.1002 (fake)");
  a.vendor_id = 0x02c9;     // Mellanox
  a.vendor_part_id = 4125;  // ConnectX-6 Dx
  a.max_qp = 1 << 17;
  a.max_qp_wr = kMaxQpWr;
  a.max_sge = 30;
  a.max_cq = 1 << 24;
  a.max_cqe = kMaxCqe;
  a.max_mr = 1 << 24;
  a.max_pd = 1 << 24;
  a.max_qp_rd_atom = 16;
  a.max_qp_init_rd_atom = 16;
  a.phys_port_cnt = 1;
  if (s.config.completion_timestamps) {
    attr->completion_timestamp_mask = s.config.clock_mask;
    attr->hca_core_clock = 1'000'000;  // kHz: one tick per ns
  }
  attr->packet_pacing_caps.qp_rate_limit_min = s.config.rate_limit_min_kbps;
  attr->packet_pacing_caps.qp_rate_limit_max = s.config.rate_limit_max_kbps;
  attr->packet_pacing_caps.supported_qpts = s.config.rate_limit_rc ? 1U << IBV_QPT_RC : 0;
  return 0;
}

int FakeMlx5::query_port(ibv_context* context, uint8_t port, ibv_port_attr* attr) {
  State& s = *state_;
  if (s.begin(fmt::format("query_port({})", port))) return s.fail_error;
  if (!s.check_alive(State::record_of(context), "context")) return s.refuse(EINVAL, "context");
  if (port != 1) return s.refuse(EINVAL, "the device has port 1 only");
  const FakePortConfig& p = s.config.port;
  *attr = {};
  attr->state = p.state;
  attr->max_mtu = IBV_MTU_4096;
  attr->active_mtu = p.active_mtu;
  attr->link_layer = p.link_layer;
  attr->lid = p.link_layer == IBV_LINK_LAYER_INFINIBAND ? p.lid : 0;
  attr->gid_tbl_len = p.gid_table_len;
  attr->pkey_tbl_len = 128;
  // The speed x width nearest the configured rate, as the link layer encodes it.
  double best = -1.0;
  if (p.link_layer == IBV_LINK_LAYER_ETHERNET) {
    for (const EthernetEncoding& e : kEthernetEncodings) {
      const double bps = e.gbps * 1e9;
      if (best < 0.0 || std::abs(bps - p.rate_bps) < std::abs(best - p.rate_bps)) {
        best = bps;
        attr->active_speed = e.speed;
        attr->active_width = e.width;
      }
    }
    return 0;
  }
  for (const SpeedCode& speed : kIbSpeeds) {
    for (const WidthCode& width : kWidths) {
      const double bps = speed.lane_gbps * 1e9 * width.lanes;
      if (best < 0.0 || std::abs(bps - p.rate_bps) < std::abs(best - p.rate_bps)) {
        best = bps;
        attr->active_speed = speed.code;
        attr->active_width = width.code;
      }
    }
  }
  return 0;
}

int FakeMlx5::query_gid(ibv_context* context, uint8_t port, int index, ibv_gid* gid) {
  State& s = *state_;
  if (s.begin(fmt::format("query_gid({}, {})", port, index))) return s.fail_error;
  if (!s.check_alive(State::record_of(context), "context")) return s.refuse(EINVAL, "context");
  if (port != 1 || index < 0 || index >= s.config.port.gid_table_len) {
    return s.refuse(EINVAL, "no such GID index");
  }
  // ibv_query_gid gives an empty entry as zeros.
  const auto i = static_cast<size_t>(index);
  *gid = i < s.config.port.gids.size() ? s.config.port.gids[i].gid : ibv_gid{};
  return 0;
}

int FakeMlx5::query_gid_ex(ibv_context* context, uint32_t port, uint32_t index,
                           ibv_gid_entry* entry) {
  State& s = *state_;
  if (s.begin(fmt::format("query_gid_ex({}, {})", port, index))) return s.fail_error;
  if (!s.check_alive(State::record_of(context), "context")) return s.refuse(EINVAL, "context");
  const FakePortConfig& p = s.config.port;
  if (port != 1 || index >= static_cast<uint32_t>(p.gid_table_len)) {
    return s.refuse(EINVAL, "no such GID index");
  }
  const ibv_gid zero{};
  if (index >= p.gids.size() || std::memcmp(&p.gids[index].gid, &zero, sizeof(zero)) == 0) {
    return s.refuse(ENODATA, "empty GID entry");
  }
  *entry = {};
  entry->gid = p.gids[index].gid;
  entry->gid_index = index;
  entry->port_num = port;
  entry->gid_type = p.gids[index].type;
  entry->ndev_ifindex = 0;  // not this machine's interfaces: no netdev named
  return 0;
}

int FakeMlx5::get_clock_info(ibv_context* context, mlx5dv_clock_info* info) {
  State& s = *state_;
  const std::lock_guard<std::mutex> lock(s.clock_info_mutex);
  if (s.begin("get_clock_info()")) return s.fail_error;
  if (!s.check_alive(State::record_of(context), "context")) return s.refuse(EINVAL, "context");
  if (!s.config.completion_timestamps) return s.refuse(EOPNOTSUPP, "no device clock");
  // One tick per ns; the ns and the ticks now (the clock info changes with every read).
  const auto now_ns = static_cast<uint64_t>(s.clock_now_ns());
  *info = {};
  info->nsec = now_ns;
  info->last_cycles = now_ns & s.config.clock_mask;
  info->mult = 1;
  info->shift = 0;
  info->mask = s.config.clock_mask;
  return 0;
}

int FakeMlx5::query_mlx5_device(ibv_context* context, mlx5dv_context* attr) {
  State& s = *state_;
  if (s.begin("query_mlx5_device()")) return s.fail_error;
  if (!s.check_alive(State::record_of(context), "context")) return s.refuse(EINVAL, "context");
  const uint64_t requested = attr->comp_mask;
  *attr = {};
  attr->version = 0;
  // The fields asked for that the fake has (the others' bits cleared, as libmlx5 does).
  attr->comp_mask = requested & MLX5DV_CONTEXT_MASK_CLOCK_INFO_UPDATE;
  if (s.config.completion_timestamps) {
    attr->max_clock_info_update_nsec = s.config.max_clock_info_update_ns != 0
                                           ? s.config.max_clock_info_update_ns
                                           : (s.config.clock_mask >> 2) + 1;
  } else {
    attr->comp_mask = 0;
  }
  return 0;
}

int FakeMlx5::read_device_clock(ibv_context* context, uint64_t* ticks) {
  State& s = *state_;
  if (s.begin("read_device_clock()")) return s.fail_error;
  if (!s.check_alive(State::record_of(context), "context")) return s.refuse(EINVAL, "context");
  if (!s.config.completion_timestamps) return s.refuse(EOPNOTSUPP, "no device clock");
  *ticks = static_cast<uint64_t>(s.device_now_ns()) & s.config.clock_mask;
  return 0;
}

LockedMemoryLimit FakeMlx5::locked_memory_limit() {
  return state_->config.locked_memory;
}

ibv_gid gid_from_text(const char* text) {
  ibv_gid gid{};
  if (inet_pton(AF_INET6, text, gid.raw) != 1) {
    throw std::invalid_argument(fmt::format("not a GID: '{}'", text));
  }
  return gid;
}

std::vector<FakeGid> connectx_roce_gids() {
  const ibv_gid link_local = gid_from_text("fe80::ac0:ebff:fe3d:ca54");
  const ibv_gid ipv4 = gid_from_text("::ffff:192.168.1.10");
  return {{link_local, IBV_GID_TYPE_ROCE_V1},
          {link_local, IBV_GID_TYPE_ROCE_V2},
          {ipv4, IBV_GID_TYPE_ROCE_V1},
          {ipv4, IBV_GID_TYPE_ROCE_V2}};
}

std::vector<FakeGid> infiniband_gids() {
  return {{gid_from_text("fe80::248a:703:b1:bc04"), IBV_GID_TYPE_IB}};
}

FakeDeviceConfig fake_device_for_port(double rate_bps, const policy::WireModel& wire,
                                      int64_t propagation_delay_ns) {
  FakeDeviceConfig config;
  config.port.rate_bps = rate_bps;
  config.port.link_layer =
      wire.transport == policy::Transport::ib ? IBV_LINK_LAYER_INFINIBAND : IBV_LINK_LAYER_ETHERNET;
  if (wire.transport == policy::Transport::ib) config.port.gids = infiniband_gids();
  config.port.vlan = wire.vlan;
  config.port.ipv6 = wire.ipv6;
  config.port.ib_grh = wire.ib_grh;
  config.port.propagation_delay_ns = propagation_delay_ns;
  return config;
}

}  // namespace qb::drv::verbs
