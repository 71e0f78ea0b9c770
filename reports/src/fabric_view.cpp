// A [topology] scenario's links and victims, rendered; see fabric_view.hpp.
#include "fabric_view.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <vector>

#include "qb/common/units.hpp"
#include "svg_figures.hpp"

namespace qb::report {
namespace {

/// The console lists the links the expectation or the run loads most.
constexpr size_t kConsoleLinks = 8;

std::vector<const judge::LinkResult*> busiest(const judge::ScenarioResult& s, size_t most) {
  std::vector<const judge::LinkResult*> links;
  for (const judge::LinkResult& link : s.links) links.push_back(&link);
  std::stable_sort(links.begin(), links.end(), [](const auto* a, const auto* b) {
    return std::max(a->expected_bps, a->measured_bps) / a->rate_bps >
           std::max(b->expected_bps, b->measured_bps) / b->rate_bps;
  });
  if (links.size() > most) links.resize(most);
  return links;
}

}  // namespace

void print_fabric(const judge::ScenarioResult& s, std::ostream& out) {
  if (s.links.empty()) return;
  size_t paused = 0;
  size_t dropping = 0;
  for (const judge::LinkResult& link : s.links) {
    paused += link.paused_ns > 0 ? 1 : 0;
    dropping += link.drops > 0 ? 1 : 0;
  }
  fmt::print(out, "  fabric: {} links carry flows, {} paused{}; the most loaded:\n",
             s.links.size(), paused, dropping > 0 ? fmt::format(", {} dropping", dropping) : "");
  fmt::print(out, "    {:<28} {:>10} {:>12} {:>12} {:>8} {:>12} {:>11} {:>10}\n", "link", "Gbit/s",
             "expected", "measured", "busy", "paused", "p99 queue B", "drops");
  for (const judge::LinkResult* link : busiest(s, kConsoleLinks)) {
    fmt::print(out, "    {:<28} {:>10.3f} {:>12.3f} {:>12.3f} {:>7.1f}% {:>12} {:>11.0f} {:>10.0f}\n",
               link->name, link->rate_bps / 1e9, link->expected_bps / 1e9,
               link->measured_bps / 1e9, link->utilisation * 100.0,
               format_duration_ns(link->paused_ns), link->queue_p99_bytes, link->drops);
  }
  for (const judge::VictimResult& victim : s.victims) {
    fmt::print(out,
               "  victim: {} {:+.1f}% of its expectation, paused at {} for {} by congestion "
               "not on its path\n",
               victim.flow, victim.error * 100.0, victim.paused_at,
               format_duration_ns(victim.paused_ns));
  }
}

namespace html {

void fabric_section(Markup& m, const judge::ScenarioResult& s) {
  if (s.links.empty() && s.topology.empty()) return;
  m.element("h3", {}, "The fabric");
  fabric_figure(m, s);
  for (const judge::VictimResult& victim : s.victims) {
    m.element("p", {{"class", "fail"}},
              fmt::format("Victim: {} got {:+.1f}% of its expectation; {} was paused for {} by "
                          "congestion not on its path.",
                          victim.flow, victim.error * 100.0, victim.paused_at,
                          format_duration_ns(victim.paused_ns)));
  }
  hop_classes_table(m, s);
  if (s.links.empty()) return;
  m.element("h3", {}, "Fabric links: expected vs measured");
  m.open("div", {{"class", "table-wrap"}});
  m.open("table", {{"class", "fabric-links"}});
  m.open("thead").open("tr");
  for (const char* head : {"link", "rate Gbit/s", "expected Gbit/s", "measured Gbit/s", "busy",
                           "queue p50 bytes", "queue p99 bytes", "max queue bytes", "paused",
                           "ECN marks", "drops"}) {
    m.element("th", {}, head);
  }
  m.close().close();
  m.open("tbody");
  for (const judge::LinkResult& link : s.links) {
    m.open("tr");
    m.element("td", {{"class", "mono"}}, link.name);
    m.element("td", {{"class", "num"}}, format_sig(link.rate_bps / 1e9, 6));
    m.element("td", {{"class", "num"}}, format_sig(link.expected_bps / 1e9, 6));
    m.element("td", {{"class", "num"}}, format_sig(link.measured_bps / 1e9, 6));
    m.element("td", {{"class", "num"}}, fmt::format("{:.1f}%", link.utilisation * 100.0));
    m.element("td", {{"class", "num"}}, format_sig(link.queue_p50_bytes, 10));
    m.element("td", {{"class", "num"}}, format_sig(link.queue_p99_bytes, 10));
    m.element("td", {{"class", "num"}}, format_sig(link.queue_max_bytes, 10));
    m.element("td", {{"class", link.paused_ns > 0 ? "num fail" : "num"}},
              format_duration_ns(link.paused_ns));
    m.element("td", {{"class", "num"}}, format_sig(link.ecn_marks, 10));
    m.element("td", {{"class", link.drops > 0 ? "num fail" : "num"}}, format_sig(link.drops, 10));
    m.close();
  }
  m.close().close().close();
}

}  // namespace html
}  // namespace qb::report
