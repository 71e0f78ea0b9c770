// A suite's `[topology]` table and the host keys of its flows, read with the loaders' located
// readers (qb/common/toml_reader.hpp): bad input throws ConfigError with the key path and
// file:line:col (or the topology file's line), which the suite loader's boundary returns.
// docs/suite-format.md, "Fabrics".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "qb/common/toml_reader.hpp"
#include "qb/fabric/topology_spec.hpp"
#include "qb/fabric/traffic.hpp"

namespace qb::fabric {

/// Reads `[topology]`. `suite_dir` resolves a relative `file`.
TopologySpec read_topology(const config::Located& section, const std::string& suite_dir);

/// The keys a [[flow]] may carry for its hosts (for the loader's allow_only).
inline constexpr std::string_view kFlowEndpointKeys[] = {
    "from", "to", "sources", "destinations", "destination_seed"};

/// A flow's hosts: `from` + `to` (one pair), or `sources` (a host, a range "h0..h15", "*", or an
/// array of those) + `destinations` ("permutation", "all-to-all", "incast" with `to`, or
/// "fixed" with `to`: one host or one per source) and `destination_seed`. Empty when the flow
/// writes none of kFlowEndpointKeys. A topology is needed (`topology` null: an error at the key).
std::vector<FlowEndpoints> read_flow_endpoints(const config::TableReader& flow,
                                               const TopologySpec* topology);

}  // namespace qb::fabric
