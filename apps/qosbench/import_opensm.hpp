// Pieces of `qosbench import-opensm` shared by its one-port mode (import_opensm.cpp) and its
// fabric mode (import_opensm_fabric.cpp).
#pragma once

#include <string>
#include <vector>

#include "commands.hpp"
#include "qb/policies/opensm_conf.hpp"

namespace qb::cli {

/// [[vl,weight],...]
std::string json_table(const std::vector<policy::VlArbEntry>& table);
/// {"sl2vl":[16], "vlarb_high":[...], "vlarb_low":[...], "high_limit":N}
std::string json_port_qos(const policy::IbPortQos& qos);
/// A TOML basic string: quotes, backslashes and control characters escaped.
std::string toml_string(const std::string& text);
/// `path` made absolute (a suite resolves relative paths against its own directory).
std::string absolute_path(const std::string& path);

/// `import-opensm --fabric-dir DIR`: the topology, LFTs and per-port tables the diag tools read
/// from a fabric OpenSM configured (scripts/opensm-fabric.sh) as a suite (or JSON with --json).
int import_opensm_fabric(const ImportOpensmArgs& args);

}  // namespace qb::cli
