// qosbench nic-restore: puts back the ports a run with nic_qos = "apply" (--apply-qos) left as
// its suite set them (killed, or stopped by a second Ctrl-C), from their restore journals.
#pragma once

#include <string>
#include <vector>

namespace qb::cli {

struct NicRestoreArgs {
  std::string state_dir;             // empty: the default (QOSBENCH_STATE_DIR, ...)
  std::vector<std::string> ifnames;  // empty: every journal of the directory
};

/// 0 when every journal taken was put back (or there was none), 2 for an ifname without a
/// journal, 3 when a port could not be put back or its run still runs.
int nic_restore_command(const NicRestoreArgs& args);

}  // namespace qb::cli
