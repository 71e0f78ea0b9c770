// The page around the figures: verdict, metadata, gates, tables and the baseline comparison.
// No script anywhere: everything a reader needs is in the markup (tooltips are SVG <title>s).
#include "qb/reports/html_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <set>

#include "console_units.hpp"
#include "figure_parts.hpp"
#include "fabric_view.hpp"
#include "nic_counters_view.hpp"
#include "svg_builder.hpp"
#include "svg_figures.hpp"

namespace qb::report {

// The stylesheet, embedded from reports/src/report.css at build time (cmake/QbEmbed.cmake).
extern const std::string_view kReportCss;

namespace {

using html::Attr;
using html::format_bps;
using html::format_ns;
using html::format_percent;
using html::format_sig;
using html::json_number;
using html::Markup;

std::string gate_value(const GateResult& gate, double value) {
  switch (gate.kind) {
    case GateKind::duration:
      return format_ns(value);
    case GateKind::ratio:
      return format_percent(value, false);
    case GateKind::bytes:
      return html::format_trimmed(value, 0) + " B";
    case GateKind::index:
      break;
  }
  return format_sig(value, 6);
}

std::string gate_threshold_value(const GateResult& gate) {
  std::string value;
  switch (gate.kind) {
    case GateKind::duration:
      value = format_ns(gate.threshold);
      break;
    case GateKind::ratio:
      value = html::format_trimmed(gate.threshold * 100, 4) + "%";
      break;
    case GateKind::bytes:
      value = html::format_trimmed(gate.threshold, 0) + " B";
      break;
    case GateKind::index:
      value = html::format_trimmed(gate.threshold, 6);
      break;
  }
  return value;
}

std::string gate_threshold(const GateResult& gate) {
  return std::string(gate.bound == GateBound::at_least ? "≥ " : "≤ ") + gate_threshold_value(gate);
}

std::optional<double> find_gate(const ScenarioResult& s, const std::string& name) {
  for (const auto& g : s.gates) {
    if (g.name == name && std::isfinite(g.threshold)) return g.threshold;
  }
  return std::nullopt;
}

const char* bool_text(bool value) {
  return value ? "true" : "false";
}

void chip(Markup& m, const char* kind, std::string_view text) {
  m.element("span", {{"class", std::string("chip ") + kind}}, text);
}

std::string plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// ---------------------------------------------------------------------------------------------
// Why the page fails against the baseline (regressions, the first five), or why it cannot
// say (inconclusive); `c` may be null.
void baseline_reason(Markup& m, const Results& r, const Comparison* c, bool regressed) {
  if (regressed) {
    // The reason the page fails comes first.
    m.open("p");
    m.element(
        "strong", {},
        "Regressed against the baseline: " + plural(c->regressions, "regression", "regressions") +
            " in " + plural(c->metrics.size(), "compared metric", "compared metrics") + ".");
    m.close();
    m.open("ul");
    size_t listed = 0;
    for (const auto& mc : c->metrics) {
      if (!mc.regression) continue;
      if (listed++ == 5) break;
      // A flow and a group may share a name: say which one regressed.
      m.element("li", {{"data-kind", mc.kind}},
                (mc.kind == "scenario" ? std::string() : mc.kind + " ") + mc.subject + " " +
                    mc.metric + " " + format_percent(mc.change) +
                    (r.scenarios.size() > 1 ? " in " + mc.scenario : std::string()));
    }
    if (c->regressions > 5) m.element("li", {}, "… see the baseline comparison below");
    m.close();
  } else if (c != nullptr && c->undecided()) {
    m.open("p");
    m.element("strong", {},
              "Inconclusive against the baseline: " +
                  plural(c->inconclusive, "metric changed", "metrics changed") +
                  " beyond the threshold where too few repetitions cannot judge it.");
    m.close();
  }
}

// The headline figures of the share question, worst scenario first.
void headline_figures(Markup& m, const Results& r) {
  for (const auto& s : r.scenarios) {
    if (s.flows.empty()) continue;
    std::string line = (r.scenarios.size() > 1 ? s.name + ": " : std::string()) +
                       plural(s.flows.size(), "flow", "flows") + ", worst share error " +
                       format_percent(s.fairness.worst_flow_error, false);
    if (!s.fairness.worst_flow.empty()) line += " (" + s.fairness.worst_flow + ")";
    line += ", Jain " + format_sig(s.fairness.jain, 6) + ".";
    if (s.convergence.present) {
      // Flows joined during the window: its means mix in the joins; the settled figures judge.
      line += s.convergence.converged
                  ? " Once settled (from " +
                        format_ns(static_cast<double>(s.convergence.settled_from_ns)) +
                        "): worst share error " +
                        format_percent(s.convergence.worst_flow_error_settled, false) + ", Jain " +
                        format_sig(s.convergence.jain_settled, 6) + "."
                  : " The rates never settled within " +
                        format_percent(s.convergence.tolerance, false) + " of the shares.";
    }
    m.element("p", {{"class", "muted"}}, line);
  }
}

void verdict(Markup& m, const Results& r, const Comparison* c) {
  size_t gates = 0;
  std::vector<std::pair<const ScenarioResult*, const GateResult*>> failed;
  for (const auto& s : r.scenarios) {
    for (const auto& g : s.gates) {
      if (!g.judged) continue;  // listed under "not judged"
      ++gates;
      if (!g.passed) failed.emplace_back(&s, &g);
    }
  }
  const bool regressed = c != nullptr && c->regressed();
  const bool passed = r.passed && !(c != nullptr && c->failed());
  m.open("div", {{"id", "verdict"},
                 {"class", passed ? "verdict pass" : "verdict fail"},
                 {"data-passed", bool_text(passed)},
                 {"data-complete", bool_text(r.complete)}});
  m.element("div", {{"class", "label"}}, passed ? "PASS" : "FAIL");
  m.open("div");
  // The verdict in words, as the console's last line says it (judge/verdict.hpp).
  if (!r.verdict.summary.empty()) {
    m.element("p", {{"class", "verdict-summary"}}, r.verdict.summary);
  }
  baseline_reason(m, r, c, regressed);
  if (failed.empty()) {
    m.element("p", {},
              gates == 0 ? "Nothing was judged."
                         : "Every judgement held: " + plural(gates, "judgement", "judgements") +
                               " in " + plural(r.scenarios.size(), "scenario", "scenarios") + ".");
  } else {
    m.element("p", {},
              std::to_string(failed.size()) + " of " + plural(gates, "gate", "gates") + " failed:");
    m.open("ul");
    for (const auto& [s, g] : failed) {
      m.open("li");
      m.element("strong", {}, g->name);
      // The relation that holds for a failed gate, then its limit (as the console says it).
      const bool finite = std::isfinite(g->value);
      m.text(" = " + gate_value(*g, g->value) +
             (finite ? std::string(g->bound == GateBound::at_least ? " < " : " > ") +
                           gate_threshold_value(*g)
                     : std::string()) +
             " (limit " + gate_threshold(*g) + ")");
      if (r.scenarios.size() > 1) m.text(" in " + s->name);
      if (!g->detail.empty()) m.text(" — " + g->detail);
      m.close();
    }
    m.close();
  }
  // What was not judged is said beside the verdict: a PASS covers only what was judged.
  if (!r.verdict.not_judged.empty()) {
    m.element("p", {{"class", "not-judged"}}, "Not judged:");
    m.open("ul", {{"class", "not-judged"}});
    for (const auto& item : r.verdict.not_judged) m.element("li", {}, item);
    m.close();
  }
  headline_figures(m, r);
  if (!r.complete) {
    m.element("p", {},
              "Incomplete run: it was interrupted, the figures cover fewer repetitions than "
              "asked.");
  }
  if (c != nullptr && !regressed) {
    m.element("p", {},
              "Against the baseline: " + plural(c->regressions, "regression", "regressions") +
                  ", " + plural(c->improvements, "improvement", "improvements") + " in " +
                  plural(c->metrics.size(), "compared metric", "compared metrics") + ".");
  }
  if (!r.passed && failed.empty() && r.complete) {
    m.element("p", {}, "The results are marked failed.");
  }
  m.close();
  m.close();
}

void metadata(Markup& m, const Results& r) {
  std::set<uint64_t> seeds;
  uint32_t reps = 0, reps_done = 0;
  for (const auto& s : r.scenarios) {
    seeds.insert(s.seed);
    reps += s.repetitions;
    reps_done += s.repetitions_completed;
  }
  std::string seed_text;
  for (uint64_t seed : seeds) seed_text += (seed_text.empty() ? "" : ", ") + std::to_string(seed);
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"driver", r.driver},
      {"clock", r.clock},
      {"host", r.host},
      {"tool version", "qosbench " + r.tool_version},
      {"date", r.date_utc},
      {"config hash", r.config_hash},
      {"seed", seed_text},
      {"suite file", r.suite_file},
      {"complete", r.complete ? "yes"
                              : "no (" + std::to_string(reps_done) + " of " + std::to_string(reps) +
                                    " repetitions)"},
      {"repetitions", std::to_string(reps_done)},
      {"jobs", std::to_string(r.jobs)},
      {"wall time", format_sig(r.wall_seconds, 3) + " s"}};
  m.open("table", {{"id", "metadata"}});
  m.open("tbody");
  for (const auto& [key, value] : rows) {
    m.open("tr", {{"data-key", key}});
    m.element("th", {{"scope", "row"}}, key);
    m.element("td", {}, value.empty() ? "–" : value);
    m.close();
  }
  m.close();
  m.close();
}

