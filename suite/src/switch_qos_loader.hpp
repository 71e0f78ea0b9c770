// `[[topology.switch_qos]]`: per-switch QoS over the suite's [eth] / [ib] (issue 29 part 3,
// docs/suite-format.md "QoS per switch"), and each channel's PortQos for a scenario.
#pragma once

#include <vector>

#include "qb/common/result.hpp"
#include "qb/fabric/channel_qos.hpp"
#include "qb/policies/port_qos.hpp"
#include "qb/suite/suite.hpp"
#include "toml_reader.hpp"

namespace qb::suite::detail {

/// Reads the overrides of `section` ([topology]) into scenario.topology->switch_qos, after
/// [eth] and [ib] are read (an override starts from them) and checks them against the
/// topology. Bad input throws ConfigError at the key (file:line:col).
void read_switch_qos(const Located& section, Scenario& scenario);

/// What the ports arbitrate by before and with the overrides: CA ports nic_port_qos, switch
/// external ports switch_port_qos (class_resolution.hpp), then the scenario's overrides.
fabric::FabricQosSpec fabric_qos(const Scenario& scenario);

/// Each channel's PortQos of a [topology] scenario (fabric::channel_qos over fabric_qos): what the
/// graph simulator and the expectation arbitrate by, indexed by channel id.
Result<std::vector<policy::PortQos>> scenario_channel_qos(const Scenario& scenario);

}  // namespace qb::suite::detail
