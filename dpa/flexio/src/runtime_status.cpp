#include "qb/dpa/flexio/runtime_status.hpp"

#include <fmt/format.h>

#include "qb_flexio_build.h"  // QB_FLEXIO_BUILT, QB_FLEXIO_REASON: the SDK probe's answer

namespace qb::dpa::flexio {

FlexioBuildStatus flexio_build_status() {
  return FlexioBuildStatus{QB_FLEXIO_BUILT != 0, QB_FLEXIO_REASON};
}

std::string dpa_runtimes_line() {
  const FlexioBuildStatus status = flexio_build_status();
  const std::string flexio =
      status.built ? std::string("built (FlexIO SDK; needs a BlueField-3/ConnectX-7 DPA to run)")
                   : fmt::format("not built ({})", status.reason);
  return fmt::format("dpa: emulator (built in, inside the simulator); flexio: {}", flexio);
}

}  // namespace qb::dpa::flexio