// ---------------------------------------------------------------------------------------------
void gates_table(Markup& m, const ScenarioResult& s) {
  if (s.gates.empty()) {
    m.element("p", {{"class", "note"}}, "This scenario has no gates: nothing here can fail.");
    return;
  }
  m.open("div", {{"class", "table-wrap"}});
  m.open("table", {{"class", "gates"}});
  m.open("thead").open("tr");
  m.element("th", {}, "");
  m.element("th", {}, "gate");
  m.element("th", {{"class", "num"}}, "value");
  m.element("th", {{"class", "num"}}, "threshold");
  m.element("th", {}, "detail");
  m.close().close();
  m.open("tbody");
  for (const auto& g : s.gates) {
    m.open("tr", {{"class", !g.judged  ? "gate not-judged"
                            : g.passed ? "gate"
                                       : "gate failed"},
                  {"data-gate", g.name},
                  {"data-passed", bool_text(g.passed)},
                  {"data-judged", bool_text(g.judged)},
                  {"data-value", json_number(g.value)},
                  {"data-threshold", json_number(g.threshold)}});
    m.open("td");
    if (!g.judged) {
      chip(m, "neutral", "not judged");
    } else {
      chip(m, g.passed ? "pass" : "fail", g.passed ? "pass" : "fail");
    }
    m.close();
    m.element("td", {{"class", "mono"}}, g.name);
    m.element("td", {{"class", "num"}}, g.judged ? gate_value(g, g.value) : std::string("–"));
    m.element("td", {{"class", "num"}},
              g.judged ? gate_threshold(g) +
                             (g.allowance > 0.0 ? " (± " + gate_value(g, g.allowance) + " noise)"
                                                : std::string()) +
                             (g.default_limit ? " default" : "")
                       : std::string("–"));
    m.element("td", {{"class", "muted"}}, g.detail);
    m.close();
  }
  m.close().close().close();
}

