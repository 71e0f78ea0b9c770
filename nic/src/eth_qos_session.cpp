// Read, compare, program and restore a port's DCB QoS for one run.
#include "qb/nic/eth_qos_session.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "qb/common/exit_cleanup.hpp"
#include "qb/nic/dcb_netlink.hpp"
#include "qb/nic/left_changed.hpp"
#include "qb/nic/permissions.hpp"
#include "qb/nic/restore_journal.hpp"

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

// The command that restores from the journal's directory (named: the environment that chose
// it, QOSBENCH_STATE_DIR or XDG_RUNTIME_DIR, may not be the next shell's).
std::string nic_restore_command(const std::string& journal_file) {
  return fmt::format("qosbench nic-restore --state-dir {}",
                     std::filesystem::path(journal_file).parent_path().string());
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
                                                            QosMode mode, bool has_net_admin,
                                                            std::string state_dir) {
  std::unique_ptr<EthQosSession> session(
      new EthQosSession(transport, std::move(sysfs_root), target.ifname));
  if (state_dir.empty()) state_dir = default_nic_state_dir();
  const std::string journal = journal_path(state_dir, target.ifname, session->sysfs_root_);
  // A killed run's journal: the port is still as that run's suite set it, so what is read now
  // is not the port's own state. Put back first (apply), or stop with the command.
  if (mode == QosMode::apply) {
    if (Status s = check_dcb_write_permission(has_net_admin, target.ifname, target.option_key);
        !s && std::filesystem::exists(journal)) {
      return std::move(s).error();
    }
  }
  auto stale = settle_stale_journal(transport, session->sysfs_root_, journal,
                                    mode == QosMode::apply, target.option_key);
  if (!stale) return std::move(stale).error();
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
        "{}{} (netdev {}): the port's QoS (trust, dscp2prio of the flows' "
        "DSCPs, prio_tc, TSA, ETS, TC rates{}) matches the suite's [eth]",
        *stale, target.port_label, target.ifname, target.suite.pfc_given ? ", PFC" : "");
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
  // The state read, on disk before the first write: a kill -9 from here leaves the journal.
  RestoreJournal entry;
  entry.pid = static_cast<int>(::getpid());
  entry.ifname = target.ifname;
  entry.root = session->sysfs_root_;
  entry.before = session->before_;
  if (Status s = write_journal(journal, entry); !s) {
    return make_error(Errc::unavailable,
                      fmt::format("nic_qos = \"apply\" writes the port's state to a restore "
                                  "journal before it programs the port, and could not: {}. Set "
                                  "QOSBENCH_STATE_DIR to a writable directory",
                                  s.error().message),
                      target.option_key);
  }
  session->journal_ = journal;
  session->exit_note_ = fmt::format(
      "qosbench: the QoS of {} is left as the suite set it (nic_qos = \"apply\"); put it back "
      "with: {}\n",
      target.ifname, nic_restore_command(journal));
  register_exit_note(session->exit_note_.c_str());
  // Programmed: from here the destructor puts the port back whatever happens.
  session->programmed_ = true;
  const EthQosProgram program = program_for(target.suite, session->before_);
  if (!session->before_.sysfs_trust.empty()) {
    const std::string want = target.suite.trust == policy::EthTrust::dscp ? "dscp" : "pcp";
    std::ofstream out(trust_path(session->sysfs_root_, target.ifname));
    out << want << '\n';
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
      "{}{} (netdev {}): programmed the suite's {} through DCB netlink for the run (nic_qos = "
      "\"apply\"); the port's own settings are put back after it. Should qosbench be killed "
      "before, `{}` puts them back (journal {}), or by hand:\n{}",
      *stale, target.port_label, target.ifname, fmt::join(keys, ", "), nic_restore_command(journal),
      journal, dcb_restore_commands(session->before_));
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

