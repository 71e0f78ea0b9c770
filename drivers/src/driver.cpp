#include "qb/drivers/driver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace qb::drv {
namespace {

// Arbitration classes a port of this kind has: ETS traffic classes, IB data VLs (VL15 is the
// drop VL), or one class without port QoS.
uint32_t port_classes(const policy::PortQos& qos) noexcept {
  switch (qos.kind) {
    case policy::PortQos::Kind::ets:
      return 8;
    case policy::PortQos::Kind::vlarb:
      return 15;
    case policy::PortQos::Kind::none:
      break;
  }
  return 1;
}

}  // namespace

Driver::Driver(std::string name, std::unique_ptr<DriverBackend> backend)
    : name_(std::move(name)), backend_(std::move(backend)) {}

Driver::~Driver() {
  close();
}

Error Driver::order_error(const char* call, const char* hint) const {
  return make_error(Errc::runtime, fmt::format("{}: {} out of order: {}", name_, call, hint));
}

Error Driver::invalid(Errc code, std::string message, std::string where) const {
  return make_error(code, fmt::format("{}: {}", name_, message), std::move(where));
}

Status Driver::open(const Topology& topology) {
  if (state_ != State::closed) return order_error("open()", "close() first");
  if (!(topology.port_rate_bps > 0.0) || !std::isfinite(topology.port_rate_bps)) {
    return invalid(Errc::invalid_config, "the port rate must be > 0 bit/s", "port.rate");
  }
  if (topology.propagation_delay_ns < 0) {
    return invalid(Errc::invalid_config, "the propagation delay must be >= 0",
                   "port.propagation_delay");
  }
  const Capabilities caps = backend_->capabilities();
  if (topology.workers == 0 || topology.workers > caps.max_workers) {
    return invalid(Errc::not_supported, fmt::format("runs {} worker(s) here (asked for {})",
                                                    caps.max_workers, topology.workers));
  }
  if (topology.flow_count > caps.max_flows) {
    return invalid(Errc::not_supported, fmt::format("runs at most {} flows (the suite has {})",
                                                    caps.max_flows, topology.flow_count));
  }
  if (Status status = backend_->open(topology); !status) {
    backend_->close();
    return status;
  }
  topology_ = topology;
  state_ = State::opened;
  return {};
}

Status DriverBackend::apply(const policy::QosPlan&) {
  return make_error(Errc::not_supported,
                    "cannot program a QoS plan (no scheduling tree, classes or caps)");
}

Status Driver::apply(const policy::QosPlan& plan) {
  if (state_ != State::opened && state_ != State::applied) {
    return order_error("apply()", "open() first, and before start()");
  }
  const Capabilities caps = backend_->capabilities();
  if (plan.flows.size() != topology_.flow_count) {
    return invalid(Errc::invalid_config,
                   fmt::format("the plan has {} flows but the topology was opened for {}",
                               plan.flows.size(), topology_.flow_count));
  }
  if (Status status = check_capabilities(plan, caps); !status) return status;
  if (Status status = backend_->apply(plan); !status) return status;
  state_ = State::applied;
  return {};
}

Status Driver::check_plan(const policy::QosPlan& plan, const PlanContext& context) const {
  if (Status status = check_capabilities(plan, backend_->capabilities()); !status) return status;
  return backend_->check_plan(plan, context);
}