std::string latency_cell(int64_t ns, uint64_t count) {
  return count == 0 ? "–" : format_ns(static_cast<double>(ns));
}

// A rate column's header: what it holds, and under it its basis and unit ("wire Gbit/s",
// "payload Gbit/s", "Mpps"), as the console heads its columns.
void rate_th(Markup& m, std::string_view what, std::string_view basis) {
  m.open("th", {{"class", "num rate"}, {"data-basis", std::string(basis)}});
  m.text(what);
  m.element("span", {{"class", "basis"}}, basis);
  m.close();
}

std::string gbit_cell(double bps) {
  return std::isfinite(bps) ? format_sig(bps / 1e9, 4) : std::string("–");
}
std::string mpps_cell(double packets_per_s) {
  return std::isfinite(packets_per_s) ? format_sig(packets_per_s / 1e6, 4) : std::string("–");
}

// The four rate columns of a row: expected and measured (wire), goodput (payload), packets.
void rate_ths(Markup& m) {
  rate_th(m, "expected", "wire Gbit/s");
  rate_th(m, "measured", "wire Gbit/s");
  rate_th(m, "goodput", "payload Gbit/s");
  rate_th(m, "packets", "Mpps");
}
void rate_tds(Markup& m, double expected_bps, const MeasuredRates& measured) {
  m.element("td", {{"class", "num"}}, gbit_cell(expected_bps));
  m.element("td", {{"class", "num"}}, gbit_cell(measured.wire_bps));
  m.element("td", {{"class", "num"}}, gbit_cell(measured.payload_bps));
  m.element("td", {{"class", "num"}}, mpps_cell(measured.packets_per_s));
}
std::vector<Attr> rate_attrs(const MeasuredRates& measured) {
  return {{"data-measured-payload-bps", json_number(measured.payload_bps)},
          {"data-packets-per-s", json_number(measured.packets_per_s)}};
}

template <typename Pick>
MeasuredRates member_rates(const ScenarioResult& s, Pick pick) {
  std::vector<const FlowResult*> flows;
  for (const auto& f : s.flows) {
    if (pick(f)) flows.push_back(&f);
  }
  return sum_rates(flows);
}

constexpr const char* kRateNote =
    "Rates: wire counts every byte on the link (headers and CRCs; on Ethernet also preamble, SFD "
    "and inter-frame gap), the basis of shares, caps and gates; goodput counts payload only, as "
    "a flow's rate and perftest/iperf3 do; packets in millions per second.";

void groups_table(Markup& m, const ScenarioResult& s) {
  m.open("div", {{"class", "table-wrap"}});
  m.open("table", {{"class", "groups"}});
  m.open("thead").open("tr");
  for (const char* h : {"group", "leaf"}) m.element("th", {}, h);
  m.element("th", {{"class", "num"}}, "flows");
  rate_ths(m);
  for (const char* h :
       {"error", "p50 (sched.)", "p99 (sched.)", "p99.9 (sched.)", "max (sched.)", "p99 (sent)"}) {
    m.element("th", {{"class", "num"}}, h);
  }
  m.close().close();
  m.open("tbody");
  for (size_t gi = 0; gi < s.groups.size(); ++gi) {
    const auto& g = s.groups[gi];
    MeasuredRates measured =
        member_rates(s, [&](const FlowResult& f) { return f.group == g.name; });
    measured.wire_bps = g.measured_bps;  // the judged figure
    std::vector<Attr> attrs{{"data-group", g.name}};
    for (auto& a : rate_attrs(measured)) attrs.push_back(std::move(a));
    m.open("tr", attrs);
    m.open("td");
    m.element("span", {{"class", "swatch"}, {"style", "background:" + html::group_colour(gi)}}, "");
    m.text(g.name);
    m.close();
    m.element("td", {{"class", "muted"}}, g.leaf);
    m.element("td", {{"class", "num"}}, std::to_string(g.flows));
    rate_tds(m, g.expected_bps, measured);
    m.element("td", {{"class", "num"}}, g.judged ? format_percent(g.error) : "not started");
    m.element("td", {{"class", "num"}}, latency_cell(g.latency.p50_ns, g.latency.count));
    m.element("td", {{"class", "num"}}, latency_cell(g.latency.p99_ns, g.latency.count));
    m.element("td", {{"class", "num"}}, latency_cell(g.latency.p999_ns, g.latency.count));
    m.element("td", {{"class", "num"}}, latency_cell(g.latency.max_ns, g.latency.count));
    m.element("td", {{"class", "num"}},
              latency_cell(g.latency_from_sent.p99_ns, g.latency_from_sent.count));
    m.close();
  }
  m.close().close().close();
  m.element("p", {{"class", "note"}}, kRateNote);
  // Two latencies, two bases: say which is which wherever they are shown.
  m.element("p", {{"class", "note"}},
            "Latency (sched.): from the scheduled send time, waiting behind the flow's earlier "
            "messages included; (sent): from the actual send time.");
}

