// The sim driver's control path: state checks and validation around the SimPort model.
#include "sim_driver.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include "dpa_rate_control.hpp"
#include "graph_model.hpp"
#include "qb/drivers/registry.hpp"
#include "sim_port.hpp"

namespace qb::drv {
namespace {

class SimDriver final : public DriverBackend {
 public:
  Capabilities capabilities() const override {
    Capabilities caps;
    caps.virtual_time = true;
    caps.hw_sched_tree = true;  // the model enforces the mlx5 tree like the NIC does
    caps.hw_timestamps = true;  // completion times are exact (virtual) NIC times
    caps.max_workers = 1;
    caps.max_outstanding_per_flow = kSimSendQueueDepth;
    caps.max_hosts = UINT32_MAX;  // hosts meet at the simulated switch
    caps.congestion_model = true;
    caps.fabric_graph = true;
    return caps;
  }

  Status check_plan(const policy::QosPlan& /*plan*/, const PlanContext& /*context*/) const override {
    return {};
  }

  Status open(const Topology& topology) override {
    topology_ = topology;
    return {};
  }

  Status apply(const policy::QosPlan& plan) override {
    program_.reset();
    graph_.reset();
    if (!plan.congestion.dpa.program.empty()) {
      try {
        program_ = std::make_unique<sim::DpaRateControl>(
            plan.congestion.dpa, static_cast<uint32_t>(plan.flows.size()), topology_.port_rate_bps);
      } catch (const std::invalid_argument& error) {
        return make_error(Errc::invalid_config, error.what());
      }
    }
    if (plan.graph) {
      graph_plan_ = plan.graph;  // the model reads it for the whole run
      graph_ = std::make_unique<sim::GraphModel>();
      graph_->attach(program_.get());
      graph_->configure(topology_, plan);
      // The congestion counters only for plans that mark, run a program, drop or gate on the
      // queue (every graph plan has its links' queue percentiles).
      congestion_ = plan.congestion.reports_switch_queue();
      return {};
    }
    port_.attach(program_.get());
    port_.configure(topology_, plan);
    nic_qos_ = plan.nic_qos;
    switch_qos_ = plan.switch_qos;
    // Only for plans that mark, run a program or gate on the queue: the other switched plans'
    // results keep their fields.
    congestion_ = plan.switched && plan.congestion.reports_switch_queue();
    return {};
  }

  Status start() override {
    if (graph_) {
      graph_->start();
      return {};
    }
    port_.start();
    return {};
  }

  Queue& queue(uint32_t /*worker*/) override {
    if (graph_) return *graph_;
    return port_.queue();
  }
  Clock& clock(uint32_t /*worker*/) override {
    if (graph_) return *graph_;
    return port_.clock();
  }

  Status stop() override {
    if (graph_) graph_->stop();
    port_.stop();
    return {};
  }

  DriverStats stats() const override {
    if (graph_) return graph_stats();
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
    if (program_) program_->add_stats(stats, port_.now_ps() / 1000);
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
    // Every packet the fabric dropped: VL15 discards at the NICs and lossy switch drops.
    stats.emplace_back("drops", static_cast<double>(s.drops + s.switch_drops));
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
    // Lossy: no credit buffers; the high water is of the egress class buffers
    // (lossy_buffer_bytes).
    if (!port_.lossy()) {
      stats.emplace_back("switch_buffer_bytes", static_cast<double>(port_.switch_buffer_bytes()));
    }
    stats.emplace_back("switch_buffer_high_water_bytes",
                       static_cast<double>(s.switch_buffer_high_water_bytes));
    stats.emplace_back("credit_pauses", static_cast<double>(s.credit_pauses));
    add_backpressure_stats(stats);
    if (port_.lossy()) add_lossy_stats(stats);
    if (congestion_) add_congestion_stats(stats);
  }

  // Time the senders waited for switch credit (lossless back-pressure), per sending host and
  // switch class (each buffer that flows feed), and in all (the sum).
  void add_backpressure_stats(DriverStats& stats) const {
    int64_t total_ps = 0;
    const size_t total_at = stats.size();
    stats.emplace_back("backpressure_paused_ns", 0.0);
    for (uint32_t b = 0; b < port_.switch_buffer_count(); ++b) {
      if (!port_.buffer_has_flows(b)) continue;
      const int64_t paused_ps = port_.backpressure_paused_ps(b);
      total_ps += paused_ps;
      stats.emplace_back("backpressure_paused_ns.h" + std::to_string(port_.host_of_buffer(b)) +
                             "." + policy::arb_class_name(switch_qos_, port_.class_of_buffer(b)),
                         static_cast<double>(paused_ps) / 1000.0);
    }
    stats[total_at].second = static_cast<double>(total_ps) / 1000.0;
  }

  std::vector<uint64_t> flow_drops() const override {
    if (graph_) return graph_->flow_drops();
    return port_.flow_drops();
  }

