// What a port does with a DCB IEEE_SET or IEEE_DEL, as mlx5 does it (a DSCP APP entry replaces
// the DSCP's previous one; deleting an entry that is not there is ENOENT): the fakes' port
// model, shared by the tests' FakeDcbPort and a recording that takes settings (recorded.hpp).
#pragma once

#include "qb/nic/dcb_netlink.hpp"
#include "qb/nic/eth_qos_state.hpp"

namespace qb::nic {

/// Applies `asked` to `state`; 0, or a negative errno (the state is unchanged then).
int apply_dcb_request(EthQosState& state, const DcbIeeeSet& asked, bool del);

}  // namespace qb::nic
