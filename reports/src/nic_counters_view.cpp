// The port's counter deltas and their reconciliation, rendered.
#include "nic_counters_view.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string_view>

#include "svg_builder.hpp"

namespace qb::report {
namespace {

constexpr std::string_view kPrefix = "nic.";

bool is_counter(std::string_view name) {
  return name.starts_with(kPrefix) && name != "nic.direction" && name != "nic.counters_read";
}

const char* check_state(const judge::NicCheckResult& c) {
  return !c.checked ? "SKIP" : c.passed ? "ok  " : "WARN";
}

}  // namespace

void print_nic_counters(const judge::ScenarioResult& s, std::ostream& out) {
  double read = -1;
  std::vector<std::string> changed;
  for (const auto& [name, value] : s.driver_stats) {
    if (name == "nic.counters_read") read = value;
    if (is_counter(name) && value != 0.0) {
      changed.push_back(
          fmt::format("{} {:.0f}", std::string_view(name).substr(kPrefix.size()), value));
    }
  }
  if (read < 0 && s.nic_checks.empty()) return;
  fmt::print(
      out, "  NIC counters (deltas per repetition, {:.0f} read): {}\n", std::max(read, 0.0),
      changed.empty() ? std::string("none changed") : fmt::format("{}", fmt::join(changed, ", ")));
  for (const judge::NicCheckResult& c : s.nic_checks) {
    fmt::print(out, "    {} {:<16} {}\n", check_state(c), c.name, c.detail);
  }
}

namespace html {

void nic_counters_section(Markup& m, const judge::ScenarioResult& s) {
  bool any = !s.nic_checks.empty();
  for (const auto& [name, value] : s.driver_stats) any = any || is_counter(name);
  if (!any) return;
  m.open("details", {{"class", "nic-counters"}});
  m.element("summary", {}, "NIC counters (deltas per repetition) and their reconciliation");
  if (!s.nic_checks.empty()) {
    m.open("table", {{"class", "nic-checks"}});
    m.open("tbody");
    for (const judge::NicCheckResult& c : s.nic_checks) {
      m.open("tr");
      m.element("td", {{"class", c.passed ? "pass" : "fail"}},
                !c.checked ? "not checked"
                : c.passed ? "agrees"
                           : "disagrees");
      m.element("td", {{"class", "mono"}}, c.name);
      m.element("td", {}, c.detail);
      m.close();
    }
    m.close().close();
  }
  m.open("table", {{"class", "nic-deltas"}});
  m.open("tbody");
  for (const auto& [name, value] : s.driver_stats) {
    if (!is_counter(name) || value == 0.0) continue;
    m.open("tr");
    m.element("td", {{"class", "mono"}}, std::string_view(name).substr(kPrefix.size()));
    m.element("td", {{"class", "num"}}, format_sig(value, 10));
    m.close();
  }
  m.close().close();
  m.close();
}

}  // namespace html
}  // namespace qb::report