  // The graph model's counters: the whole fabric's, then per channel that carried anything in
  // the measured window (utilisation, bytes, the most bytes queued, pause time per class).
  DriverStats graph_stats() const {
    const sim::GraphStats& s = graph_->stats();
    const policy::FabricPlan& g = *graph_plan_;
    const double window_ps = static_cast<double>(topology_.window_end_ns - topology_.window_start_ns) * 1000.0;
    DriverStats stats = {
        {"packets", static_cast<double>(s.packets)},
        {"messages", static_cast<double>(s.messages)},
        {"posted_messages", static_cast<double>(s.posted_messages)},
        {"wire_bytes", static_cast<double>(s.wire_bytes)},
        {"payload_bytes", static_cast<double>(s.payload_bytes)},
        {"completions", static_cast<double>(s.completions)},
        {"events", static_cast<double>(s.events)},
        {"virtual_time_ns", static_cast<double>(graph_->now_ps()) / 1000.0},
        {"max_send_queue_depth", static_cast<double>(s.max_send_queue_depth)},
        {"rejected_posts", static_cast<double>(s.rejected_posts)},
        {"hosts", static_cast<double>(g.host_count())},
        {"channels", static_cast<double>(g.channel_count())},
        {"dropped_messages", static_cast<double>(s.dropped_messages)},
    };
    if (congestion_) {
      stats.emplace_back("ecn_marks", static_cast<double>(s.ecn_marks));
      stats.emplace_back("cnps", static_cast<double>(s.cnps));
      int64_t class_max_bytes = 0;  // the deepest class queue of any switch egress
      for (uint32_t ch = 0; ch < g.channel_count(); ++ch) {
        if (!g.from_host(ch)) {
          class_max_bytes =
              std::max(class_max_bytes, graph_->channel_stats()[ch].class_queue_max_bytes);
        }
      }
      stats.emplace_back("switch_queue_max_bytes", static_cast<double>(class_max_bytes));
    }
    if (graph_->lossy()) add_graph_lossy_stats(stats);
    int64_t paused_total_ps = 0;
    const std::vector<sim::ChannelStats>& channels = graph_->channel_stats();
    for (uint32_t ch = 0; ch < channels.size(); ++ch) {
      const sim::ChannelStats& c = channels[ch];
      int64_t paused_ps = 0;
      for (const int64_t p : c.paused_ps) paused_ps += p;
      if (c.packets == 0 && paused_ps == 0 && c.drops == 0) continue;
      const std::string prefix = "link." + g.channel_names[ch] + ".";
      stats.emplace_back(prefix + "utilisation",
                         window_ps > 0 ? static_cast<double>(c.busy_ps) / window_ps : 0.0);
      stats.emplace_back(prefix + "wire_bytes", static_cast<double>(c.wire_bytes));
      if (!g.to_host(ch) || !g.from_host(ch)) {
        stats.emplace_back(prefix + "queue_max_bytes", static_cast<double>(c.queue_max_bytes));
      }
      if (!g.from_host(ch)) {  // a switch egress: the depths its packets found
        stats.emplace_back(prefix + "queue_p50_bytes",
                           static_cast<double>(c.depth.percentile_bytes(0.50)));
        stats.emplace_back(prefix + "queue_p99_bytes",
                           static_cast<double>(c.depth.percentile_bytes(0.99)));
      }
      if (congestion_ && !g.from_host(ch)) {  // a switch egress (a NIC port marks nothing)
        stats.emplace_back(prefix + "ecn_marks", static_cast<double>(c.ecn_marks));
      }
      if (graph_->lossy() && !g.from_host(ch)) {
        stats.emplace_back(prefix + "drops", static_cast<double>(c.drops));
      }
      for (uint32_t k = 0; k < c.paused_ps.size(); ++k) {
        if (c.paused_ps[k] == 0) continue;
        paused_total_ps += c.paused_ps[k];
        stats.emplace_back(prefix + "paused_ns." +
                               policy::arb_class_name(g.channel_qos[ch], k),
                           static_cast<double>(c.paused_ps[k]) / 1000.0);
      }
    }
    stats.emplace_back("paused_ns", static_cast<double>(paused_total_ps) / 1000.0);
    if (program_) program_->add_stats(stats, graph_->now_ps() / 1000);
    return stats;
  }

  // The graph model's drops, NACKs and retransmissions (lossy mode; named as the one-switch
  // model's).
  void add_graph_lossy_stats(DriverStats& stats) const {
    const sim::GraphStats& s = graph_->stats();
    stats.emplace_back("lossy_buffer_bytes", static_cast<double>(graph_->lossy_buffer_bytes()));
    stats.emplace_back("switch_drops", static_cast<double>(s.switch_drops));
    stats.emplace_back("out_of_sequence_packets", static_cast<double>(s.out_of_sequence_packets));
    stats.emplace_back("nacks", static_cast<double>(s.nacks));
    stats.emplace_back("retransmitted_packets", static_cast<double>(s.retransmitted_packets));
    stats.emplace_back("retransmitted_wire_bytes", static_cast<double>(s.retransmitted_wire_bytes));
    stats.emplace_back("retransmit_timeouts", static_cast<double>(s.retransmit_timeouts));
  }