// Per arbitration class (TC / VL) at the port that decides the shares; only for scenarios that
// have classes, so pages of other suites are unchanged.
void classes_table(Markup& m, const ScenarioResult& s) {
  m.element("h3", {}, "Classes: expected vs measured share");
  m.open("div", {{"class", "table-wrap"}});
  m.open("table", {{"class", "classes"}});
  m.open("thead").open("tr");
  m.element("th", {}, "class");
  for (const char* h : {"flows", "expected share", "measured share"}) {
    m.element("th", {{"class", "num"}}, h);
  }
  rate_ths(m);
  for (const char* h : {"error", "p50 (sched.)", "p99 (sched.)", "p99.9 (sched.)"}) {
    m.element("th", {{"class", "num"}}, h);
  }
  m.close().close();
  m.open("tbody");
  for (const auto& c : s.classes) {
    // The class's own measured figure stays the one judged (the switch's view with a switch);
    // goodput and packets come from its flows.
    MeasuredRates measured =
        member_rates(s, [&](const FlowResult& f) { return f.arb_class == c.name; });
    measured.wire_bps = c.measured_bps;
    std::vector<Attr> attrs{{"data-class", c.name},
                            {"data-expected-bps", json_number(c.expected_bps)},
                            {"data-measured-bps", json_number(c.measured_bps)}};
    for (auto& a : rate_attrs(measured)) attrs.push_back(std::move(a));
    m.open("tr", attrs);
    m.element("td", {{"class", "mono"}}, c.name);
    m.element("td", {{"class", "num"}}, std::to_string(c.flows));
    m.element("td", {{"class", "num"}}, format_percent(c.expected_share, false));
    m.element("td", {{"class", "num"}}, format_percent(c.measured_share, false));
    rate_tds(m, c.expected_bps, measured);
    m.element("td", {{"class", "num"}}, format_percent(c.error));
    m.element("td", {{"class", "num"}}, latency_cell(c.latency.p50_ns, c.latency.count));
    m.element("td", {{"class", "num"}}, latency_cell(c.latency.p99_ns, c.latency.count));
    m.element("td", {{"class", "num"}}, latency_cell(c.latency.p999_ns, c.latency.count));
    m.close();
  }
  m.close().close().close();
  for (const auto& note : s.oracle_notes) m.element("p", {{"class", "note"}}, "Oracle: " + note);
}

void flows_table(Markup& m, const ScenarioResult& s, const std::vector<size_t>& shown) {
  m.open("details");
  m.element("summary", {},
            shown.size() == s.flows.size()
                ? "Table of the flows"
                : "Table of the " + std::to_string(shown.size()) + " flows shown");
  m.open("div", {{"class", "table-wrap"}});
  m.open("table", {{"class", "flows"}});
  m.open("thead").open("tr");
  for (const char* h : {"flow", "group"}) m.element("th", {}, h);
  rate_th(m, "offered", "wire Gbit/s");
  rate_th(m, "offered", "payload Gbit/s");
  rate_ths(m);
  for (const char* h : {"error", "p50 (sched.)", "p99 (sched.)", "p99.9 (sched.)"}) {
    m.element("th", {{"class", "num"}}, h);
  }
  // A column for every counter of the results with a heading (engine/counters.hpp).
  for (const engine::CounterInfo& counter : engine::kCounters) {
    if (counter.in_results && !counter.column.empty()) {
      m.element("th", {{"class", "num"}}, counter.column);
    }
  }
  m.close().close();
  m.open("tbody");
  for (size_t fi : shown) {
    const auto& f = s.flows[fi];
    const MeasuredRates measured = measured_rates(f);
    std::vector<Attr> attrs{{"data-flow", f.name}};
    // The offered payload rate: the offered wire rate at the payload/wire ratio the flow's
    // messages had (its counters); unknown when it delivered nothing.
    std::optional<double> offered_payload;
    if (f.offered_bps && f.counts.wire_bytes > 0) {
      offered_payload = *f.offered_bps * static_cast<double>(f.counts.payload_bytes) /
                        static_cast<double>(f.counts.wire_bytes);
    }
    if (f.offered_bps) attrs.push_back({"data-offered-bps", json_number(*f.offered_bps)});
    if (offered_payload)
      attrs.push_back({"data-offered-payload-bps", json_number(*offered_payload)});
    for (auto& a : rate_attrs(measured)) attrs.push_back(std::move(a));
    m.open("tr", attrs);
    m.element("td", {}, f.name);
    m.element("td", {{"class", "muted"}}, f.group);
    m.element("td", {{"class", "num"}}, f.offered_bps ? gbit_cell(*f.offered_bps) : "saturate");
    m.element("td", {{"class", "num"}},
              !f.offered_bps    ? std::string("saturate")
              : offered_payload ? gbit_cell(*offered_payload)
                                : std::string("–"));
    rate_tds(m, f.expected_bps, measured);
    m.element("td", {{"class", "num"}}, f.judged ? format_percent(f.error) : "not started");
    m.element("td", {{"class", "num"}}, latency_cell(f.latency.p50_ns, f.latency.count));
    m.element("td", {{"class", "num"}}, latency_cell(f.latency.p99_ns, f.latency.count));
    m.element("td", {{"class", "num"}}, latency_cell(f.latency.p999_ns, f.latency.count));
    for (const engine::CounterInfo& counter : engine::kCounters) {
      if (counter.in_results && !counter.column.empty()) {
        m.element("td", {{"class", "num"}}, std::to_string(f.counts.*counter.member));
      }
    }
    m.close();
  }
  m.close().close().close();
  m.element("p", {{"class", "note"}},
            "Offered payload: the offered wire rate at the payload-to-wire ratio of the flow's "
            "messages. " +
                std::string(kRateNote));
  m.close();
}

