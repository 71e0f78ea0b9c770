// Reads the QoS sections of a suite: [traffic_class], [eth], [ib], [fabric] and the per-flow
// class keys (docs/suite-format.md). Kept apart from suite_loader.cpp so the QoS format grows
// on its own. Values are checked where they are written (file:line:col and key path); rules
// that need several sections (transport, hosts) are checked by check_scenario_qos().
#pragma once

#include <string>
#include <vector>

#include "qb/fabric/channel_qos.hpp"
#include "qb/suite/suite.hpp"
#include "toml_reader.hpp"

namespace qb::suite::detail {

TrafficClassSpec read_traffic_class(const Located* section);
EthQosSpec read_eth(const Located* section);
/// [eth]-shaped keys of `reader` over `base` (a switch's override of the suite's [eth]); the
/// caller limits the keys. Checked as [eth] is.
policy::EthPortQos read_eth_over(const TableReader& reader, const policy::EthPortQos& base);
/// [ib]'s table keys (sl2vl, vlarb_high, vlarb_low, high_limit) of `reader`, checked against the
/// port's `caps` as [ib]'s are.
fabric::IbTablesOverride read_ib_tables(const TableReader& reader, const policy::IbPortCaps& caps);
/// `suite_file` locates relative OpenSM paths; OpenSM's warnings are appended to `warnings`.
IbQosSpec read_ib(const Located* section, const std::string& suite_file,
                  std::vector<Warning>& warnings);
FabricSpec read_fabric(const Located* section, bool has_topology);
/// The class keys of a [[flow]] entry: tx_tclass, rx_tclass, dscp, sl, pcp, host, service_id,
/// pkey, qos_class, source_guid, destination_guid.
void read_flow_qos(const TableReader& flow_reader, const PortSpec& port, FlowSpec& flow);

/// Rules across sections: [eth] only on rocev2/eth, [ib] only on ib, `sl` vs `pcp` by
/// transport, `host` below [fabric] hosts, policy keys only with [ib] qos_policy, and the
/// switch rate default.
void check_scenario_qos(Scenario& scenario);

/// Appends a warning unless the same one (location and message) is already there: sections
/// inherited by several scenarios are read once per scenario.
void add_warning(std::vector<Warning>& warnings, Warning warning);

}  // namespace qb::suite::detail
