// What `run` shows on stderr while it goes:
// - on a terminal: interval lines (interval_lines.hpp), in colour unless NO_COLOR is set, above
//   one status line redrawn a few times a second: "scenario i/N "name", repetition r/R,
//   p% of the run time, elapsed, ETA", erased at the end;
// - anywhere else: the interval lines only, plain;
// - with --quiet: nothing (the caller does not make one).
// The engine hands intervals over from its worker threads; they are printed from this class's
// own thread, so a slow terminal or a full pipe never holds up a worker.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "interval_lines.hpp"
#include "qb/engine/live.hpp"

namespace qb::cli {

struct LiveConsoleOptions {
  bool status_line = false;  // a terminal: the redrawn status line
  bool intervals = true;     // the interval lines (--interval 0: none)
  IntervalStyle style;
};

/// A scenario as the console names it.
struct LiveScenario {
  std::string name;  // terminal-safe
  uint32_t repetitions = 1;
  IntervalLabels labels;
};

class LiveConsole {
 public:
  /// `progress`: the run time covered, filled by the engine (RunOptions::progress).
  LiveConsole(std::FILE* out, LiveConsoleOptions options, std::vector<LiveScenario> scenarios,
              const engine::RunProgress* progress);
  ~LiveConsole();
  LiveConsole(const LiveConsole&) = delete;
  LiveConsole& operator=(const LiveConsole&) = delete;

  /// The engine's on_interval hook: queues the lines (any thread).
  void on_interval(const engine::LiveInterval& interval);
  /// The engine's on_progress hook (serialised by the engine, any thread).
  void on_repetition(uint32_t scenario, uint32_t done, uint32_t total);
  /// Prints what is queued, erases the status line and stops the thread.
  void finish();

  /// The status line's text (no control characters) for a state, at most `max_width` bytes: a
  /// long scenario name is shortened so the line never wraps (a wrapped line is not redrawn).
  /// `fraction`: the run time covered so far; the ETA is what the pace so far gives the rest.
  static std::string status(uint32_t scenario, uint32_t scenarios, const std::string& name,
                            uint32_t reps_done, uint32_t reps, uint32_t done, uint32_t total,
                            double fraction, double elapsed_s, size_t max_width);

 private:
  void print_locked();

  std::FILE* out_;
  LiveConsoleOptions options_;
  std::vector<LiveScenario> scenarios_;
  const engine::RunProgress* progress_;
  std::vector<uint32_t> done_per_scenario_;
  uint32_t current_ = 0;
  uint32_t done_ = 0;
  uint32_t total_ = 0;
  bool finished_ = false;
  std::deque<std::string> queued_;  // interval lines not printed yet
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread printer_;
};

/// True when anything live should be shown: --quiet was not given.
bool live_wanted(bool quiet);
/// True when stderr is a terminal (the status line and colour).
bool stderr_is_terminal();

}  // namespace qb::cli
