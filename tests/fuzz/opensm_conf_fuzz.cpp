// libFuzzer target: parse_opensm_conf() and program_port_qos() must never crash, hang or leak,
// and keep their promises: located errors; tables exactly as long as the port's capacities,
// VLs within the operational VLs (or 15 = drop in SL2VL).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.hpp"
#include "qb/policies/opensm_conf.hpp"

using qb::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto conf = qb::policy::parse_opensm_conf(text, "opensm.conf");
  if (!conf.ok()) {
    const auto& error = conf.error();
    check(error.code == qb::Errc::invalid_config && !error.message.empty());
    check(error.loc.file == "opensm.conf" && error.loc.line >= 1);
    return 0;
  }
  // Port caps from the first bytes, so the fuzzer also explores capacities and op VLs.
  const uint8_t op_vls = static_cast<uint8_t>(1 + (size > 0 ? data[0] % 5 : 3));
  const uint8_t high_cap = static_cast<uint8_t>(size > 1 ? data[1] % 65 : 8);
  const uint8_t low_cap = static_cast<uint8_t>(size > 2 ? data[2] % 65 : 8);
  const qb::policy::IbPortCaps caps{op_vls, high_cap, low_cap};
  check(qb::policy::validate_port_caps(caps).ok());
  const uint8_t max_vl = qb::policy::max_data_vl(op_vls);
  for (auto type : {qb::policy::IbPortType::ca, qb::policy::IbPortType::swe,
                    qb::policy::IbPortType::sw0, qb::policy::IbPortType::rtr}) {
    const auto qos = qb::policy::program_port_qos(*conf, type, caps);
    check(qos.vlarb_high.size() == high_cap && qos.vlarb_low.size() == low_cap);
    for (const auto vl : qos.sl2vl) check(vl <= max_vl || vl == 15);
    for (const auto& entry : qos.vlarb_high) check(entry.vl <= max_vl);
    for (const auto& entry : qos.vlarb_low) check(entry.vl <= max_vl);
    check(qos.max_vls >= 1 && qos.max_vls <= 15);
  }
  for (const auto& warning : conf->warnings) check(!warning.message.empty());
  return 0;
}
