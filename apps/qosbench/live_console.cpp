#include "live_console.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>

namespace qb::cli {
namespace {

std::string seconds(double s) {
  if (s < 60.0) return fmt::format("{:.1f}s", s);
  const auto whole = static_cast<long>(s);
  if (whole < 3600) return fmt::format("{}m{:02}s", whole / 60, whole % 60);
  return fmt::format("{}h{:02}m", whole / 3600, whole % 3600 / 60);
}

// Columns of the terminal on stderr: a line longer than that wraps and \r no longer erases it.
size_t terminal_width() {
  winsize size{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 1) {
    return static_cast<size_t>(size.ws_col) - 1;
  }
  return 79;
}

constexpr auto kRedrawEvery = std::chrono::milliseconds(250);

}  // namespace

bool live_wanted(bool quiet) {
  return !quiet;
}

bool stderr_is_terminal() {
  return ::isatty(STDERR_FILENO) == 1;
}

LiveConsole::LiveConsole(std::FILE* out, LiveConsoleOptions options,
                         std::vector<LiveScenario> scenarios, const engine::RunProgress* progress)
    : out_(out),
      options_(std::move(options)),
      scenarios_(std::move(scenarios)),
      progress_(progress),
      done_per_scenario_(scenarios_.size(), 0),
      start_(std::chrono::steady_clock::now()) {
  for (const LiveScenario& scenario : scenarios_) total_ += scenario.repetitions;
  {
    std::lock_guard lock(mutex_);
    print_locked();
  }
  printer_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    while (!finished_) {
      wake_.wait_for(lock, kRedrawEvery, [this] { return finished_ || !queued_.empty(); });
      if (!finished_) print_locked();
    }
  });
}

LiveConsole::~LiveConsole() {
  finish();
}

std::string LiveConsole::status(uint32_t scenario, uint32_t scenarios, const std::string& name,
                                uint32_t reps_done, uint32_t reps, uint32_t done, uint32_t total,
                                double fraction, double elapsed_s, size_t max_width) {
  // The run time covered so far (every repetition running side by side counts) projects the
  // rest at the same pace: ETA = elapsed x (1 - covered) / covered.
  std::string eta = "-";
  if (fraction > 0.0) eta = seconds(elapsed_s * (1.0 - std::min(fraction, 1.0)) / fraction);
  // Repetitions are counted when finished: "0 of 4 repetitions done", never "repetition 0/4".
  const std::string overall = scenarios > 1 ? fmt::format(" ({} of {} in all)", done, total) : "";
  const auto render = [&](const std::string& shown_name) {
    return fmt::format(
        "scenario {}/{} \"{}\", {} of {} repetition{} done{}, {:.0f}%, elapsed {}, ETA {}",
        scenario + 1, scenarios, shown_name, reps_done, reps, reps == 1 ? "" : "s", overall,
        std::clamp(fraction, 0.0, 1.0) * 100.0, seconds(elapsed_s), eta);
  };
  std::string text = render(name);
  if (text.size() > max_width) {
    // Shorten the name, not the figures: they are what the line is for.
    const size_t excess = text.size() - max_width + 3;
    text = render(excess < name.size() ? name.substr(0, name.size() - excess) + "..." : "...");
    if (text.size() > max_width) text.resize(max_width);
  }
  return text;
}

void LiveConsole::on_interval(const engine::LiveInterval& interval) {
  if (!options_.intervals || interval.scenario >= scenarios_.size()) return;
  // A run cut short during warm-up ends with an empty interval: nothing to show.
  if (interval.end_ns <= interval.start_ns) return;
  std::vector<std::string> lines =
      interval_lines(interval, scenarios_[interval.scenario].labels, options_.style);
  {
    std::lock_guard lock(mutex_);
    if (finished_) return;
    for (std::string& line : lines) queued_.push_back(std::move(line));
  }
  wake_.notify_one();
}

void LiveConsole::on_repetition(uint32_t scenario, uint32_t done, uint32_t total) {
  std::lock_guard lock(mutex_);
  if (scenario < done_per_scenario_.size()) {
    ++done_per_scenario_[scenario];
    current_ = scenario;
    // With parallel jobs the next scenario may already run: show the first one not finished.
    while (current_ + 1 < done_per_scenario_.size() &&
           done_per_scenario_[current_] >= scenarios_[current_].repetitions) {
      ++current_;
    }
  }
  done_ = done;
  total_ = total;
}

void LiveConsole::print_locked() {
  std::string text;
  if (options_.status_line && !queued_.empty()) text += "\r\x1b[K";  // the status line goes
  for (const std::string& line : queued_) {
    text += line;
    text += '\n';
  }
  queued_.clear();
  if (options_.status_line && !finished_ && !scenarios_.empty()) {
    const double elapsed_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double fraction = progress_ != nullptr ? progress_->fraction() : 0.0;
    text += "\r";
    text += status(current_, static_cast<uint32_t>(scenarios_.size()), scenarios_[current_].name,
                   done_per_scenario_[current_], scenarios_[current_].repetitions, done_, total_,
                   fraction, elapsed_s, terminal_width());
    text += "\x1b[K";
  }
  if (text.empty()) return;
  std::fputs(text.c_str(), out_);
  std::fflush(out_);
}

void LiveConsole::finish() {
  {
    std::lock_guard lock(mutex_);
    if (finished_) return;
    finished_ = true;
  }
  wake_.notify_all();
  if (printer_.joinable()) printer_.join();
  std::lock_guard lock(mutex_);
  print_locked();  // the lines still queued; no status line any more
  if (options_.status_line) {
    std::fputs("\r\x1b[K", out_);
    std::fflush(out_);
  }
}

}  // namespace qb::cli
