// The sim driver's control path: state checks and validation around the SimPort model.
#include "qb/drivers/sim_driver.hpp"

#include <algorithm>
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
    if (Status status = validate_fabric(plan); !status) return status;
    port_.configure(topology_, plan);
    nic_qos_ = plan.nic_qos;
    switch_qos_ = plan.switch_qos;
    state_ = State::applied;
    return {};
  }

  Status start() override {
    if (state_ != State::applied) return order_error("start()", "apply() first");
    port_.start();
    state_ = State::started;
    return {};
  }

  Queue& queue(uint32_t /*worker*/) override { return port_.queue(); }
  Clock& clock(uint32_t /*worker*/) override { return port_.clock(); }

  Status stop() override {
    if (state_ != State::started) return order_error("stop()", "start() first");
    port_.stop();
    state_ = State::stopped;
    return {};
  }

  DriverStats stats() const override {
    const sim::PortStats& s = port_.stats();
    const double virtual_ns = static_cast<double>(port_.now_ps()) / 1000.0;
    DriverStats stats = {
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
    if (port_.fabric()) add_fabric_stats(stats);
    return stats;
  }

  // The fabric's counters; absent for a plan without one, so its results keep their fields.
  void add_fabric_stats(DriverStats& stats) const {
    const sim::PortStats& s = port_.stats();
    const double now_ps = static_cast<double>(port_.now_ps());
    // Utilisation of the bottleneck: the switch egress, or the mean over the hosts' links.
    const double busy = port_.switched() ? static_cast<double>(s.switch_busy_ps)
                                         : static_cast<double>(s.busy_ps) / port_.hosts();
    for (auto& [name, value] : stats) {
      if (name == "link_utilisation") value = now_ps > 0 ? busy / now_ps : 0.0;
    }
    stats.emplace_back("hosts", static_cast<double>(port_.hosts()));
    stats.emplace_back("drops", static_cast<double>(s.drops));
    stats.emplace_back("dropped_messages", static_cast<double>(s.dropped_messages));
    for (uint32_t m = port_.nic_class_mask(); m != 0; m &= m - 1) {
      const auto c = static_cast<uint32_t>(__builtin_ctz(m));
      const std::string name = policy::arb_class_name(nic_qos_, c);
      stats.emplace_back("class_packets." + name, static_cast<double>(s.class_packets[c]));
      stats.emplace_back("class_wire_bytes." + name, static_cast<double>(s.class_wire_bytes[c]));
    }
    if (!port_.switched()) return;
    for (uint32_t m = port_.switch_class_mask(); m != 0; m &= m - 1) {
      const auto c = static_cast<uint32_t>(__builtin_ctz(m));
      const std::string name = policy::arb_class_name(switch_qos_, c);
      stats.emplace_back("switch_class_packets." + name,
                         static_cast<double>(s.switch_class_packets[c]));
      stats.emplace_back("switch_class_wire_bytes." + name,
                         static_cast<double>(s.switch_class_wire_bytes[c]));
    }
    stats.emplace_back("switch_buffer_bytes", static_cast<double>(port_.switch_buffer_bytes()));
    stats.emplace_back("switch_buffer_high_water_bytes",
                       static_cast<double>(s.switch_buffer_high_water_bytes));
    stats.emplace_back("credit_pauses", static_cast<double>(s.credit_pauses));
  }

  static Status validate_fabric(const policy::QosPlan& plan) {
    const uint32_t hosts = std::max<uint32_t>(1, plan.hosts);
    auto classes = [](const policy::PortQos& qos) -> uint32_t {
      switch (qos.kind) {
        case policy::PortQos::Kind::ets:
          return 8;
        case policy::PortQos::Kind::vlarb:
          return 15;
        case policy::PortQos::Kind::none:
          break;
      }
      return 1;
    };
    if (plan.switched && !(plan.switch_rate_bps >= 0.0 && std::isfinite(plan.switch_rate_bps))) {
      return make_error(Errc::invalid_config, "sim: the switch rate must be >= 0 bit/s",
                        "fabric.switch_rate");
    }
    for (size_t f = 0; f < plan.flows.size(); ++f) {
      const policy::FlowPlan& flow = plan.flows[f];
      const std::string where = "flows[" + std::to_string(f) + "]";
      if (flow.host >= hosts) {
        return make_error(Errc::invalid_config,
                          "sim: flow '" + flow.name + "' is on host " + std::to_string(flow.host) +
                              " of " + std::to_string(hosts),
                          where);
      }
      if (plan.nic_qos.kind != policy::PortQos::Kind::none && !flow.dropped &&
          flow.arb_class >= classes(plan.nic_qos)) {
        return make_error(Errc::invalid_config,
                          "sim: flow '" + flow.name + "' has arbitration class " +
                              std::to_string(flow.arb_class) + ", beyond the port's",
                          where);
      }
      if (plan.switched && plan.switch_qos.kind != policy::PortQos::Kind::none && !flow.dropped &&
          flow.switch_arb_class >= classes(plan.switch_qos)) {
        return make_error(Errc::invalid_config,
                          "sim: flow '" + flow.name + "' has switch arbitration class " +
                              std::to_string(flow.switch_arb_class) + ", beyond the switch port's",
                          where);
      }
    }
    return {};
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
  policy::PortQos nic_qos_;
  policy::PortQos switch_qos_;
  sim::SimPort port_;
};

}  // namespace

std::unique_ptr<Driver> make_sim_driver() {
  return std::make_unique<SimDriver>();
}

}  // namespace qb::drv
