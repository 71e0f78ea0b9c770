// This build has no FlexIO SDK (dpa/flexio/CMakeLists.txt): the loader runs only on the fake.
#include "qb/dpa/flexio/flexio_ops.hpp"
#include "qb/dpa/flexio/runtime_status.hpp"

namespace qb::dpa::flexio {

Result<std::unique_ptr<FlexioOps>> make_sdk_flexio_ops() {
  return make_error(Errc::unavailable,
                    "the FlexIO loader is not built (" + flexio_build_status().reason +
                        "); rebuild with the DOCA FlexIO SDK (docs/dpa.md, The FlexIO loader)",
                    "dpa.flexio");
}

}  // namespace qb::dpa::flexio
