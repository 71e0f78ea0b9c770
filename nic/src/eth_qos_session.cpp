// Read, compare, program and restore a port's DCB QoS for one run.
#include "qb/nic/eth_qos_session.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "qb/nic/dcb_netlink.hpp"
#include "qb/nic/permissions.hpp"

namespace qb::nic {
namespace {

std::atomic<uint32_t> next_seq{1};

std::filesystem::path trust_path(const std::string& root, const std::string& ifname) {
  return std::filesystem::path(root) / "sys/class/net" / ifname / "qos/trust";
}

std::string dcb_restore_commands(const EthQosState& s) {
  // The state read before, as `dcb` would set it by hand.
  std::vector<std::string> lines;
  if (s.ets) {
    std::vector<std::string> prio_tc, tsa, bw;
    for (size_t i = 0; i < 8; ++i) {
      prio_tc.push_back(fmt::format("{}:{}", i, s.ets->prio_tc[i]));
      tsa.push_back(fmt::format("{}:{}", i, tsa_name(s.ets->tc_tsa[i])));
      bw.push_back(fmt::format("{}:{}", i, s.ets->tc_tx_bw[i]));
    }
    lines.push_back(fmt::format("dcb ets set dev {} prio-tc {} tc-tsa {} tc-bw {}", s.ifname,
                                fmt::join(prio_tc, " "), fmt::join(tsa, " "), fmt::join(bw, " ")));
  }
  if (s.maxrate) {
    std::vector<std::string> rates;
    for (size_t i = 0; i < 8; ++i)
      rates.push_back(fmt::format("{}:{}kbit", i, s.maxrate->tc_maxrate[i]));
    lines.push_back(
        fmt::format("dcb maxrate set dev {} tc-maxrate {}", s.ifname, fmt::join(rates, " ")));
  }
  if (s.pfc) {
    std::vector<std::string> pfc;
    for (unsigned p = 0; p < 8; ++p)
      pfc.push_back(fmt::format("{}:{}", p, ((s.pfc->pfc_en >> p) & 1U) ? "on" : "off"));
    lines.push_back(fmt::format("dcb pfc set dev {} prio-pfc {}", s.ifname, fmt::join(pfc, " ")));
  }
  std::vector<std::string> apps;
  for (const dcb_app& app : s.apps) {
    if (app.selector == IEEE_8021QAZ_APP_SEL_DSCP)
      apps.push_back(fmt::format("{}:{}", app.protocol, app.priority));
  }
  if (!apps.empty()) {
    lines.push_back(
        fmt::format("dcb app replace dev {} dscp-prio {}", s.ifname, fmt::join(apps, " ")));
  } else {
    lines.push_back(fmt::format("dcb app flush dev {} dscp-prio", s.ifname));
  }
  return fmt::format("  {}", fmt::join(lines, "\n  "));
}

}  // namespace

std::string read_sysfs_trust(const std::string& sysfs_root, const std::string& ifname) {
  std::ifstream in(trust_path(sysfs_root, ifname));
  std::string text, line;
  while (std::getline(in, line)) text += line;
  return text;
}

Result<EthQosState> read_eth_qos(DcbTransport& transport, const std::string& sysfs_root,
                                 const std::string& ifname) {
  const auto request = encode_ieee_get(ifname, next_seq++);
  auto reply = transport.exchange(request);
  if (!reply) return std::move(reply).error();
  auto state = decode_ieee_get_reply(*reply, ifname);
  if (!state) return std::move(state).error();
  state->sysfs_trust = read_sysfs_trust(sysfs_root, ifname);
  return state;
}

Result<std::unique_ptr<EthQosSession>> EthQosSession::begin(DcbTransport& transport,
                                                            std::string sysfs_root,
                                                            const EthQosTarget& target,
                                                            QosMode mode, bool has_net_admin) {
  std::unique_ptr<EthQosSession> session(
      new EthQosSession(transport, std::move(sysfs_root), target.ifname));
  auto read = read_eth_qos(transport, session->sysfs_root_, target.ifname);
  if (!read) {
    return make_error(
        read.error().code,
        fmt::format("reading the QoS of {} (netdev {}) through DCB netlink: {}. "
                    "Set {} = \"off\" to run without the check",
                    target.port_label, target.ifname, read.error().message, target.option_key),
        target.option_key);
  }
  session->before_ = std::move(*read);
  const auto mismatches = compare_eth_qos(target.suite, target.flow_dscps, session->before_);
  if (mismatches.empty()) {
    session->note_ = fmt::format(
        "{} (netdev {}): the port's QoS (trust, dscp2prio of the flows' "
        "DSCPs, prio_tc, TSA, ETS, TC rates{}) matches the suite's [eth]",
        target.port_label, target.ifname, target.suite.pfc_given ? ", PFC" : "");
    return session;
  }
  if (mode == QosMode::check) {
    std::vector<std::string> lines;
    for (const QosMismatch& m : mismatches) {
      lines.push_back(
          fmt::format("  {}: the suite says {}, the NIC has {}", m.key, m.suite, m.nic));
    }
    return make_error(
        Errc::unavailable,
        fmt::format(
            "the QoS of {} (netdev {}, read through DCB netlink) is not the suite's "
            "[eth], so the expectations would not apply:\n{}\nFix: set the port as the "
            "suite says (iproute2's dcb, as root):\n  {}\nor run with --driver-option "
            "{}=apply (programs the suite's settings for the run and puts the port's "
            "back after it), or {}=off to run anyway",
            target.port_label, target.ifname, fmt::join(lines, "\n"),
            fmt::join(dcb_commands_for(target.suite, target.flow_dscps, session->before_), "\n  "),
            target.option_key.substr(target.option_key.rfind('.') + 1),
            target.option_key.substr(target.option_key.rfind('.') + 1)),
        mismatches.front().key);
  }
  if (Status s = check_dcb_write_permission(has_net_admin, target.ifname, target.option_key); !s) {
    return std::move(s).error();
  }
  // Programmed: from here the destructor puts the port back whatever happens.
  session->programmed_ = true;
  const EthQosProgram program = program_for(target.suite, session->before_);
  if (!session->before_.sysfs_trust.empty()) {
    const std::string want = target.suite.trust == policy::EthTrust::dscp ? "dscp" : "pcp";
    std::ofstream out(trust_path(session->sysfs_root_, target.ifname));
    out << want << '\n';
    session->sysfs_trust_written_ = want;
  }
  if (Status s = session->run(program, "the suite's [eth]"); !s) return std::move(s).error();
  auto after = read_eth_qos(transport, session->sysfs_root_, target.ifname);
  if (!after) return std::move(after).error();
  const auto left = compare_eth_qos(target.suite, target.flow_dscps, *after);
  if (!left.empty()) {
    std::vector<std::string> lines;
    for (const QosMismatch& m : left) lines.push_back(fmt::format("{} (NIC: {})", m.key, m.nic));
    return make_error(Errc::runtime,
                      fmt::format("programmed the suite's [eth] on {} but the NIC reads back "
                                  "otherwise: {}; the driver did not take it (the port is put "
                                  "back as it was)",
                                  target.ifname, fmt::join(lines, "; ")),
                      left.front().key);
  }
  std::vector<std::string> keys;
  for (const QosMismatch& m : mismatches) keys.push_back(m.key);
  session->note_ = fmt::format(
      "{} (netdev {}): programmed the suite's {} through DCB netlink for the run (nic_qos = "
      "\"apply\"); the port's own settings are put back after it. Should qosbench be killed "
      "before, put them back by hand:\n{}",
      target.port_label, target.ifname, fmt::join(keys, ", "),
      dcb_restore_commands(session->before_));
  return session;
}

Status EthQosSession::run(const EthQosProgram& program, std::string_view what) {
  const std::string where = fmt::format("{} on {}", what, ifname_);
  if (!program.del_apps.empty()) {
    DcbIeeeSet del;
    del.apps = program.del_apps;
    auto reply = transport_.exchange(encode_ieee_set(ifname_, next_seq++, del, true));
    if (!reply) return std::move(reply).error();
    if (Status s = decode_ieee_set_reply(*reply, where); !s) return s;
  }
  if (!program.set.empty()) {
    auto reply = transport_.exchange(encode_ieee_set(ifname_, next_seq++, program.set));
    if (!reply) return std::move(reply).error();
    if (Status s = decode_ieee_set_reply(*reply, where); !s) return s;
  }
  return {};
}

Status EthQosSession::restore() {
  if (restored_ || !programmed_) return restore_status_;
  restored_ = true;
  auto fail = [&](const std::string& why) {
    restore_status_ = make_error(
        Errc::runtime,
        fmt::format("the QoS of {} could not be put back as it was before the run: {}. Put it "
                    "back by hand (as root):\n{}",
                    ifname_, why, dcb_restore_commands(before_)));
    return restore_status_;
  };
  if (!sysfs_trust_written_.empty()) {
    std::ofstream out(trust_path(sysfs_root_, ifname_));
    out << before_.sysfs_trust << '\n';
  }
  auto now = read_eth_qos(transport_, sysfs_root_, ifname_);
  if (!now) return fail(now.error().message);
  if (Status s = run(restore_program(before_, *now), "the state before the run"); !s) {
    return fail(s.error().message);
  }
  auto after = read_eth_qos(transport_, sysfs_root_, ifname_);
  if (!after) return fail(after.error().message);
  const auto left = state_differences(before_, *after);
  if (!left.empty()) return fail(fmt::format("it reads {}", fmt::join(left, ", ")));
  return restore_status_;
}

EthQosSession::~EthQosSession() {
  if (Status s = restore(); !s)
    std::fprintf(stderr, "qosbench: error: %s\n", s.error().message.c_str());
}

}  // namespace qb::nic
