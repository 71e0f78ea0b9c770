// run --apply-qos: the driver option nic_qos = "apply" as the flag issue 27 names, refused when
// the suite's table or a --driver-option already says otherwise (exit 2 naming both).
#pragma once

#include <vector>

#include "qb/common/config_table.hpp"
#include "qb/common/result.hpp"

namespace qb::cli {

/// Appends nic_qos = "apply" (flag "--apply-qos") to `overrides`, after checking that neither
/// an earlier override nor `table` (the suite's [driver.<name>]) sets nic_qos to another mode.
Status add_apply_qos(const ConfigTable& table, std::vector<ConfigOverride>& overrides);

}  // namespace qb::cli
