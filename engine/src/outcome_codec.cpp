#include "qb/engine/outcome_codec.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace qb::engine {
namespace {

// Bumped whenever a field is added: processes of one job run one build, but a stale binary on
// one host must fail loudly rather than merge garbage.
// 2: the switch queue depth; 3: worker starvation; 4: the ages of outstanding messages;
// 5: the counter table's names in the header (a counter added needs no bump: they differ).
constexpr uint32_t kFormatVersion = 5;

class ByteWriter {
 public:
  template <class T>
  requires std::is_arithmetic_v<T>
  void put(T value) {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));  // the hosts of one job share a byte order
    out_.append(bytes, sizeof(T));
  }
  void put(bool value) { put<uint8_t>(value ? 1 : 0); }
  void put(std::string_view text) {
    put<uint64_t>(text.size());
    out_.append(text);
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : bytes_(bytes) {}
  template <class T>
  requires std::is_arithmetic_v<T>
  bool get(T& value) {
    if (bytes_.size() < sizeof(T)) return false;
    std::memcpy(&value, bytes_.data(), sizeof(T));
    bytes_.remove_prefix(sizeof(T));
    return true;
  }
  bool get(bool& value) {
    uint8_t byte = 0;
    if (!get(byte) || byte > 1) return false;
    value = byte == 1;
    return true;
  }
  bool get(std::string& text) {
    uint64_t size = 0;
    if (!get(size) || size > bytes_.size()) return false;
    text.assign(bytes_.substr(0, size));
    bytes_.remove_prefix(size);
    return true;
  }
  /// A count of items of at least `item_bytes` each: never more than the bytes left can hold,
  /// so a corrupt count cannot make the decoder allocate without bound.
  bool get_count(uint64_t& count, size_t item_bytes) {
    return get(count) && count <= bytes_.size() / std::max<size_t>(item_bytes, 1);
  }
  bool done() const { return bytes_.empty(); }

 private:
  std::string_view bytes_;
};

void put_histogram(ByteWriter& w, const Histogram& histogram) {
  const Histogram::State s = histogram.state();
  w.put(s.highest_trackable);
  w.put<int32_t>(s.significant_digits);
  w.put<uint64_t>(s.counts.size());
  for (const auto& [index, count] : s.counts) {
    w.put(index);
    w.put(count);
  }
  w.put(s.total_count);
  w.put(s.clamped_count);
  w.put(s.min);
  w.put(s.max);
  w.put(s.exact_sum);
  w.put(s.sum);
}

bool get_histogram(ByteReader& r, Histogram& out) {
  Histogram::State s;
  int32_t digits = 0;
  uint64_t entries = 0;
  if (!r.get(s.highest_trackable) || !r.get(digits) || !r.get_count(entries, 12)) return false;
  s.significant_digits = digits;
  // The engine's latency histograms all have the default layout (FlowLatency). Only that is
  // accepted: a layout chosen by the bytes (5 digits up to INT64_MAX, 50 MB of counters) would
  // let a few bytes per counter make the decoder take a page of memory each.
  static const Histogram kLayout;
  if (s.highest_trackable != kLayout.highest_trackable() ||
      s.significant_digits != kLayout.significant_digits()) {
    return false;
  }
  s.counts.resize(entries);
  for (auto& [index, count] : s.counts) {
    if (!r.get(index) || !r.get(count)) return false;
  }
  if (!r.get(s.total_count) || !r.get(s.clamped_count) || !r.get(s.min) || !r.get(s.max) ||
      !r.get(s.exact_sum) || !r.get(s.sum)) {
    return false;
  }
  auto histogram = Histogram::from_state(s);
  if (!histogram) return false;
  out = std::move(*histogram);
  return true;
}

void put_latency(ByteWriter& w, const RepetitionLatency& l) {
  w.put(l.count);
  w.put(l.p50_ns);
  w.put(l.p90_ns);
  w.put(l.p99_ns);
  w.put(l.p999_ns);
}

bool get_latency(ByteReader& r, RepetitionLatency& l) {
  return r.get(l.count) && r.get(l.p50_ns) && r.get(l.p90_ns) && r.get(l.p99_ns) &&
         r.get(l.p999_ns);
}

void put_counters(ByteWriter& w, const FlowCounters& c) {
  for (const CounterInfo& counter : kCounters) w.put(c.counts.*counter.member);
  w.put<uint64_t>(c.series_wire_bytes.size());
  for (const uint64_t bin : c.series_wire_bytes) w.put(bin);
}

bool get_counters(ByteReader& r, FlowCounters& c) {
  for (const CounterInfo& counter : kCounters) {
    if (!r.get(c.counts.*counter.member)) return false;
  }
  uint64_t bins = 0;
  if (!r.get_count(bins, sizeof(uint64_t))) return false;
  c.series_wire_bytes.resize(bins);
  for (uint64_t& bin : c.series_wire_bytes) {
    if (!r.get(bin)) return false;
  }
  return true;
}

std::vector<std::string_view> counter_names() {
  std::vector<std::string_view> names;
  for (const CounterInfo& counter : kCounters) names.push_back(counter.name);
  return names;
}

template <class T, class Put>
void put_list(ByteWriter& w, const std::vector<T>& items, Put put_one) {
  w.put<uint64_t>(items.size());
  for (const T& item : items) put_one(w, item);
}