  // Drops, NACKs and retransmissions of a lossy fabric (only then: the lossless plans' results
  // keep their fields).
  void add_lossy_stats(DriverStats& stats) const {
    const sim::PortStats& s = port_.stats();
    stats.emplace_back("lossy_buffer_bytes", static_cast<double>(port_.lossy_buffer_bytes()));
    stats.emplace_back("switch_drops", static_cast<double>(s.switch_drops));
    for (uint32_t m = port_.switch_class_mask(); m != 0; m &= m - 1) {
      const auto c = static_cast<uint32_t>(__builtin_ctz(m));
      stats.emplace_back("switch_class_drops." + policy::arb_class_name(switch_qos_, c),
                         static_cast<double>(s.switch_class_drops[c]));
    }
    stats.emplace_back("out_of_sequence_packets", static_cast<double>(s.out_of_sequence_packets));
    stats.emplace_back("nacks", static_cast<double>(s.nacks));
    stats.emplace_back("retransmitted_packets", static_cast<double>(s.retransmitted_packets));
    stats.emplace_back("retransmitted_wire_bytes", static_cast<double>(s.retransmitted_wire_bytes));
    stats.emplace_back("retransmit_timeouts", static_cast<double>(s.retransmit_timeouts));
  }

  // ECN marks, CNPs and the egress queue arriving packets saw; only for a plan that marks or
  // runs a program, so the other fabric plans' results keep their fields.
  void add_congestion_stats(DriverStats& stats) const {
    const sim::PortStats& s = port_.stats();
    stats.emplace_back("ecn_marks", static_cast<double>(s.ecn_marks));
    stats.emplace_back("cnps", static_cast<double>(s.cnps));
    stats.emplace_back("switch_queue_p50_bytes",
                       static_cast<double>(port_.queue_depth_percentile_bytes(0.50)));
    stats.emplace_back("switch_queue_p99_bytes",
                       static_cast<double>(port_.queue_depth_percentile_bytes(0.99)));
    stats.emplace_back("switch_queue_max_bytes",
                       static_cast<double>(port_.queue_depth_max_bytes()));
  }

  std::vector<QueueDepthSeries> queue_depth_series() const override {
    std::vector<QueueDepthSeries> out;
    if (graph_) {  // its bottleneck egresses' classes (GraphModel::series)
      const policy::FabricPlan& g = *graph_plan_;
      for (uint32_t i = 0; i < graph_->series().size(); ++i) {
        const sim::GraphSeries& series = graph_->series()[i];
        QueueDepthSeries& q = out.emplace_back();
        q.name = g.channel_names[series.channel] + " " +
                 policy::arb_class_name(g.channel_qos[series.channel], series.c);
        graph_->series_bins(i, q.max_bytes, q.mean_bytes);
      }
      return out;
    }
    if (!congestion_) return out;
    for (uint32_t m = port_.switch_class_mask(); m != 0; m &= m - 1) {
      const auto c = static_cast<uint32_t>(__builtin_ctz(m));
      QueueDepthSeries& q = out.emplace_back();
      q.name = policy::arb_class_name(switch_qos_, c);
      port_.queue_depth_series(c, q.max_bytes, q.mean_bytes);
    }
    return out;
  }

  // Every lossless switched plan with bins: back-pressure may hold shares with or without a
  // congestion-control program.
  std::vector<BackpressureSeries> backpressure_series() const override {
    std::vector<BackpressureSeries> out;
    if (graph_ || !port_.switched() || port_.lossy()) return out;
    for (uint32_t m = port_.switch_class_mask(); m != 0; m &= m - 1) {
      const auto c = static_cast<uint32_t>(__builtin_ctz(m));
      BackpressureSeries series;
      series.name = policy::arb_class_name(switch_qos_, c);
      port_.backpressure_series(c, series.paused_fraction);
      if (!series.paused_fraction.empty()) out.push_back(std::move(series));
    }
    return out;
  }

  void close() noexcept override {
    if (graph_) graph_->stop();
    port_.stop();
  }

 private:
  Topology topology_;
  policy::PortQos nic_qos_;
  policy::PortQos switch_qos_;
  bool congestion_ = false;
  sim::SimPort port_;
  std::unique_ptr<sim::DpaRateControl> program_;  // the plan's DPA program, attached to port_
  std::unique_ptr<sim::GraphModel> graph_;         // a multi-switch fabric's model, else null
  std::shared_ptr<const policy::FabricPlan> graph_plan_;
};

// The simulator has no options: [driver.sim] may exist but must be empty.
struct SimOptions final : DriverOptions {};

}  // namespace

std::unique_ptr<Driver> make_sim_driver() {
  return std::make_unique<Driver>("sim", std::make_unique<SimDriver>());
}

DriverEntry sim_driver_entry() {
  DriverEntry entry;
  entry.available = true;
  entry.contract_options = {""};
  entry.parse_options = [](const ConfigTable& table) -> std::unique_ptr<const DriverOptions> {
    table.allow_only({});
    return std::make_unique<SimOptions>();
  };
  entry.create = [](const DriverOptions&) -> Result<std::unique_ptr<DriverBackend>> {
    return std::unique_ptr<DriverBackend>(std::make_unique<SimDriver>());
  };
  return entry;
}

}  // namespace qb::drv
