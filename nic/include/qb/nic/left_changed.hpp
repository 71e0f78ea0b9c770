// The ports this process could not put back (nic_qos = "apply" whose restore failed): the
// drivers' close() cannot return an error, so the restore notes it here and the command line
// turns it into the run's verdict and exit code.
#pragma once

#include <string>
#include <vector>

namespace qb::nic {

/// `what`: one line, e.g. "the QoS of ens1f0np0 (qosbench nic-restore puts it back)".
void note_port_left_changed(std::string what);
/// The notes so far, cleared.
std::vector<std::string> take_ports_left_changed();

}  // namespace qb::nic
