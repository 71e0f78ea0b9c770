#include "nic_restore_command.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <linux/capability.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "qb/nic/eth_qos_session.hpp"
#include "qb/nic/permissions.hpp"
#include "qb/nic/port_state.hpp"
#include "qb/nic/restore_journal.hpp"

namespace qb::cli {
namespace {

// One journal: 0 put back, 3 not.
int restore_one(const std::string& path, const nic::RestoreJournal& journal) {
  if (journal.pid != static_cast<int>(::getpid()) && nic::process_alive(journal.pid)) {
    fmt::print(std::cerr,
               "qosbench: error: {}: the run that programmed {} (pid {}) still runs and puts it "
               "back when it ends (one Ctrl-C); not touched\n",
               path, journal.ifname, journal.pid);
    return 3;
  }
  nic::NicSeams seams = nic::system_nic_seams(journal.root);
  if (seams.root == "/") {
    if (Status s = nic::check_dcb_write_permission(nic::has_effective_capability(CAP_NET_ADMIN),
                                                   journal.ifname, "nic-restore");
        !s) {
      fmt::print(std::cerr, "{}\n", s.error().to_string());
      return 3;
    }
  }
  if (Status s = nic::restore_eth_qos(*seams.dcb, seams.root, journal.before); !s) {
    fmt::print(std::cerr, "qosbench: error: {} (journal {}, kept)\n", s.error().message, path);
    return 3;
  }
  std::error_code ec;
  std::filesystem::remove(path, ec);
  fmt::print(std::cout,
             "put back the QoS of {} as it was before the run of pid {} (read back and "
             "compared; journal {} removed)\n",
             journal.ifname, journal.pid, path);
  return 0;
}

}  // namespace

int nic_restore_command(const NicRestoreArgs& args) {
  const std::string dir = args.state_dir.empty() ? nic::default_nic_state_dir() : args.state_dir;
  std::vector<std::string> wanted = args.ifnames;
  int code = 0;
  const std::vector<std::string> journals = nic::list_journals(dir);
  for (const std::string& path : journals) {
    auto journal = nic::read_journal(path);
    if (!journal) {
      fmt::print(std::cerr, "qosbench: error: {}\n", journal.error().message);
      code = std::max(code, 3);
      continue;
    }
    if (!args.ifnames.empty()) {
      const auto it = std::find(wanted.begin(), wanted.end(), journal->ifname);
      if (it == wanted.end()) continue;
      wanted.erase(it);
    }
    code = std::max(code, restore_one(path, *journal));
  }
  for (const std::string& ifname : wanted) {
    fmt::print(std::cerr, "qosbench: error: nic-restore: no restore journal for {} in {}\n", ifname,
               dir);
    code = std::max(code, 2);
  }
  if (journals.empty() && args.ifnames.empty()) {
    fmt::print(std::cout, "no restore journal in {}: no port is left as a run set it\n", dir);
  }
  return code;
}

}  // namespace qb::cli
