// The suite's [eth] against the port's QoS as read (eth_qos_state.hpp): which keys differ, what
// the NIC has instead, the `dcb` commands that set the port as the suite says, and the DCB
// settings that program it (for nic_qos = "apply").
#pragma once

#include <span>
#include <string>
#include <vector>

#include "qb/nic/dcb_netlink.hpp"
#include "qb/nic/eth_qos_state.hpp"
#include "qb/policies/port_qos.hpp"

namespace qb::nic {

struct QosMismatch {
  std::string key;    // the suite's key: "eth.trust", "eth.dscp2prio.\"26\"", "eth.prio_tc"
  std::string suite;  // what the suite says
  std::string nic;    // what the NIC has
};

/// Every [eth] key the NIC disagrees with. `flow_dscps`: the DSCPs the suite's flows mark
/// (dscp2prio is compared for those only: the rest carries none of the run's traffic, and mlx5
/// has no readable value for a DSCP outside its APP table). ETS percentages are compared on
/// the suite's ETS TCs (mlx5 reports 100 for the others); `pfc` only when the suite gives it.
std::vector<QosMismatch> compare_eth_qos(const policy::EthPortQos& suite,
                                         std::span<const uint8_t> flow_dscps,
                                         const EthQosState& nic);

/// iproute2 `dcb` commands (Debian's iproute2) that set `ifname` as the suite says, one per line.
std::vector<std::string> dcb_commands_for(const policy::EthPortQos& suite,
                                          std::span<const uint8_t> flow_dscps,
                                          const EthQosState& nic);

/// The IEEE_SET that programs the suite's settings over `nic` (its ETS object's other fields
/// kept), and the DSCP APP entries to delete (trust pcp over a port that has some).
struct EthQosProgram {
  DcbIeeeSet set;
  std::vector<dcb_app> del_apps;
};
EthQosProgram program_for(const policy::EthPortQos& suite, const EthQosState& nic);

/// The program that puts `before` back over `now`: its ETS, max rates and PFC, the DSCP APP
/// entries added since deleted and the ones it had set again.
EthQosProgram restore_program(const EthQosState& before, const EthQosState& now);

/// What differs between two read states (ETS, max rates, PFC, DSCP APP entries), in words;
/// empty when equal. For the check that a restore took.
std::vector<std::string> state_differences(const EthQosState& want, const EthQosState& got);

}  // namespace qb::nic