void card(Markup& m, std::string_view key, std::string_view value, std::string_view detail) {
  m.open("div", {{"class", "card"}});
  m.element("div", {{"class", "k"}}, key);
  m.element("div", {{"class", "v"}}, value);
  if (!detail.empty()) m.element("div", {{"class", "d"}}, detail);
  m.close();
}

const ScenarioResult* find_scenario(const Results* results, const std::string& name) {
  if (results == nullptr) return nullptr;
  for (const auto& s : results->scenarios) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

template <class Row>
std::optional<double> baseline_error(const std::vector<Row>& rows, const std::string& name) {
  for (const auto& row : rows) {
    if (row.name == name) return row.error;
  }
  return std::nullopt;
}

// The trees: one per host when several hosts send (each NIC runs the tree over its flows).
void tree_section(Markup& m, const ScenarioResult& s) {
  if (s.host_trees.empty()) {
    m.element("h3", {}, "Policy: the scheduling tree");
    html::tree_figure(m, s, s.tree, std::nullopt);
    html::tree_note(m);
    return;
  }
  m.element("h3", {}, "Policy: the scheduling tree of each host");
  m.element("p", {{"class", "note"}},
            "Every sending host's NIC runs the suite's tree over its own flows: " +
                plural(s.host_trees.size(), "host", "hosts") + ", each at " +
                format_bps(s.capacity_bps) + ".");
  m.open("div", {{"class", "host-trees"}});
  for (const auto& host : s.host_trees) {
    size_t flows = 0;
    for (const auto& f : s.flows) flows += f.host == host.host ? 1 : 0;
    m.open("figure", {{"class", "host-tree"}, {"data-host", std::to_string(host.host)}});
    m.element("figcaption", {},
              "Host " + std::to_string(host.host) + " · " + plural(flows, "flow", "flows"));
    html::tree_figure(m, s, host.tree, host.host);
    m.close();
  }
  m.close();
  html::tree_note(m);
}

// The ports that arbitrate between classes: ETS on Ethernet, SL2VL + VLArb on InfiniBand.
void arbitration_section(Markup& m, const ScenarioResult& s) {
  for (const auto& port : s.arbitration) {
    const std::string where = port.port == "switch"     ? "the switch egress port"
                              : s.host_trees.size() > 1 ? "every NIC port"
                                                        : "the NIC port";
    m.open("figure", {{"class", "arbitration"},
                      {"data-port", port.port},
                      {"data-kind", port.kind},
                      {"data-decides", bool_text(port.decides)}});
    if (port.kind == "ets") {
      m.element("h3", {}, "Policy: ETS at " + where);
      html::ets_figure(m, s, port);
    } else {
      m.element("h3", {}, "Policy: SL to VL and VL arbitration at " + where);
      html::vlarb_figure(m, s, port);
    }
    m.close();
  }
}

// The scenario's title, its port and window, and whether every repetition finished.
void scenario_heading(Markup& m, const ScenarioResult& s) {
  m.open("h2");
  m.text(s.name);
  chip(m, s.passed ? "pass" : "fail", s.passed ? "PASS" : "FAIL");
  m.close();
  std::string facts = s.transport + " port at " + format_bps(s.capacity_bps) + ", MTU " +
                      std::to_string(s.mtu_bytes) + " · " +
                      std::to_string(s.repetitions_completed) + " × " +
                      format_ns(static_cast<double>(s.duration_ns)) + " after " +
                      format_ns(static_cast<double>(s.warmup_ns)) + " warm-up · seed " +
                      std::to_string(s.seed) + " · rates count wire bytes";
  m.element("p", {{"class", "facts"}}, facts);
  if (s.repetitions_completed < s.repetitions) {
    m.element("p", {{"class", "note"}},
              "Incomplete: " + std::to_string(s.repetitions_completed) + " of " +
                  std::to_string(s.repetitions) + " repetitions finished.");
  }
}

// Cards: the answer before the detail.
void scenario_cards(Markup& m, const ScenarioResult& s) {
  double measured_total = 0.0;
  for (const auto& f : s.flows)
    measured_total += std::isfinite(f.measured_bps) ? f.measured_bps : 0;
  const GroupResult* slowest = nullptr;
  for (const auto& g : s.groups) {
    if (g.latency.count != 0 &&
        (slowest == nullptr || g.latency.p99_ns > slowest->latency.p99_ns)) {
      slowest = &g;
    }
  }
  m.open("div", {{"class", "cards"}});
  card(m, "worst flow share error", format_percent(s.fairness.worst_flow_error, false),
       s.fairness.worst_flow);
  card(m, "worst group share error", format_percent(s.fairness.worst_group_error, false),
       s.fairness.worst_group);
  card(m, "normalised Jain index", format_sig(s.fairness.jain, 6), "1 = every flow its share");
  card(m, "port throughput", format_bps(measured_total),
       s.capacity_bps > 0 ? format_sig(measured_total / s.capacity_bps * 100.0, 4) + "% of " +
                                format_bps(s.capacity_bps)
                          : std::string());
  if (slowest != nullptr) {
    card(m, "highest group p99 latency", format_ns(static_cast<double>(slowest->latency.p99_ns)),
         slowest->name + ", from the scheduled time");
  }
  m.close();
}

void groups_section(Markup& m, const ScenarioResult& s, const ScenarioResult* baseline) {
  m.element("h3", {}, "Groups: expected vs measured");
  std::vector<html::BarRow> group_rows;
  for (size_t gi = 0; gi < s.groups.size(); ++gi) {
    const auto& g = s.groups[gi];
    group_rows.push_back({g.name,
                          std::to_string(g.flows) + (g.flows == 1 ? " flow" : " flows"),
                          html::group_colour(gi),
                          g.expected_bps,
                          g.measured_bps,
                          g.error,
                          baseline ? baseline_error(baseline->groups, g.name) : std::nullopt,
                          {{"class", "group-bar"},
                           {"data-group", g.name},
                           {"data-expected-bps", json_number(g.expected_bps)},
                           {"data-measured-bps", json_number(g.measured_bps)},
                           {"data-error", json_number(g.error)}}});
  }
  html::bar_figure(m, "group-bars", "Expected vs measured rate per group", group_rows,
                   find_gate(s, "max_group_share_error"));
  groups_table(m, s);
  if (!s.classes.empty() || !s.oracle_notes.empty()) classes_table(m, s);
}

// The flows shown, largest |error| first; big runs show the top N (the groups cover the rest).
std::vector<size_t> flow_order(const ScenarioResult& s, const HtmlOptions& options) {
  std::vector<size_t> order(s.flows.size());
  std::iota(order.begin(), order.end(), size_t{0});
  auto abs_error = [&](size_t i) {
    const double e = std::fabs(s.flows[i].error);
    return std::isfinite(e) ? e : std::numeric_limits<double>::max();
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return abs_error(a) > abs_error(b); });
  if (options.top_flows != 0 && order.size() > options.top_flows) order.resize(options.top_flows);
  return order;
}