template <class T, class Get>
bool get_list(ByteReader& r, std::vector<T>& items, size_t min_item_bytes, Get get_one) {
  uint64_t count = 0;
  if (!r.get_count(count, min_item_bytes)) return false;
  items.resize(count);
  for (T& item : items) {
    if (!get_one(r, item)) return false;
  }
  return true;
}

}  // namespace

std::string encode_outcome(const RepetitionOutcome& outcome) {
  ByteWriter w;
  w.put(kFormatVersion);
  w.put<uint64_t>(kCounters.size());
  for (const CounterInfo& counter : kCounters) w.put(counter.name);
  w.put(outcome.scenario);
  w.put(outcome.repetition);
  w.put(outcome.workers);
  w.put(std::string_view(outcome.clock));
  const RepetitionMeasurement& m = outcome.measurement;
  put_list(w, m.flows, put_counters);
  put_list(w, m.flow_latency, put_latency);
  put_list(w, m.group_latency, put_latency);
  put_list(w, m.driver_stats, [](ByteWriter& out, const std::pair<std::string, double>& stat) {
    out.put(std::string_view(stat.first));
    out.put(stat.second);
  });
  put_list(w, m.queue_depth, [](ByteWriter& out, const drv::QueueDepthSeries& series) {
    out.put(std::string_view(series.name));
    put_list(out, series.max_bytes, [](ByteWriter& o, double v) { o.put(v); });
    put_list(out, series.mean_bytes, [](ByteWriter& o, double v) { o.put(v); });
  });
  w.put(m.wall_seconds);
  w.put(m.ran);
  w.put(m.complete);
  w.put(m.measured_ns);
  const WorkerStarvation& st = m.starvation;
  w.put(st.measured);
  for (const int64_t v : {st.run_ns, st.lost_ns, st.run_delay_ns, st.stalled_ns,
                          st.longest_stall_ns, st.involuntary_switches}) {
    w.put(v);
  }
  w.put(st.stalls);
  put_list(w, outcome.latency, [](ByteWriter& out, const FlowLatency& latency) {
    put_histogram(out, latency.from_scheduled_ns);
    put_histogram(out, latency.from_sent_ns);
    put_histogram(out, latency.outstanding_age_ns);
  });
  return w.take();
}

Result<RepetitionOutcome> decode_outcome(std::string_view bytes) {
  ByteReader r(bytes);
  RepetitionOutcome outcome;
  RepetitionMeasurement& m = outcome.measurement;
  uint32_t version = 0;
  const auto bad = [](std::string_view what) {
    return make_error(Errc::runtime, fmt::format("a repetition's measurement from another "
                                                 "process is unreadable ({})",
                                                 what));
  };
  if (!r.get(version)) return bad("truncated");
  if (version != kFormatVersion) {
    return bad(
        fmt::format("format {} where this build reads {}: run one qosbench build on "
                    "every host",
                    version, kFormatVersion));
  }
  uint64_t counters = 0;
  std::vector<std::string> names;
  if (!r.get_count(counters, sizeof(uint64_t))) return bad("truncated");
  names.resize(counters);
  for (std::string& name : names) {
    if (!r.get(name)) return bad("truncated");
  }
  if (!std::equal(names.begin(), names.end(), kCounters.begin(), kCounters.end(),
                  [](const std::string& name, const CounterInfo& c) { return name == c.name; })) {
    return bad(
        fmt::format("counters {} where this build counts {}: run one qosbench build on "
                    "every host",
                    fmt::join(names, ","), fmt::join(counter_names(), ",")));
  }
  const bool ok =
      r.get(outcome.scenario) && r.get(outcome.repetition) && r.get(outcome.workers) &&
      r.get(outcome.clock) &&
      get_list(r, m.flows, (kCounters.size() + 1) * sizeof(uint64_t), get_counters) &&
      get_list(r, m.flow_latency, 40, get_latency) &&
      get_list(r, m.group_latency, 40, get_latency) &&
      get_list(r, m.driver_stats, 16,
               [](ByteReader& in, std::pair<std::string, double>& stat) {
                 return in.get(stat.first) && in.get(stat.second);
               }) &&
      get_list(r, m.queue_depth, 24,
               [](ByteReader& in, drv::QueueDepthSeries& series) {
                 const auto get_double = [](ByteReader& from, double& v) { return from.get(v); };
                 return in.get(series.name) && get_list(in, series.max_bytes, 8, get_double) &&
                        get_list(in, series.mean_bytes, 8, get_double);
               }) &&
      r.get(m.wall_seconds) && r.get(m.ran) && r.get(m.complete) && r.get(m.measured_ns) &&
      r.get(m.starvation.measured) && r.get(m.starvation.run_ns) && r.get(m.starvation.lost_ns) &&
      r.get(m.starvation.run_delay_ns) && r.get(m.starvation.stalled_ns) &&
      r.get(m.starvation.longest_stall_ns) && r.get(m.starvation.involuntary_switches) &&
      r.get(m.starvation.stalls) &&
      get_list(r, outcome.latency, 3 * 60, [](ByteReader& in, FlowLatency& latency) {
        return get_histogram(in, latency.from_scheduled_ns) &&
               get_histogram(in, latency.from_sent_ns) &&
               get_histogram(in, latency.outstanding_age_ns);
      });
  if (!ok) return bad("truncated or corrupt");
  if (!r.done()) return bad("trailing bytes");
  return outcome;
}

}  // namespace qb::engine
