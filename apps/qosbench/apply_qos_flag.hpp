// run --apply-qos: the driver option nic_qos = "apply" as the flag issue 27 names, refused when
// the suite's table or a --driver-option already says otherwise (exit 2 naming both).
#pragma once

#include <string>
#include <vector>

#include "qb/common/config_table.hpp"
#include "qb/common/result.hpp"

namespace qb::cli {

/// Appends nic_qos = "apply" (flag "--apply-qos") to `overrides`, after checking that neither
/// an earlier override nor `table` (the suite's [driver.<name>]) sets nic_qos to another mode.
Status add_apply_qos(const ConfigTable& table, std::vector<ConfigOverride>& overrides);

/// A driver's refusal of the nic_qos that --apply-qos set (a driver without that option, the
/// sim): said in the flag's words. Other errors are returned as they are.
Error explain_apply_qos_refusal(Error error, const std::string& driver);

}  // namespace qb::cli