Status Driver::check_capabilities(const policy::QosPlan& plan, const Capabilities& caps) const {
  if (caps.needs_tree && plan.tree.elements.empty()) {
    return invalid(Errc::invalid_config, "the plan has no scheduling tree", "sched");
  }
  if (plan.graph && !caps.fabric_graph) {
    return invalid(Errc::not_supported,
                   "cannot run a multi-switch fabric ([topology]) yet: only the simulator's "
                   "graph model can (--driver sim)",
                   "topology");
  }
  const uint32_t hosts = plan.host_count();
  if (hosts > caps.max_hosts) {
    return invalid(Errc::not_supported,
                   fmt::format("runs {} sending host(s) (the plan has {}) in one "
                               "process: run it as an MPI job, one rank per "
                               "host and the receiver (docs/multi-host.md), "
                               "or on --driver sim",
                               caps.max_hosts, hosts),
                   "fabric.hosts");
  }
  if (!caps.congestion_model && !plan.congestion.dpa.program.empty()) {
    return invalid(Errc::not_supported,
                   "cannot run a DPA program (only the simulator's DPA emulator can, so far: "
                   "--driver sim)",
                   "dpa.program");
  }
  if (!caps.congestion_model && plan.congestion.any_ecn()) {
    return invalid(Errc::not_supported, "cannot model ECN marking at a switch (--driver sim can)",
                   "fabric.ecn");
  }
  if (!caps.congestion_model && plan.congestion.lossy) {
    return invalid(Errc::not_supported,
                   "cannot model a lossy switch (drops, NACKs, retransmission; --driver sim can)",
                   "fabric.mode");
  }
  if (plan.switched && !(plan.switch_rate_bps >= 0.0 && std::isfinite(plan.switch_rate_bps))) {
    return invalid(Errc::invalid_config, "the switch rate must be >= 0 bit/s",
                   "fabric.switch_rate");
  }
  for (size_t f = 0; f < plan.flows.size(); ++f) {
    const policy::FlowPlan& flow = plan.flows[f];
    const std::string where = fmt::format("flows[{}]", f);
    if (caps.needs_tree && flow.leaf >= plan.tree.elements.size()) {
      return invalid(Errc::invalid_config,
                     fmt::format("flow '{}' is attached to element {}, which does not exist",
                                 flow.name, flow.leaf),
                     where);
    }
    if (flow.host >= hosts) {
      return invalid(Errc::invalid_config,
                     fmt::format("flow '{}' is on host {} of {}", flow.name, flow.host, hosts),
                     where);
    }
    if (plan.nic_qos.kind != policy::PortQos::Kind::none && !flow.dropped &&
        flow.arb_class >= port_classes(plan.nic_qos)) {
      return invalid(Errc::invalid_config,
                     fmt::format("flow '{}' has arbitration class {}, beyond the port's", flow.name,
                                 flow.arb_class),
                     where);
    }
    if (plan.switched && plan.switch_qos.kind != policy::PortQos::Kind::none && !flow.dropped &&
        flow.switch_arb_class >= port_classes(plan.switch_qos)) {
      return invalid(Errc::invalid_config,
                     fmt::format("flow '{}' has switch arbitration class {}, beyond the switch "
                                 "port's",
                                 flow.name, flow.switch_arb_class),
                     where);
    }
  }
  return {};
}

Status Driver::start() {
  if (state_ != State::applied) return order_error("start()", "apply() first");
  if (Status status = backend_->start(); !status) return status;
  state_ = State::started;
  return {};
}

void Driver::check_worker(const char* call, uint32_t worker) const noexcept {
  const bool has_queues =
      state_ == State::applied || state_ == State::started || state_ == State::stopped;
  if (has_queues && worker < topology_.workers) return;
  std::fprintf(stderr, "qosbench: %s: %s(%u) before apply() or beyond the %u worker(s)\n",
               name_.c_str(), call, worker, topology_.workers);
  std::abort();
}

Queue& Driver::queue(uint32_t worker) {
  check_worker("queue", worker);
  return backend_->queue(worker);
}

Clock& Driver::clock(uint32_t worker) {
  check_worker("clock", worker);
  return backend_->clock(worker);
}

Status Driver::stop() {
  if (state_ != State::started) return order_error("stop()", "start() first");
  Status status = backend_->stop();
  state_ = State::stopped;
  return status;
}

void Driver::close() noexcept {
  if (backend_) backend_->close();
  state_ = State::closed;
}

}  // namespace qb::drv
