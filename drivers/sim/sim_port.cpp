#include "sim_port.hpp"

namespace qb::drv::sim {

void SimPort::configure(const Topology& topology, const policy::QosPlan& plan) {
  if (needs_fabric(plan)) {
    model_.emplace<SimModel<Fabric>>().configure(topology, plan);
  } else {
    model_.emplace<SimModel<SingleLink>>().configure(topology, plan);
  }
}

}  // namespace qb::drv::sim
