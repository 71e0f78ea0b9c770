// Which DPA runtimes this build has, for `qosbench drivers`.
#pragma once

#include <string>

namespace qb::dpa::flexio {

struct FlexioBuildStatus {
  bool built = false;  // the FlexIO SDK was found at configure time (QB_WITH_FLEXIO)
  std::string reason;  // why not, when not built
};

FlexioBuildStatus flexio_build_status();

/// "dpa: emulator (built in, inside the simulator); flexio: not built (<reason>)" or
/// "...; flexio: built (FlexIO SDK, needs a BlueField-3/ConnectX-7 DPA at run time)".
std::string dpa_runtimes_line();

}  // namespace qb::dpa::flexio
