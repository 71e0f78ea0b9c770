// The switch egress class queue depth over time, per bin of the measured window: the deepest
// and the time-weighted mean depth of each bin (the bytes a class holds, queued or on their way
// from the NICs, as ECN and the depth percentiles count them). The depth is a step function
// changed by the switch at each packet in and out; each change closes the level before it.
// No allocation after configure().
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace qb::drv::sim {

class QueueDepthRecorder {
 public:
  /// `bins` bins of `bin_ps` from `start_ps` for `classes` classes; bins = 0 records nothing.
  void configure(uint32_t classes, int64_t start_ps, int64_t bin_ps, uint32_t bins) {
    classes_ = bin_ps > 0 ? classes : 0;
    start_ps_ = start_ps;
    bin_ps_ = bin_ps;
    bins_ = bin_ps > 0 ? bins : 0;
    max_bytes_.assign(static_cast<size_t>(classes_) * static_cast<size_t>(bins_), 0);
    area_.assign(max_bytes_.size(), 0.0);
    level_.assign(classes_, Level{});
  }
  bool enabled() const noexcept { return bins_ != 0; }
  void start() noexcept {
    std::fill(max_bytes_.begin(), max_bytes_.end(), 0);
    std::fill(area_.begin(), area_.end(), 0.0);
    std::fill(level_.begin(), level_.end(), Level{});
  }
  /// Class `c` holds `bytes` from `now_ps` on (times never go back).
  void change(uint32_t c, int64_t now_ps, int64_t bytes) noexcept {
    if (!enabled()) return;
    Level& level = level_[c];
    close(c, level, now_ps);
    level.since_ps = now_ps;
    level.bytes = bytes;
    const int64_t b = bin_of(now_ps);
    if (b >= 0 && b < bins_) {
      int64_t& top = max_bytes_[at(c, b)];
      top = std::max(top, bytes);
    }
  }

  /// The bins up to `end_ps` (the last one partly covered at most): per bin the deepest and
  /// the mean depth of class `c`, in bytes.
  void series(uint32_t c, int64_t end_ps, std::vector<double>& max_bytes,
              std::vector<double>& mean_bytes) const {
    max_bytes.clear();
    mean_bytes.clear();
    if (!enabled() || end_ps <= start_ps_) return;
    const int64_t covered = std::min<int64_t>(bins_, (end_ps - start_ps_ + bin_ps_ - 1) / bin_ps_);
    const Level& level = level_[c];
    for (int64_t b = 0; b < covered; ++b) {
      const int64_t bin_start = start_ps_ + b * bin_ps_;
      const int64_t bin_end = std::min(bin_start + bin_ps_, end_ps);
      double area = area_[at(c, b)];
      int64_t top = max_bytes_[at(c, b)];
      // The level still open when asked covers the rest of the bin.
      const int64_t from = std::max(bin_start, level.since_ps);
      if (bin_end > from) {
        area += static_cast<double>(level.bytes) * static_cast<double>(bin_end - from);
        top = std::max(top, level.bytes);
      }
      max_bytes.push_back(static_cast<double>(top));
      mean_bytes.push_back(area / static_cast<double>(bin_end - bin_start));
    }
  }

 private:
  struct Level {
    int64_t since_ps = 0;
    int64_t bytes = 0;
  };
  size_t at(uint32_t c, int64_t bin) const noexcept {
    return static_cast<size_t>(c) * static_cast<size_t>(bins_) + static_cast<size_t>(bin);
  }
  int64_t bin_of(int64_t t_ps) const noexcept {
    return t_ps < start_ps_ ? -1 : (t_ps - start_ps_) / bin_ps_;
  }
  // Adds `level` over [since, now) to the bins it spans and raises their maxima.
  void close(uint32_t c, const Level& level, int64_t now_ps) noexcept {
    int64_t from = std::max(level.since_ps, start_ps_);
    const int64_t to = std::min(now_ps, start_ps_ + bins_ * bin_ps_);
    while (from < to) {
      const int64_t b = (from - start_ps_) / bin_ps_;
      const int64_t bin_end = std::min(to, start_ps_ + (b + 1) * bin_ps_);
      area_[at(c, b)] += static_cast<double>(level.bytes) * static_cast<double>(bin_end - from);
      max_bytes_[at(c, b)] = std::max(max_bytes_[at(c, b)], level.bytes);
      from = bin_end;
    }
  }

  uint32_t classes_ = 0;
  int64_t start_ps_ = 0;
  int64_t bin_ps_ = 0;
  int64_t bins_ = 0;
  std::vector<int64_t> max_bytes_;  // per (class, bin)
  std::vector<double> area_;        // per (class, bin): byte-picoseconds
  std::vector<Level> level_;        // per class: the depth since the last change
};

}  // namespace qb::drv::sim
