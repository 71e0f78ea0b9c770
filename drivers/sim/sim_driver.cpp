// The sim driver's control path: state checks and validation around the SimPort model.
#include "qb/drivers/sim_driver.hpp"

#include <cmath>
#include <string>

#include "sim_port.hpp"

namespace qb::drv {
namespace {

class SimDriver final : public Driver {
 public:
  std::string_view name() const noexcept override { return "sim"; }

  Capabilities capabilities() const override {
    Capabilities caps;
    caps.virtual_time = true;
    caps.hw_sched_tree = true;  // the model enforces the mlx5 tree like the NIC does
    caps.hw_timestamps = true;  // completion times are exact (virtual) NIC times
    caps.max_workers = 1;
    caps.max_outstanding_per_flow = kSimSendQueueDepth;
    return caps;
  }

  Status open(const Topology& topology) override {
    if (state_ != State::closed) return order_error("open()", "close() first");
    if (!(topology.port_rate_bps > 0.0) || !std::isfinite(topology.port_rate_bps)) {
      return make_error(Errc::invalid_config, "sim: the port rate must be > 0 bit/s", "port.rate");
    }
    if (topology.propagation_delay_ns < 0) {
      return make_error(Errc::invalid_config, "sim: the propagation delay must be >= 0",
                        "port.propagation_delay");
    }
    if (topology.workers != 1) {
      return make_error(Errc::not_supported, "sim: the simulator runs one worker (asked for " +
                                                 std::to_string(topology.workers) + ")");
    }
    topology_ = topology;
    state_ = State::opened;
    return {};
  }

  Status apply(const policy::QosPlan& plan) override {
    if (state_ != State::opened && state_ != State::applied) {
      return order_error("apply()", "open() first, and before start()");
    }
    if (plan.tree.elements.empty()) {
      return make_error(Errc::invalid_config, "sim: the plan has no scheduling tree", "sched");
    }
    if (plan.flows.size() != topology_.flow_count) {
      return make_error(Errc::invalid_config, "sim: the plan has " +
                                                  std::to_string(plan.flows.size()) +
                                                  " flows but the topology was opened for " +
                                                  std::to_string(topology_.flow_count));
    }
    for (size_t f = 0; f < plan.flows.size(); ++f) {
      if (plan.flows[f].leaf >= plan.tree.elements.size()) {
        return make_error(Errc::invalid_config,
                          "sim: flow '" + plan.flows[f].name + "' is attached to element " +
                              std::to_string(plan.flows[f].leaf) + ", which does not exist",
                          "flows[" + std::to_string(f) + "]");
      }
    }
    port_.configure(topology_, plan);
    state_ = State::applied;
    return {};
  }

  Status start() override {
    if (state_ != State::applied) return order_error("start()", "apply() first");
    port_.start();
    state_ = State::started;
    return {};
  }

  Queue& queue(uint32_t /*worker*/) override { return port_; }
  Clock& clock(uint32_t /*worker*/) override { return port_; }

  Status stop() override {
    if (state_ != State::started) return order_error("stop()", "start() first");
    port_.stop();
    state_ = State::stopped;
    return {};
  }

  DriverStats stats() const override {
    const sim::PortStats& s = port_.stats();
    const double virtual_ns = static_cast<double>(port_.now_ps()) / 1000.0;
    return {
        {"packets", static_cast<double>(s.packets)},
        {"messages", static_cast<double>(s.messages)},
        {"posted_messages", static_cast<double>(s.posted_messages)},
        {"wire_bytes", static_cast<double>(s.wire_bytes)},
        {"payload_bytes", static_cast<double>(s.payload_bytes)},
        {"completions", static_cast<double>(s.completions)},
        {"events", static_cast<double>(s.steps)},
        {"virtual_time_ns", virtual_ns},
        {"link_utilisation",
         port_.now_ps() > 0 ? static_cast<double>(s.busy_ps) / static_cast<double>(port_.now_ps())
                            : 0.0},
        {"max_send_queue_depth", static_cast<double>(s.max_send_queue_depth)},
        {"rejected_posts", static_cast<double>(s.rejected_posts)},
        {"ring_stalls", static_cast<double>(s.ring_stalls)},
        {"rx_ring_capacity", static_cast<double>(port_.rx_ring_capacity())},
        {"tx_done_ring_capacity", static_cast<double>(port_.tx_done_ring_capacity())},
    };
  }

  void close() noexcept override {
    port_.stop();
    state_ = State::closed;
  }

 private:
  enum class State { closed, opened, applied, started, stopped };

  static Error order_error(const char* call, const char* hint) {
    return make_error(Errc::runtime, std::string("sim: ") + call + " out of order: " + hint);
  }

  State state_ = State::closed;
  Topology topology_;
  sim::SimPort port_;
};

}  // namespace

std::unique_ptr<Driver> make_sim_driver() {
  return std::make_unique<SimDriver>();
}

}  // namespace qb::drv
