#include "progress.hpp"

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

}  // namespace

bool progress_wanted(bool quiet) {
  return !quiet && ::isatty(STDERR_FILENO) == 1;
}

ProgressLine::ProgressLine(std::FILE* out, std::vector<std::string> scenario_names,
                           std::vector<uint32_t> repetitions)
    : out_(out),
      names_(std::move(scenario_names)),
      repetitions_(std::move(repetitions)),
      done_per_scenario_(repetitions_.size(), 0),
      start_(std::chrono::steady_clock::now()) {
  for (uint32_t reps : repetitions_) total_ += reps;
  {
    std::lock_guard lock(mutex_);
    draw_locked();
  }
  ticker_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    while (!finished_) {
      wake_.wait_for(lock, std::chrono::milliseconds(250));
      if (!finished_) draw_locked();
    }
  });
}

ProgressLine::~ProgressLine() {
  finish();
}

std::string ProgressLine::format(uint32_t scenario, uint32_t scenarios, const std::string& name,
                                 uint32_t reps_done, uint32_t reps, uint32_t done, uint32_t total,
                                 double elapsed_s, double last_done_s, size_t max_width) {
  // The pace so far (time per finished repetition, at the last one) projects the end;
  // counting down from there between completions rather than growing with the wait.
  std::string eta = "-";
  if (done > 0 && done <= total) {
    const double end_s = last_done_s / static_cast<double>(done) * static_cast<double>(total);
    eta = seconds(std::max(0.0, end_s - elapsed_s));
  }
  const std::string overall = scenarios > 1 ? fmt::format(" ({}/{} in all)", done, total) : "";
  const auto render = [&](const std::string& shown_name) {
    return fmt::format("scenario {}/{} \"{}\", repetition {}/{}{}, elapsed {}, ETA {}",
                       scenario + 1, scenarios, shown_name, reps_done, reps, overall,
                       seconds(elapsed_s), eta);
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

void ProgressLine::on_repetition(uint32_t scenario, uint32_t done, uint32_t total) {
  std::lock_guard lock(mutex_);
  if (scenario < done_per_scenario_.size()) {
    ++done_per_scenario_[scenario];
    current_ = scenario;
    // With parallel jobs the next scenario may already run: show the first one not finished.
    while (current_ + 1 < done_per_scenario_.size() &&
           done_per_scenario_[current_] >= repetitions_[current_]) {
      ++current_;
    }
  }
  done_ = done;
  total_ = total;
  last_done_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  draw_locked();
}

void ProgressLine::draw_locked() {
  if (finished_ || names_.empty()) return;
  const double elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const std::string text = format(current_, static_cast<uint32_t>(names_.size()), names_[current_],
                                  done_per_scenario_[current_], repetitions_[current_], done_,
                                  total_, elapsed_s, last_done_s_, terminal_width());
  std::fprintf(out_, "\r%s\x1b[K", text.c_str());
  std::fflush(out_);
}

void ProgressLine::finish() {
  {
    std::lock_guard lock(mutex_);
    if (finished_) return;
    finished_ = true;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
  std::fprintf(out_, "\r\x1b[K");
  std::fflush(out_);
}

}  // namespace qb::cli