void flows_section(Markup& m, const ScenarioResult& s, const std::vector<size_t>& order,
                   const ScenarioResult* baseline) {
  m.element("h3", {}, "Flows: expected vs measured, largest error first");
  m.element("p", {{"class", "note flows-shown"}},
            order.size() < s.flows.size()
                ? "top " + std::to_string(order.size()) + " of " + std::to_string(s.flows.size()) +
                      " flows by error (the group figures above include every flow)"
                : "all " + plural(s.flows.size(), "flow", "flows") + ", largest |error| first");
  std::vector<html::BarRow> flow_rows;
  for (size_t fi : order) {
    const auto& f = s.flows[fi];
    flow_rows.push_back({f.name,
                         f.group,
                         html::group_colour(html::group_index(s, f.group)),
                         f.expected_bps,
                         f.measured_bps,
                         f.error,
                         baseline ? baseline_error(baseline->flows, f.name) : std::nullopt,
                         {{"class", "flow-bar"},
                          {"data-flow", f.name},
                          {"data-group", f.group},
                          {"data-expected-bps", json_number(f.expected_bps)},
                          {"data-measured-bps", json_number(f.measured_bps)},
                          {"data-error", json_number(f.error)}}});
  }
  html::bar_figure(m, "flow-bars", "Expected vs measured rate per flow, largest error first",
                   flow_rows, find_gate(s, "max_share_error"));
  flows_table(m, s, order);
}

