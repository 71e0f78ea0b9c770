// The generic driver layer (what DPDK's rte_ethdev.c is to its PMDs): one Driver wraps a
// backend, enforces the control-path order and validates the topology and the plan against the
// backend's capabilities once, then calls the backend. Callers (the engine, tests) use only this.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "qb/drivers/backend.hpp"

namespace qb::drv {

class Driver final {
 public:
  Driver(std::string name, std::unique_ptr<DriverBackend> backend);
  ~Driver();
  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;

  std::string_view name() const noexcept { return name_; }
  Capabilities capabilities() const { return backend_->capabilities(); }

  /// Whether this driver can run `plan`, in any state and before open(): the capabilities'
  /// limits (hosts, DPA program, ECN, lossy switch; flows on elements, hosts and classes the
  /// plan's ports have) and the backend's own check_plan(). Errors name the suite key in `where`
  /// (Errc::not_supported for what the driver cannot do, Errc::invalid_config for a plan at odds
  /// with itself or the driver's options).
  Status check_plan(const policy::QosPlan& plan, const PlanContext& context) const;

  /// Errc::invalid_config for a port rate that is not > 0 or a negative propagation delay;
  /// Errc::not_supported for more workers or flows than the driver runs; Errc::runtime when
  /// called out of order.
  Status open(const Topology& topology);
  /// Errc::invalid_config when the plan does not match the opened topology, has no tree (for a
  /// driver that needs one), a flow on no element, a host or class the plan's ports do not have;
  /// Errc::not_supported for more hosts than the driver runs.
  Status apply(const policy::QosPlan& plan);
  Status start();
  /// Valid from apply() until close() (a stopped driver's queue accepts nothing), for worker <
  /// the opened topology's workers; anything else is a programming error and aborts.
  Queue& queue(uint32_t worker);
  Clock& clock(uint32_t worker);
  Status stop();
  DriverStats stats() const { return backend_->stats(); }
  std::vector<QueueDepthSeries> queue_depth_series() const {
    return backend_->queue_depth_series();
  }
  std::vector<BackpressureSeries> backpressure_series() const {
    return backend_->backpressure_series();
  }
  std::vector<uint64_t> flow_drops() const { return backend_->flow_drops(); }
  /// Idempotent; a closed driver can be opened again.
  void close() noexcept;

 private:
  enum class State { closed, opened, applied, started, stopped };

  Error order_error(const char* call, const char* hint) const;
  Error invalid(Errc code, std::string message, std::string where = {}) const;
  Status check_capabilities(const policy::QosPlan& plan, const Capabilities& caps) const;
  void check_worker(const char* call, uint32_t worker) const noexcept;

  std::string name_;
  std::unique_ptr<DriverBackend> backend_;
  State state_ = State::closed;
  Topology topology_;
};

}  // namespace qb::drv
