// [eth] against the NIC: differences, the commands that fix them, the program that applies them.
#include "qb/nic/eth_qos_check.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>

namespace qb::nic {
namespace {

uint8_t ieee_tsa(policy::TcSelect tsa) {
  switch (tsa) {
    case policy::TcSelect::strict:
      return IEEE_8021QAZ_TSA_STRICT;
    case policy::TcSelect::ets:
      return IEEE_8021QAZ_TSA_ETS;
    case policy::TcSelect::vendor:
      break;
  }
  return IEEE_8021QAZ_TSA_VENDOR;
}

const char* trust_name(policy::EthTrust trust) {
  return trust == policy::EthTrust::dscp ? "dscp" : "pcp";
}

template <typename T>
std::string list8(const T& values) {
  std::vector<uint64_t> v(std::begin(values), std::begin(values) + 8);
  return fmt::format("[{}]", fmt::join(v, ", "));
}

std::string tsa_list(std::span<const uint8_t> tsa) {
  std::vector<std::string> names;
  for (size_t i = 0; i < 8; ++i) names.push_back(fmt::format("\"{}\"", tsa_name(tsa[i])));
  return fmt::format("[{}]", fmt::join(names, ", "));
}

std::string rate_text(double bps) {
  if (bps <= 0.0) return "0";
  if (bps >= 1e9) return fmt::format("\"{:g}Gbps\"", bps / 1e9);
  return fmt::format("\"{:g}Mbps\"", bps / 1e6);
}

std::string rates_list(const std::array<double, 8>& bps) {
  std::vector<std::string> v;
  for (double r : bps) v.push_back(rate_text(r));
  return fmt::format("[{}]", fmt::join(v, ", "));
}

// The NIC's caps as the hardware stores them (the suite's are rounded the same way at load).
std::array<double, 8> nic_caps_bps(const EthQosState& nic) {
  std::array<double, 8> out{};
  if (!nic.maxrate) return out;
  for (size_t tc = 0; tc < 8; ++tc)
    out[tc] = policy::hw_tc_max_rate_bps(nic.maxrate->tc_maxrate[tc]);
  return out;
}

std::string pfc_list(uint8_t mask) {
  std::vector<unsigned> prios;
  for (unsigned p = 0; p < 8; ++p) {
    if ((mask >> p) & 1U) prios.push_back(p);
  }
  return fmt::format("[{}]", fmt::join(prios, ", "));
}

std::vector<uint8_t> unique_dscps(std::span<const uint8_t> dscps) {
  std::vector<uint8_t> out(dscps.begin(), dscps.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool same_app(const dcb_app& a, const dcb_app& b) {
  return a.selector == b.selector && a.protocol == b.protocol && a.priority == b.priority;
}

std::vector<dcb_app> dscp_apps(const EthQosState& s) {
  std::vector<dcb_app> out;
  for (const dcb_app& app : s.apps) {
    if (app.selector == IEEE_8021QAZ_APP_SEL_DSCP) out.push_back(app);
  }
  return out;
}

}  // namespace

std::vector<QosMismatch> compare_eth_qos(const policy::EthPortQos& suite,
                                         std::span<const uint8_t> flow_dscps,
                                         const EthQosState& nic) {
  std::vector<QosMismatch> out;
  if (suite.trust != nic.trust()) {
    out.push_back({"eth.trust", fmt::format("\"{}\"", trust_name(suite.trust)),
                   fmt::format("\"{}\" (from {})", trust_name(nic.trust()), nic.trust_source())});
  }
  if (suite.trust == policy::EthTrust::dscp) {
    for (const uint8_t dscp : unique_dscps(flow_dscps)) {
      if (dscp >= 64) continue;
      const auto prio = nic.dscp_priority(dscp);
      if (prio && *prio == suite.dscp2prio[dscp]) continue;
      out.push_back({fmt::format("eth.dscp2prio.\"{}\"", dscp),
                     fmt::format("{}", suite.dscp2prio[dscp]),
                     prio ? fmt::format("{}", *prio)
                          : std::string("no DCB APP entry for this DSCP (its priority is "
                                        "not readable: not what the suite says)")});
    }
  }
  if (!nic.ets) {
    out.push_back(
        {"eth.prio_tc", list8(suite.prio_tc), "no IEEE ETS object (the driver answered none)"});
  } else {
    const ieee_ets& ets = *nic.ets;
    if (!std::equal(suite.prio_tc.begin(), suite.prio_tc.end(), ets.prio_tc)) {
      out.push_back({"eth.prio_tc", list8(suite.prio_tc), list8(ets.prio_tc)});
    }
    std::array<uint8_t, 8> want_tsa{};
    for (size_t tc = 0; tc < 8; ++tc) want_tsa[tc] = ieee_tsa(suite.tsa[tc]);
    if (!std::equal(want_tsa.begin(), want_tsa.end(), ets.tc_tsa)) {
      out.push_back({"eth.tsa", tsa_list(want_tsa), tsa_list(std::span(ets.tc_tsa, 8))});
    }
    bool bw_differs = false;
    for (size_t tc = 0; tc < 8; ++tc) {
      if (suite.tsa[tc] == policy::TcSelect::ets && ets.tc_tx_bw[tc] != suite.ets_percent[tc]) {
        bw_differs = true;
      }
    }
    if (bw_differs) out.push_back({"eth.ets", list8(suite.ets_percent), list8(ets.tc_tx_bw)});
  }
  const auto caps = nic_caps_bps(nic);
  if (caps != suite.tc_max_rate_bps) {
    out.push_back({"eth.tc_max_rate", rates_list(suite.tc_max_rate_bps),
                   nic.maxrate ? rates_list(caps) : "no per-TC max rates (the driver has none)"});
  }
  if (suite.pfc_given && suite.pfc_enabled != nic.pfc_enabled()) {
    out.push_back({"eth.pfc", pfc_list(suite.pfc_enabled),
                   nic.pfc ? pfc_list(nic.pfc_enabled()) : "no PFC object (the driver has none)"});
  }
  return out;
}

std::vector<std::string> dcb_commands_for(const policy::EthPortQos& suite,
                                          std::span<const uint8_t> flow_dscps,
                                          const EthQosState& nic) {
  std::vector<std::string> out;
  const std::string& dev = nic.ifname;
  if (suite.trust == policy::EthTrust::dscp) {
    std::vector<std::string> maps;
    for (const uint8_t dscp : unique_dscps(flow_dscps)) {
      if (dscp < 64) maps.push_back(fmt::format("{}:{}", dscp, suite.dscp2prio[dscp]));
    }
    if (!maps.empty()) {
      out.push_back(fmt::format("dcb app replace dev {} dscp-prio {}", dev, fmt::join(maps, " ")));
    }
  } else if (nic.trust() == policy::EthTrust::dscp) {
    std::vector<std::string> maps;
    for (const dcb_app& app : dscp_apps(nic)) {
      maps.push_back(fmt::format("{}:{}", app.protocol, app.priority));
    }
    out.push_back(fmt::format("dcb app del dev {} dscp-prio {}", dev, fmt::join(maps, " ")));
  }
  std::vector<std::string> prio_tc, tsa, bw;
  for (size_t i = 0; i < 8; ++i) {
    prio_tc.push_back(fmt::format("{}:{}", i, suite.prio_tc[i]));
    tsa.push_back(fmt::format("{}:{}", i, tsa_name(ieee_tsa(suite.tsa[i]))));
    bw.push_back(fmt::format("{}:{}", i, suite.ets_percent[i]));
  }
  out.push_back(fmt::format("dcb ets set dev {} prio-tc {} tc-tsa {} tc-bw {}", dev,
                            fmt::join(prio_tc, " "), fmt::join(tsa, " "), fmt::join(bw, " ")));
  std::vector<std::string> rates;
  for (size_t tc = 0; tc < 8; ++tc) {
    rates.push_back(
        fmt::format("{}:{}kbit", tc, static_cast<uint64_t>(suite.tc_max_rate_bps[tc] / 1000.0)));
  }
  out.push_back(fmt::format("dcb maxrate set dev {} tc-maxrate {}", dev, fmt::join(rates, " ")));
  if (suite.pfc_given) {
    std::vector<std::string> pfc;
    for (unsigned p = 0; p < 8; ++p) {
      pfc.push_back(fmt::format("{}:{}", p, ((suite.pfc_enabled >> p) & 1U) ? "on" : "off"));
    }
    out.push_back(fmt::format("dcb pfc set dev {} prio-pfc {}", dev, fmt::join(pfc, " ")));
  }
  return out;
}

EthQosProgram program_for(const policy::EthPortQos& suite, const EthQosState& nic) {
  EthQosProgram program;
  ieee_ets ets{};
  if (nic.ets) ets = *nic.ets;
  for (size_t tc = 0; tc < 8; ++tc) {
    ets.prio_tc[tc] = suite.prio_tc[tc];
    ets.tc_tsa[tc] = ieee_tsa(suite.tsa[tc]);
    // The kernel refuses a bandwidth on a TC that is not ETS (en_dcbnl.c).
    ets.tc_tx_bw[tc] = suite.tsa[tc] == policy::TcSelect::ets ? suite.ets_percent[tc] : 0;
  }
  program.set.ets = ets;
  ieee_maxrate maxrate{};
  for (size_t tc = 0; tc < 8; ++tc) {
    maxrate.tc_maxrate[tc] = static_cast<uint64_t>(suite.tc_max_rate_bps[tc] / 1000.0);
  }
  program.set.maxrate = maxrate;
  if (suite.pfc_given) {
    ieee_pfc pfc{};
    if (nic.pfc) pfc = *nic.pfc;
    pfc.pfc_en = suite.pfc_enabled;
    program.set.pfc = pfc;
  }
  if (suite.trust == policy::EthTrust::dscp) {
    // Every DSCP's priority: the first DSCP entry turns mlx5 to DSCP trust, and a DSCP the
    // suite does not mark still gets the suite's priority (mlx5 replaces an entry in place).
    for (uint16_t dscp = 0; dscp < 64; ++dscp) {
      const auto now = nic.dscp_priority(static_cast<uint8_t>(dscp));
      if (now && *now == suite.dscp2prio[dscp]) continue;
      program.set.apps.push_back(dcb_app{IEEE_8021QAZ_APP_SEL_DSCP, suite.dscp2prio[dscp], dscp});
    }
  } else {
    program.del_apps = dscp_apps(nic);  // the last one deleted turns mlx5 back to PCP trust
  }
  return program;
}

EthQosProgram restore_program(const EthQosState& before, const EthQosState& now) {
  EthQosProgram program;
  program.set.ets = before.ets;
  program.set.maxrate = before.maxrate;
  program.set.pfc = before.pfc;
  const auto had = dscp_apps(before);
  for (const dcb_app& app : dscp_apps(now)) {
    if (std::none_of(had.begin(), had.end(), [&](const dcb_app& a) { return same_app(a, app); })) {
      program.del_apps.push_back(app);
    }
  }
  const auto has = dscp_apps(now);
  for (const dcb_app& app : had) {
    if (std::none_of(has.begin(), has.end(), [&](const dcb_app& a) { return same_app(a, app); })) {
      program.set.apps.push_back(app);
    }
  }
  return program;
}

std::vector<std::string> state_differences(const EthQosState& want, const EthQosState& got) {
  std::vector<std::string> out;
  if (want.ets && got.ets) {
    const ieee_ets& a = *want.ets;
    const ieee_ets& b = *got.ets;
    if (!std::equal(a.prio_tc, a.prio_tc + 8, b.prio_tc)) {
      out.push_back(fmt::format("prio_tc {} instead of {}", list8(b.prio_tc), list8(a.prio_tc)));
    }
    if (!std::equal(a.tc_tsa, a.tc_tsa + 8, b.tc_tsa)) {
      out.push_back(fmt::format("tsa {} instead of {}", tsa_list(std::span(b.tc_tsa, 8)),
                                tsa_list(std::span(a.tc_tsa, 8))));
    }
    if (!std::equal(a.tc_tx_bw, a.tc_tx_bw + 8, b.tc_tx_bw)) {
      out.push_back(fmt::format("tc-bw {} instead of {}", list8(b.tc_tx_bw), list8(a.tc_tx_bw)));
    }
  }
  if (want.maxrate && got.maxrate &&
      std::memcmp(want.maxrate->tc_maxrate, got.maxrate->tc_maxrate,
                  sizeof want.maxrate->tc_maxrate) != 0) {
    out.push_back(fmt::format("tc-maxrate (kbit/s) {} instead of {}",
                              list8(got.maxrate->tc_maxrate), list8(want.maxrate->tc_maxrate)));
  }
  if (want.pfc && got.pfc && want.pfc->pfc_en != got.pfc->pfc_en) {
    out.push_back(fmt::format("PFC on {} instead of {}", pfc_list(got.pfc->pfc_en),
                              pfc_list(want.pfc->pfc_en)));
  }
  auto a = dscp_apps(want);
  auto b = dscp_apps(got);
  auto key = [](const dcb_app& x) { return std::pair(x.protocol, x.priority); };
  std::sort(a.begin(), a.end(), [&](auto& l, auto& r) { return key(l) < key(r); });
  std::sort(b.begin(), b.end(), [&](auto& l, auto& r) { return key(l) < key(r); });
  if (!std::equal(a.begin(), a.end(), b.begin(), b.end(), same_app)) {
    out.push_back(fmt::format("{} DSCP APP entries instead of {}", b.size(), a.size()));
  }
  if (want.sysfs_trust != got.sysfs_trust) {
    out.push_back(
        fmt::format("qos/trust \"{}\" instead of \"{}\"", got.sysfs_trust, want.sysfs_trust));
  }
  return out;
}

}  // namespace qb::nic