// Throughput, switch queue depth, latency spectra and fairness over time.
void time_figures(Markup& m, const ScenarioResult& s, const std::vector<size_t>& order,
                  const ScenarioResult* baseline) {
  m.element("h3", {}, "Throughput over time");
  html::throughput_figure(m, s, order, baseline);

  if (!s.queue_depth.empty()) {
    m.element("h3", {}, "Switch queue depth over time");
    m.element("p", {{"class", "note"}},
              "Bytes each switch egress class holds (queued, or on their way from the NICs), per " +
                  format_ns(static_cast<double>(s.bin_ns)) +
                  " bin: the time-weighted mean and the deepest, over the repetitions.");
    html::queue_figure(m, s);
  }

  m.element("h3", {}, "Latency percentile spectrum per group");
  html::latency_figure(m, s);

  m.element("h3", {}, "Fairness over time");
  m.element("p", {{"class", "note"}},
            "Normalised Jain index over measured/expected of every flow, per " +
                format_ns(static_cast<double>(s.bin_ns)) +
                " bin (1 when every flow gets exactly its share). Over the whole window: " +
                format_sig(s.fairness.jain, 8) +
                ", the value the min_jain gate judges. Bins dip when flows are bursty (on/off, "
                "Poisson): their expectation is a long-run mean.");
  html::jain_figure(m, s, find_gate(s, "min_jain"));
}

void driver_stats_table(Markup& m, const ScenarioResult& s) {
  html::nic_counters_section(m, s);
  if (!s.driver_stats.empty()) {
    m.open("details");
    m.element("summary", {}, "Driver statistics (mean per repetition)");
    m.open("table", {{"class", "driver-stats"}});
    m.open("tbody");
    for (const auto& [key, value] : s.driver_stats) {
      m.open("tr");
      m.element("td", {{"class", "mono"}}, key);
      m.element("td", {{"class", "num"}}, format_sig(value, 8));
      m.close();
    }
    m.close().close().close();
  }
}

void scenario_section(Markup& m, const ScenarioResult& s, size_t index, const HtmlOptions& options,
                      const ScenarioResult* baseline) {
  m.open("section", {{"class", "scenario"},
                     {"id", "scenario-" + std::to_string(index + 1)},
                     {"data-scenario", s.name},
                     {"data-flows-total", std::to_string(s.flows.size())}});
  scenario_heading(m, s);
  if (nothing_measured(s)) {  // no figures to draw: zeros over no time are not figures
    m.element("p", {{"class", "note"}}, std::string("Not judged: ") + kNothingMeasured + ".");
    m.close();  // section
    return;
  }
  scenario_cards(m, s);
  m.element("h3", {}, "Gates");
  gates_table(m, s);
  html::fabric_section(m, s);
  tree_section(m, s);
  arbitration_section(m, s);
  groups_section(m, s, baseline);
  const std::vector<size_t> order = flow_order(s, options);
  flows_section(m, s, order, baseline);
  time_figures(m, s, order, baseline);
  driver_stats_table(m, s);
  m.close();  // section
}

// ---------------------------------------------------------------------------------------------
std::string metric_value(const MetricComparison& mc, double value) {
  if (mc.metric.find("bps") != std::string::npos) return format_bps(value);
  if (mc.metric.size() > 3 && mc.metric.ends_with("_ns")) return format_ns(value);
  if (mc.metric.find("error") != std::string::npos) return format_percent(value, false);
  return format_sig(value, 6);
}

std::string metric_change(const MetricComparison& mc) {
  if (mc.metric == "abs_error") {
    // A difference of two ratios: percentage points.
    std::string text = format_percent(mc.change);
    if (!text.empty() && text.back() == '%') text = text.substr(0, text.size() - 1) + " pp";
    return text;
  }
  return format_percent(mc.change);
}

void comparison_rows(Markup& m, const std::vector<const MetricComparison*>& rows,
                     bool show_scenario) {
  m.open("div", {{"class", "table-wrap"}});
  m.open("table", {{"class", "comparison"}});
  m.open("thead").open("tr");
  m.element("th", {}, "");
  if (show_scenario) m.element("th", {}, "scenario");
  m.element("th", {}, "subject");
  m.element("th", {}, "metric");
  // q is the p-value adjusted for testing many metrics at once: the one the verdict uses.
  for (const char* h : {"baseline", "current", "change", "p", "q"}) {
    m.element("th", {{"class", "num"}}, h);
  }
  m.close().close();
  m.open("tbody");
  for (const MetricComparison* mc : rows) {
    std::string cls = "metric";
    if (mc->regression) cls += " regression";
    if (mc->improvement) cls += " improvement";
    if (mc->inconclusive) cls += " inconclusive";
    m.open("tr", {{"class", cls},
                  {"data-scenario", mc->scenario},
                  {"data-kind", mc->kind},
                  {"data-subject", mc->subject},
                  {"data-metric", mc->metric},
                  {"data-change", json_number(mc->change)},
                  {"data-p-value", json_number(mc->p_value)},
                  {"data-q-value", json_number(mc->p_adjusted)},
                  {"data-regression", bool_text(mc->regression)}});
    m.open("td");
    if (mc->regression) {
      chip(m, "fail", "regression");
    } else if (mc->inconclusive) {
      chip(m, "fail", "inconclusive");
    } else if (mc->improvement) {
      chip(m, "better", "improvement");
    } else {
      chip(m, "neutral", mc->significant ? "within noise" : "no change");
    }
    m.close();
    if (show_scenario) m.element("td", {}, mc->scenario);
    m.open("td");
    m.text(mc->subject);
    m.element("span", {{"class", "muted"}}, " " + mc->kind);
    m.close();
    m.element("td", {{"class", "mono"}}, mc->metric);
    m.element("td", {{"class", "num"}}, metric_value(*mc, mc->baseline));
    m.element("td", {{"class", "num"}}, metric_value(*mc, mc->current));
    m.element("td", {{"class", "num"}}, metric_change(*mc));
    for (double p : {mc->p_value, mc->p_adjusted}) {
      m.element("td", {{"class", "num"}}, p < 0.001 ? std::string("< 0.001") : format_sig(p, 3));
    }
    m.close();
  }
  m.close().close().close();
}

