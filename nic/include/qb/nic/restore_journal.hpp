// The restore journal: before nic_qos = "apply" programs a port, the state read before (and the
// ifname, the recording root, the pid) is written atomically to a state directory, and removed
// after a verified restore. What a kill -9 or a second Ctrl-C leaves behind is thus enough for
// `qosbench nic-restore` (or the next apply run) to put the port back.
#pragma once

#include <string>
#include <vector>

#include "qb/common/result.hpp"
#include "qb/nic/eth_qos_state.hpp"

namespace qb::nic {

struct RestoreJournal {
  int pid = 0;  // the run that programmed the port
  std::string ifname;
  std::string root = "/";  // nic_root of that run ("/": this machine)
  EthQosState before;      // the port as read before the program (sysfs_trust: written back)
};

/// $QOSBENCH_STATE_DIR, else $XDG_RUNTIME_DIR/qosbench, else /run/qosbench as root, else
/// /tmp/qosbench-<uid>.
std::string default_nic_state_dir();

/// `dir`/<ifname>.journal for this machine; a recording's (root != "/") carries a hash of
/// the root so that two recordings' ports of one name do not share a journal.
std::string journal_path(const std::string& dir, const std::string& ifname,
                         const std::string& root);

/// Written to a temporary file in `path`'s directory (created, mode 0700), flushed to disk and
/// renamed over `path`: a reader sees the old journal or the whole new one.
Status write_journal(const std::string& path, const RestoreJournal& journal);
/// Errc::io naming the file and line for anything that is not a whole journal.
Result<RestoreJournal> read_journal(const std::string& path);
/// The journals in `dir` (*.journal), sorted; none when it does not exist.
std::vector<std::string> list_journals(const std::string& dir);
/// kill(pid, 0) says it exists (EPERM counts: someone else's live process).
bool process_alive(int pid) noexcept;

}  // namespace qb::nic
