// Reading an IB port's SL2VL/VLArb through SMPs and comparing them with the suite's [ib].
#include "qb/nic/ib_qos_state.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace qb::nic {
namespace {

constexpr uint16_t kPortInfo = 0x15;
constexpr uint16_t kSlToVl = 0x17;
constexpr uint16_t kVlArb = 0x18;

// Big-endian bit field of a MAD's data (IBA numbering: bit 0 is the MSB of byte 0).
uint32_t field(const std::array<uint8_t, 64>& data, uint32_t bit_offset, uint32_t bits) {
  uint32_t value = 0;
  for (uint32_t i = 0; i < bits; ++i) {
    const uint32_t bit = bit_offset + i;
    value = (value << 1) | ((data[bit / 8] >> (7 - bit % 8)) & 1U);
  }
  return value;
}

std::vector<policy::VlArbEntry> weighted(const std::vector<policy::VlArbEntry>& table) {
  std::vector<policy::VlArbEntry> out;
  for (const auto& e : table) {
    if (e.weight != 0) out.push_back(e);
  }
  return out;
}

std::string entries(const std::vector<policy::VlArbEntry>& table) {
  std::vector<std::string> v;
  for (const auto& e : table) v.push_back(fmt::format("{}:{}", e.vl, e.weight));
  return v.empty() ? std::string("(none weighted)") : fmt::format("\"{}\"", fmt::join(v, ","));
}

Result<std::vector<policy::VlArbEntry>> read_vlarb(SmpSource& source, uint8_t port,
                                                   uint32_t first_block, uint8_t cap) {
  std::vector<policy::VlArbEntry> out;
  for (uint32_t i = 0; i < cap; i += 32) {
    auto data = source.get(kVlArb, ((first_block + i / 32) << 16) | port);
    if (!data) return std::move(data).error();
    for (uint32_t e = 0; e < 32 && i + e < cap; ++e) {
      out.push_back({static_cast<uint8_t>((*data)[2 * e] & 0x0F), (*data)[2 * e + 1]});
    }
  }
  return out;
}

}  // namespace

Result<IbQosState> read_ib_qos(SmpSource& source, uint8_t port) {
  IbQosState state;
  auto info = source.get(kPortInfo, port);
  if (!info) return std::move(info).error();
  // PortInfo (IBA 14.2.5.6) as libibmad's field table places it: VLHighLimit at bit 304,
  // VLArbitrationHighCap 312, VLArbitrationLowCap 320 (8 bits each), OperationalVLs 344 (4).
  state.high_limit = static_cast<uint8_t>(field(*info, 304, 8));
  state.vlarb_high_cap = static_cast<uint8_t>(field(*info, 312, 8));
  state.vlarb_low_cap = static_cast<uint8_t>(field(*info, 320, 8));
  state.op_vls = static_cast<uint8_t>(field(*info, 344, 4));
  auto sl2vl = source.get(kSlToVl, 0);
  if (!sl2vl) return std::move(sl2vl).error();
  for (size_t sl = 0; sl < 16; ++sl) {
    const uint8_t byte = (*sl2vl)[sl / 2];
    state.sl2vl[sl] = static_cast<uint8_t>(sl % 2 == 0 ? byte >> 4 : byte & 0x0F);
  }
  auto low = read_vlarb(source, port, 1, state.vlarb_low_cap);
  if (!low) return std::move(low).error();
  state.vlarb_low = std::move(*low);
  auto high = read_vlarb(source, port, 3, state.vlarb_high_cap);
  if (!high) return std::move(high).error();
  state.vlarb_high = std::move(*high);
  return state;
}

std::vector<QosMismatch> compare_ib_qos(const policy::IbArbitration& suite, const IbQosState& nic) {
  std::vector<QosMismatch> out;
  const policy::IbPortQos& t = suite.tables;
  if (t.sl2vl != nic.sl2vl) {
    out.push_back({"ib.sl2vl", fmt::format("\"{}\"", fmt::join(t.sl2vl, ",")),
                   fmt::format("\"{}\"", fmt::join(nic.sl2vl, ","))});
  }
  if (weighted(t.vlarb_high) != weighted(nic.vlarb_high)) {
    out.push_back(
        {"ib.vlarb_high", entries(weighted(t.vlarb_high)), entries(weighted(nic.vlarb_high))});
  }
  if (weighted(t.vlarb_low) != weighted(nic.vlarb_low)) {
    out.push_back(
        {"ib.vlarb_low", entries(weighted(t.vlarb_low)), entries(weighted(nic.vlarb_low))});
  }
  if (t.high_limit != nic.high_limit) {
    out.push_back(
        {"ib.high_limit", fmt::format("{}", t.high_limit), fmt::format("{}", nic.high_limit)});
  }
  if (suite.op_vls != nic.op_vls) {
    out.push_back({"ib.op_vls", fmt::format("{}", suite.op_vls), fmt::format("{}", nic.op_vls)});
  }
  return out;
}

}  // namespace qb::nic