void comparison_section(Markup& m, const Comparison& c, size_t scenarios) {
  m.open("section", {{"id", "comparison"}});
  m.open("h2");
  m.text("Baseline comparison");
  chip(m, c.failed() ? "fail" : "pass", c.verdict());
  m.close();
  m.element("p", {{"class", "facts"}},
            (c.baseline_label.empty() ? std::string("baseline") : c.baseline_label) + " → " +
                (c.current_label.empty() ? std::string("current") : c.current_label) +
                " · noise threshold ±" + html::format_trimmed(c.options.threshold * 100, 4) +
                "% · two-sided Mann–Whitney U over the repetitions at α = " +
                html::format_trimmed(c.options.alpha, 4));
  m.element("p", {},
            plural(c.regressions, "regression", "regressions") + " and " +
                plural(c.improvements, "improvement", "improvements") + " in " +
                plural(c.metrics.size(), "metric", "metrics") +
                ". A regression is a change beyond the threshold in the bad direction that is "
                "also significant.");
  if (!c.notes.empty()) {
    m.open("ul", {{"class", "note"}});
    for (const auto& note : c.notes) m.element("li", {}, note);
    m.close();
  }
  std::vector<const MetricComparison*> flagged, rest;
  for (const auto& mc : c.metrics) {
    (mc.regression || mc.inconclusive || mc.improvement ? flagged : rest).push_back(&mc);
  }
  std::stable_sort(flagged.begin(), flagged.end(),
                   [](const MetricComparison* a, const MetricComparison* b) {
                     return a->regression && !b->regression;
                   });
  const bool show_scenario = scenarios > 1;
  if (!flagged.empty()) comparison_rows(m, flagged, show_scenario);
  if (!rest.empty()) {
    // Every metric is in the page once; the unflagged ones fold away when there are many.
    const bool fold = !flagged.empty() || rest.size() > 40;
    if (fold) {
      m.open("details");
      m.element("summary", {},
                plural(rest.size(), "metric", "metrics") + " without a significant change");
    }
    comparison_rows(m, rest, show_scenario);
    if (fold) m.close();
  }
  m.close();
}

}  // namespace

std::string render_html_report(const Results& results, const Comparison* comparison,
                               const HtmlOptions& options, const Results* baseline) {
  Markup m;
  m.str().reserve(256 * 1024);
  m.raw("<!DOCTYPE html>\n");
  m.open("html", {{"lang", "en"}});
  m.open("head");
  m.empty("meta", {{"charset", "utf-8"}});
  m.empty("meta", {{"name", "viewport"}, {"content", "width=device-width, initial-scale=1"}});
  m.element("title", {}, "qosbench: " + results.suite);
  m.open("style");
  m.raw(kReportCss);
  m.close();
  m.close();  // head
  m.open("body", {{"data-schema", results.schema}, {"data-suite", results.suite}});
  m.open("main");
  m.open("header");
  m.element("h1", {}, results.suite.empty() ? std::string("qosbench report") : results.suite);
  m.element("p", {{"class", "sub"}},
            "qosbench fairness report · did every flow get its share, and at what latency?");
  m.close();

  verdict(m, results, comparison);
  metadata(m, results);
  if (!results.warnings.empty()) {
    m.open("div", {{"class", "warnings"}});
    m.element("strong", {}, "Warnings from compiling the policy");
    m.open("ul");
    for (const auto& w : results.warnings) m.element("li", {}, w);
    m.close();
    m.close();
  }
  if (results.scenarios.size() > 1) {
    m.open("nav", {{"class", "toc"}});
    m.element("strong", {}, "Scenarios");
    m.open("ol");
    for (size_t i = 0; i < results.scenarios.size(); ++i) {
      const auto& s = results.scenarios[i];
      m.open("li");
      m.element("a", {{"href", "#scenario-" + std::to_string(i + 1)}}, s.name);
      m.text(" ");
      chip(m, s.passed ? "pass" : "fail", s.passed ? "pass" : "fail");
      m.close();
    }
    m.close();
    m.close();
  }
  if (comparison != nullptr) comparison_section(m, *comparison, results.scenarios.size());
  for (size_t i = 0; i < results.scenarios.size(); ++i) {
    scenario_section(m, results.scenarios[i], i, options,
                     find_scenario(baseline, results.scenarios[i].name));
  }
  m.open("footer");
  m.text("Generated by qosbench " + results.tool_version + " from the results of " +
         results.date_utc +
         ". One self-contained file: no scripts, no fonts or images fetched. Hover a bar, line "
         "or box for its figures.");
  m.close();
  m.close();  // main
  m.close();  // body
  m.close();  // html
  m.raw("\n");
  return std::move(m.str());
}

}  // namespace qb::report
