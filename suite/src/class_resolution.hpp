// Class resolution: which traffic class, DSCP, priority, SL, TC and VL every flow gets, and the
// port QoS of the NICs and the switch (docs/suite-format.md, "How a flow gets its class").
// Private to qb::suite; called by compile_scenario(). Pure: the OpenSM files were read by the
// loader.
#pragma once

#include <cstdint>
#include <vector>

#include "qb/common/result.hpp"
#include "qb/suite/suite.hpp"
#include "qb/policies/qos_plan.hpp"

namespace qb::suite::detail {

/// The port QoS every NIC egress port arbitrates by: [eth] -> ETS, [ib] -> VLArb (the tables
/// OpenSM programs on a CA port, then the suite's direct values), else none.
policy::PortQos nic_port_qos(const Scenario& scenario);
/// The switch egress port: IB uses OpenSM's switch-external-port (swe) tables with the same
/// direct values; Ethernet uses the same [eth] settings as the NICs (model choice).
policy::PortQos switch_port_qos(const Scenario& scenario);

/// Fills plan.nic_qos, the fabric fields and every flow's class fields (host, tclasses, dscp,
/// sl, priority, arb_class, switch_arb_class, dropped, class_note). `flow_spec[i]` is the
/// scenario flow of plan.flows[i]. Errors: a tclass the provider rejects (cxi), with the
/// location of the flow's or the domain's key. Warnings: provider resets, flows on VL15.
Status resolve_classes(const Scenario& scenario, const std::vector<uint32_t>& flow_spec,
                       policy::QosPlan& plan, std::vector<Warning>& warnings);

}  // namespace qb::suite::detail
