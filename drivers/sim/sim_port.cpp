// The factory of the simulator's model; see sim_port.hpp.
#include "sim_port.hpp"

namespace qb::drv::sim {

void SimPort::configure(const Topology& topology, const policy::QosPlan& plan) {
  fabric_ = needs_fabric(plan);
  if (fabric_ || program_ != nullptr) {
    auto& model = model_.emplace<SimModel<Fabric>>();
    model.attach(program_);
    model.configure(topology, plan);
  } else {
    model_.emplace<SimModel<SingleLink>>().configure(topology, plan);
  }
}

}  // namespace qb::drv::sim
