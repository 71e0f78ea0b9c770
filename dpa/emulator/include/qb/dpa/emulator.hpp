// The DPA emulator: runs a DPA program (dpa/include/qb_dpa/device_api.h) the way a DPA would,
// for a runtime that feeds it events in time order (the simulator's rate-control adapter,
// drivers/sim/dpa_rate_control.cpp). It knows nothing of the simulator.
//
// Model (docs/dpa.md, "The emulator"):
// - `threads` DPA threads; a flow's events always go to thread `flow % threads`, in order (as a
//   flow's CQ is bound to one DPA thread), and one thread runs one handler at a time.
// - Each handler costs `handler_cost_ns` of its thread's time. An event waits while its thread
//   is busy; the handler runs when the thread takes it (event.now_ns is then that start time)
//   and its actions apply when it ends (start + cost).
// - A thread holds at most `queue_events` events waiting or running; an event arriving at a
//   full thread is dropped and counted (an overloaded DPA).
// - Because a thread's queue is FIFO and costs are fixed, an event's start and end are known
//   when it arrives: post() runs the handler at once and returns the actions with the time
//   they apply. The runtime applies them at that time, in time order.
// - Rates out of [QB_DPA_RATE_MIN, QB_DPA_RATE_LINE] (zero included) are clamped and counted.
// - Events the program does not take (a kind outside its event_mask or unknown, a flow out of
//   range) are not accepted and cost no thread time; they are not drops.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "qb/dpa/thread_queues.hpp"
#include "qb_dpa/device_api.h"

namespace qb::dpa {

struct EmulatorConfig {
  const qb_dpa_program* program = nullptr;
  std::vector<int64_t> params;  // in the order of program->params; empty: every default
  uint32_t threads = 1;
  int64_t handler_cost_ns = 0;
  uint32_t queue_events = 64;   // per thread, waiting or running
  uint64_t line_rate_mbps = 0;  // the sender port's line rate, handed to the program; >= 1
};

/// What the emulator counted over a run (results: driver stats "dpa_*").
struct EmulatorStats {
  uint64_t events = 0;                // posted and handled
  uint64_t dropped_events = 0;        // posted to a full thread
  uint64_t rate_clamps = 0;           // SET_RATE outside [QB_DPA_RATE_MIN, QB_DPA_RATE_LINE]
  uint64_t queue_delay_total_ns = 0;  // sum over handled events of start - arrival (saturates)
  uint64_t queue_delay_max_ns = 0;
  uint64_t busy_ns = 0;  // thread time spent in handlers, all threads
  /// Events per kind (QB_DPA_EV_*), handled ones.
  uint64_t events_by_kind[QB_DPA_EV_KINDS] = {};
};

/// The outcome of one posted event.
struct Posted {
  bool accepted = false;     // false: dropped (its thread was full), or not for the program
  uint64_t apply_ns = 0;     // when the actions apply (the handler's end)
  qb_dpa_actions actions{};  // SET_RATE's rate already clamped
};

class Emulator {
 public:
  /// Checks the config (a program, its parameter count and ranges, threads >= 1,
  /// queue_events >= 1, handler_cost_ns >= 0, line_rate_mbps >= 1, context_bytes within
  /// QB_DPA_FLOW_CONTEXT_BYTES); throws std::invalid_argument naming what is wrong and leaves
  /// the emulator as it was. Allocates everything post() needs, then start()s.
  void configure(const EmulatorConfig& config, uint32_t flows);
  /// Time zero: every context zeroed, every thread idle, stats cleared.
  void start() noexcept;

  /// An event for `event.flow` that happened at `event.now_ns` (posts come in time order).
  Posted post(const qb_dpa_event& event) noexcept;

  const EmulatorStats& stats() const noexcept { return stats_; }
  /// The stats of a run that ended at `end_ns` (after the last post): handler time and waits
  /// after it are left out (a handler queued behind a long one did not run in the run), so
  /// busy_ns is at most threads x end_ns and no wait is longer than the run.
  EmulatorStats stats_until(uint64_t end_ns) const noexcept;
  const qb_dpa_program& program() const noexcept { return *config_.program; }
  /// The parameter block the program sees (defaults filled in).
  std::span<const int64_t> params() const noexcept { return config_.params; }

 private:
  EmulatorConfig config_;
  uint32_t flows_ = 0;
  std::vector<unsigned char> contexts_;   // flows * QB_DPA_FLOW_CONTEXT_BYTES
  std::vector<uint32_t> thread_of_flow_;  // flow % threads, without a division per event
  ThreadQueues threads_;
  EmulatorStats stats_;
};

/// The program called `name` among the shipped ones (dpa/programs), or nullptr.
const qb_dpa_program* find_program(std::string_view name) noexcept;
/// Names of the shipped programs, for error messages and `qosbench drivers`.
std::vector<std::string> program_names();

}  // namespace qb::dpa
