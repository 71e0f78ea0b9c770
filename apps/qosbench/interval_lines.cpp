#include "interval_lines.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace qb::cli {
namespace {

constexpr const char* kDim = "\x1b[2m";
constexpr const char* kBold = "\x1b[1m";
constexpr const char* kCyan = "\x1b[36m";
constexpr const char* kYellow = "\x1b[33m";
constexpr const char* kReset = "\x1b[0m";

struct TimeUnit {
  double ns_per_unit;
  const char* name;
};

// The unit the interval reads best in: 10 ms as "10.00 ms", not "0.01 s".
TimeUnit time_unit(int64_t interval_ns) {
  if (interval_ns >= 1'000'000'000) return {1e9, "s"};
  if (interval_ns >= 1'000'000) return {1e6, "ms"};
  return {1e3, "us"};
}

std::string paint(const std::string& text, const char* code, bool colour) {
  return colour ? fmt::format("{}{}{}", code, text, kReset) : text;
}

std::string bytes_rate(double bytes, double seconds, report::RateUnit unit) {
  const double bytes_per_s = seconds > 0.0 ? bytes / seconds : 0.0;
  if (unit == report::RateUnit::gbyte_per_s) return fmt::format("{:8.4f} GB/s", bytes_per_s / 1e9);
  return fmt::format("{:8.3f} Gbit/s", bytes_per_s * 8.0 / 1e9);
}

std::string packet_rate(double packets, double seconds) {
  return fmt::format("{:8.4f} Mpps", seconds > 0.0 ? packets / seconds / 1e6 : 0.0);
}

}  // namespace

bool colour_allowed() {
  const char* no_colour = std::getenv("NO_COLOR");
  return no_colour == nullptr || *no_colour == '\0';
}

std::vector<std::string> interval_lines(const engine::LiveInterval& interval,
                                        const IntervalLabels& labels, const IntervalStyle& style) {
  const bool colour = style.colour;
  // Every line says which repetition it belongs to (they can run side by side); the tag keeps
  // a long name short, the repetition's first line gives it whole.
  constexpr size_t kTagNameBytes = 24;
  const std::string short_name = labels.scenario.size() <= kTagNameBytes
                                     ? labels.scenario
                                     : labels.scenario.substr(0, kTagNameBytes - 3) + "...";
  const std::string tag =
      paint(fmt::format("[{} {}/{}]", short_name, interval.repetition + 1, labels.repetitions),
            kDim, colour);
  std::vector<std::string> lines;
  if (interval.index == 0) {
    lines.push_back(
        fmt::format("{} \"{}\" repetition {}/{}: rates per interval of the measured "
                    "window: goodput (payload), wire (preamble and gap included), "
                    "packets",
                    tag, labels.scenario, interval.repetition + 1, labels.repetitions));
  }
  const TimeUnit unit = time_unit(labels.interval_ns);
  const std::string span =
      fmt::format("{:>16}", fmt::format("{:.2f}-{:.2f} {}", interval.start_ns / unit.ns_per_unit,
                                        interval.end_ns / unit.ns_per_unit, unit.name));
  size_t name_width = 5;  // "total"
  for (const std::string& group : labels.groups) name_width = std::max(name_width, group.size());
  const double seconds = interval.seconds();
  const auto row = [&](const std::string& name, const engine::LiveGroupCounters& c,
                       const char* name_colour) {
    std::string line =
        fmt::format("{} {}  {} goodput {} wire {} {}", tag, span,
                    paint(fmt::format("{:<{}}", name, name_width), name_colour, colour),
                    bytes_rate(static_cast<double>(c.payload_bytes), seconds, style.unit),
                    bytes_rate(static_cast<double>(c.wire_bytes), seconds, style.unit),
                    packet_rate(static_cast<double>(c.packets), seconds));
    if (!interval.complete) line += paint(" (interrupted)", kYellow, colour);
    return line;
  };
  engine::LiveGroupCounters total;
  for (size_t g = 0; g < interval.groups.size(); ++g) {
    const engine::LiveGroupCounters& c = interval.groups[g];
    engine::merge_counters(total, c);
    const std::string name = g < labels.groups.size() ? labels.groups[g] : fmt::format("#{}", g);
    lines.push_back(row(name, c, kCyan));
  }
  if (interval.groups.size() > 1) lines.push_back(row("total", total, kBold));
  return lines;
}

}  // namespace qb::cli