Status restore_eth_qos(DcbTransport& transport, const std::string& sysfs_root,
                       const EthQosState& before) {
  const std::string& ifname = before.ifname;
  auto fail = [&](const std::string& why) {
    return make_error(
        Errc::runtime,
        fmt::format("the QoS of {} could not be put back as it was before the run: {}. Put it "
                    "back by hand (as root):\n{}",
                    ifname, why, dcb_restore_commands(before)));
  };
  if (!before.sysfs_trust.empty()) {
    std::ofstream out(trust_path(sysfs_root, ifname));
    out << before.sysfs_trust << '\n';
  }
  auto now = read_eth_qos(transport, sysfs_root, ifname);
  if (!now) return fail(now.error().message);
  const EthQosProgram program = restore_program(before, *now);
  const std::string where = fmt::format("the state before the run on {}", ifname);
  if (!program.del_apps.empty()) {
    DcbIeeeSet del;
    del.apps = program.del_apps;
    auto reply = transport.exchange(encode_ieee_set(ifname, next_seq++, del, true));
    if (!reply) return fail(reply.error().message);
    if (Status s = decode_ieee_set_reply(*reply, where); !s) return fail(s.error().message);
  }
  if (!program.set.empty()) {
    auto reply = transport.exchange(encode_ieee_set(ifname, next_seq++, program.set));
    if (!reply) return fail(reply.error().message);
    if (Status s = decode_ieee_set_reply(*reply, where); !s) return fail(s.error().message);
  }
  auto after = read_eth_qos(transport, sysfs_root, ifname);
  if (!after) return fail(after.error().message);
  const auto left = state_differences(before, *after);
  if (!left.empty()) return fail(fmt::format("it reads {}", fmt::join(left, ", ")));
  if (!before.sysfs_trust.empty() && after->sysfs_trust != before.sysfs_trust) {
    return fail(fmt::format("its sysfs qos/trust reads \"{}\"", after->sysfs_trust));
  }
  return {};
}

Result<std::string> settle_stale_journal(DcbTransport& transport, const std::string& sysfs_root,
                                         const std::string& journal_file, bool restore,
                                         const std::string& option_key) {
  if (!std::filesystem::exists(journal_file)) return std::string();
  auto journal = read_journal(journal_file);
  if (!journal) {
    return make_error(Errc::unavailable,
                      fmt::format("{}; a qosbench run left it and the port may still be as that "
                                  "run's suite set it: check the port, then remove the file",
                                  journal.error().message),
                      option_key);
  }
  const bool ours = journal->pid == static_cast<int>(::getpid());
  if (!ours && process_alive(journal->pid)) {
    return make_error(Errc::unavailable,
                      fmt::format("{} is programmed for another qosbench run (pid {}, journal "
                                  "{}), which puts it back when it ends: wait for it",
                                  journal->ifname, journal->pid, journal_file),
                      option_key);
  }
  if (!restore) {
    return make_error(
        Errc::unavailable,
        fmt::format("{} is still as a qosbench run that did not end (pid {}) set "
                    "it with nic_qos = \"apply\" (journal {}): its own state is not "
                    "what the port reads now. Put it back with `{}`, or run with "
                    "--apply-qos (puts it back first)",
                    journal->ifname, journal->pid, journal_file, nic_restore_command(journal_file)),
        option_key);
  }
  if (Status s = restore_eth_qos(transport, sysfs_root, journal->before); !s) {
    return make_error(Errc::unavailable,
                      fmt::format("putting back {} from the journal of a run that did not end "
                                  "(pid {}, {}): {}",
                                  journal->ifname, journal->pid, journal_file, s.error().message),
                      option_key);
  }
  std::error_code ec;
  std::filesystem::remove(journal_file, ec);
  return fmt::format("{}: put back as it was before a run that did not end (pid {}, journal {}); ",
                     journal->ifname, journal->pid, journal_file);
}

Status EthQosSession::restore() {
  if (restored_ || !programmed_) return restore_status_;
  restored_ = true;
  restore_status_ = restore_eth_qos(transport_, sysfs_root_, before_);
  if (restore_status_) {
    std::error_code ec;
    std::filesystem::remove(journal_, ec);
    unregister_exit_note(exit_note_.c_str());
    journal_.clear();
    return restore_status_;
  }
  // The journal stays: nic-restore (or the next apply run) can try again.
  unregister_exit_note(exit_note_.c_str());
  restore_status_ =
      make_error(Errc::runtime, fmt::format("{}\nor, once the cause is fixed: {} (journal {})",
                                            restore_status_.error().message,
                                            nic_restore_command(journal_), journal_));
  note_port_left_changed(
      fmt::format("the QoS of {} was not put back ({})", ifname_, nic_restore_command(journal_)));
  return restore_status_;
}

EthQosSession::~EthQosSession() {
  if (Status s = restore(); !s)
    std::fprintf(stderr, "qosbench: error: %s\n", s.error().message.c_str());
}

}  // namespace qb::nic
