// The simulated port the sim driver drives: picks the model's shape for the plan once (the
// factory: SimModel<SingleLink> when the plan has no fabric and no rate-control program is
// attached, SimModel<Fabric> otherwise; see sim_model.hpp for why two instantiations of one
// model) and owns it. The engine gets the model itself as its Queue and Clock, so the
// per-burst calls reach it with one indirect call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <variant>

#include "qb/drivers/driver.hpp"
#include "sim_model.hpp"

namespace qb::drv::sim {

class SimPort {
 public:
  /// A rate-control program for the runs configured from now on (nullptr: none). It must
  /// outlive them.
  void attach(RateControl* program) noexcept { program_ = program; }
  /// Builds the model for one run. Validation is the driver's job.
  void configure(const Topology& topology, const policy::QosPlan& plan);
  /// Time zero; empties every queue and ring.
  void start() noexcept {
    std::visit([](auto& model) { model.start(); }, model_);
  }
  void stop() noexcept {
    std::visit([](auto& model) { model.stop(); }, model_);
  }

  Queue& queue() noexcept {
    return std::visit([](auto& model) -> Queue& { return model; }, model_);
  }
  Clock& clock() noexcept {
    return std::visit([](auto& model) -> Clock& { return model; }, model_);
  }

  /// Whether the plan has a fabric (port QoS, hosts, a switch, drops): the driver reports the
  /// fabric counters then (and only then, so a plain plan's results keep their fields).
  bool fabric() const noexcept { return fabric_; }

  int64_t now_ps() const noexcept {
    return std::visit([](const auto& m) { return m.now_ps(); }, model_);
  }
  const PortStats& stats() const noexcept {
    return std::visit([](const auto& model) -> const PortStats& { return model.stats(); }, model_);
  }
  size_t rx_ring_capacity() const noexcept {
    return std::visit([](const auto& m) { return m.rx_ring_capacity(); }, model_);
  }
  size_t tx_done_ring_capacity() const noexcept {
    return std::visit([](const auto& m) { return m.tx_done_ring_capacity(); }, model_);
  }
  uint32_t hosts() const noexcept {
    return std::visit([](const auto& m) { return m.hosts(); }, model_);
  }
  bool switched() const noexcept {
    return std::visit([](const auto& m) { return m.switched(); }, model_);
  }
  /// Whether the switch drops (lossy mode) instead of holding the NICs back.
  bool lossy() const noexcept {
    return std::visit([](const auto& m) { return m.lossy_fabric(); }, model_);
  }
  /// Bytes of switch buffer per (ingress host, switch class).
  /// Lossy: bytes of each switch egress class's buffer.
  int64_t lossy_buffer_bytes() const noexcept {
    return std::visit([](const auto& m) { return m.lossy_buffer_bytes(); }, model_);
  }
  int64_t switch_buffer_bytes() const noexcept {
    return std::visit([](const auto& m) { return m.switch_buffer_bytes(); }, model_);
  }
  /// Classes that have flows, at the NIC ports and at the switch egress.
  uint32_t nic_class_mask() const noexcept {
    return std::visit([](const auto& m) { return m.nic_class_mask(); }, model_);
  }
  uint32_t switch_class_mask() const noexcept {
    return std::visit([](const auto& m) { return m.switch_class_mask(); }, model_);
  }
  /// Switch egress class queue depth arriving packets saw (0 without a switch).
  int64_t queue_depth_percentile_bytes(double fraction) const noexcept {
    return std::visit(
        [fraction](const auto& m) { return m.queue_depth_percentile_bytes(fraction); }, model_);
  }
  /// Switch egress class `c`'s depth per bin of the measured window, up to now.
  void queue_depth_series(uint32_t c, std::vector<double>& max_bytes,
                          std::vector<double>& mean_bytes) const {
    std::visit([&](const auto& m) { m.queue_depth_series(c, max_bytes, mean_bytes); }, model_);
  }
  int64_t queue_depth_max_bytes() const noexcept {
    return std::visit([](const auto& m) { return m.queue_depth_max_bytes(); }, model_);
  }
  /// Per flow: its packets dropped inside the measured window.
  const std::vector<uint64_t>& flow_drops() const noexcept {
    return std::visit([](const auto& m) -> const std::vector<uint64_t>& { return m.flow_drops(); },
                      model_);
  }
  /// Switch buffers, one per (ingress host, switch class); see SimModel.
  uint32_t switch_buffer_count() const noexcept {
    return std::visit([](const auto& m) { return m.switch_buffer_count(); }, model_);
  }
  bool buffer_has_flows(uint32_t buffer) const noexcept {
    return std::visit([buffer](const auto& m) { return m.buffer_has_flows(buffer); }, model_);
  }
  uint32_t host_of_buffer(uint32_t buffer) const noexcept {
    return std::visit([buffer](const auto& m) { return m.host_of_buffer(buffer); }, model_);
  }
  uint32_t class_of_buffer(uint32_t buffer) const noexcept {
    return std::visit([buffer](const auto& m) { return m.class_of_buffer(buffer); }, model_);
  }
  /// Switch class `c`: the share of its hosts' time waiting for credit per bin, up to now.
  void backpressure_series(uint32_t c, std::vector<double>& paused_fraction) const {
    std::visit([&](const auto& m) { m.backpressure_series(c, paused_fraction); }, model_);
  }
  /// How long the senders of switch buffer `buffer` waited for credit, by now.
  int64_t backpressure_paused_ps(uint32_t buffer) const noexcept {
    return std::visit([buffer](const auto& m) { return m.backpressure_paused_ps(buffer); }, model_);
  }

 private:
  std::variant<SimModel<SingleLink>, SimModel<Fabric>> model_;
  RateControl* program_ = nullptr;
  bool fabric_ = false;
};

}  // namespace qb::drv::sim
