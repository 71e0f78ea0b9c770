// One updating status line on stderr while a suite runs on a terminal:
// "scenario i/N "name", repetition r/R, elapsed, ETA". Redrawn when a repetition finishes and
// a few times a second in between (so elapsed moves during long repetitions); cleared at the end.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace qb::cli {

class ProgressLine {
 public:
  /// `repetitions[i]`: how many repetitions scenario i runs.
  ProgressLine(std::FILE* out, std::vector<std::string> scenario_names,
               std::vector<uint32_t> repetitions);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  /// The engine's on_progress hook (serialised by the engine, any thread).
  void on_repetition(uint32_t scenario, uint32_t done, uint32_t total);
  /// Stops the redraws and erases the line.
  void finish();

  /// The text of the line (no control characters) for a state, at most `max_width` bytes: a
  /// long scenario name is shortened so the line never wraps (a wrapped line is not redrawn).
  static std::string format(uint32_t scenario, uint32_t scenarios, const std::string& name,
                            uint32_t reps_done, uint32_t reps, uint32_t done, uint32_t total,
                            double elapsed_s, double last_done_s, size_t max_width);

 private:
  void draw_locked();

  std::FILE* out_;
  std::vector<std::string> names_;
  std::vector<uint32_t> repetitions_;
  std::vector<uint32_t> done_per_scenario_;
  uint32_t current_ = 0;
  uint32_t done_ = 0;
  uint32_t total_ = 0;
  double last_done_s_ = 0.0;  // elapsed when the last repetition finished
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread ticker_;
};

/// True when progress should be shown: stderr is a terminal and --quiet was not given.
bool progress_wanted(bool quiet);

}  // namespace qb::cli
