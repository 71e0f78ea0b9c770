// ETS of an Ethernet port: which priority goes to which TC (prio_tc), how each TC is served
// (strict before ETS by arbitration group, ETS TCs by their DWRR percentages, a cap on any TC),
// and, at the port that decides the shares, what each TC should and did carry.
#include <algorithm>
#include <map>
#include <set>

#include "figure_parts.hpp"
#include "svg_charts.hpp"
#include "svg_figures.hpp"

namespace qb::report::html {
namespace {

constexpr double kWidth = 1180, kTop = 34, kPitch = 42, kPad = 14;
constexpr double kPrioX = kPad, kPrioW = 190, kBoxH = 30;
constexpr double kTcX = 310, kTcW = 330, kBarX = 668, kBarW = 290;

std::string tsa_text(const EtsTcResult& tc) {
  std::string text;
  if (tc.tsa == "strict") {
    text = "strict · group " + std::to_string(tc.group);
  } else if (tc.tsa == "ets") {
    text = "ETS " + std::to_string(tc.ets_percent) + "% · group " + std::to_string(tc.group);
  } else {
    text = tc.tsa;
  }
  if (tc.max_rate_bps) text += " · cap " + format_bps(*tc.max_rate_bps);
  return text;
}

std::string list_text(const std::set<uint32_t>& values) {
  std::string out;
  for (uint32_t v : values) out += (out.empty() ? "" : ",") + std::to_string(v);
  return out;
}

}  // namespace

// Long (about 130 lines) on purpose: one SVG laid out top to bottom, each part placed below the
// one before; split, the running y offset and the shared scales would travel through every step.
void ets_figure(Markup& m, const ScenarioResult& s, const PortArbitrationResult& port) {
  const size_t tcs = port.tcs.size();
  const size_t priorities = port.prio_tc.size();
  const size_t rows = std::max(tcs, priorities);
  // Per priority: its flows and the DSCPs they carry (what dscp2prio read).
  std::map<uint32_t, size_t> flows_of;
  std::map<uint32_t, std::set<uint32_t>> dscps_of;
  for (const auto& f : s.flows) {
    ++flows_of[f.priority];
    dscps_of[f.priority].insert(f.dscp);
  }
  std::vector<std::vector<uint32_t>> priorities_of(tcs);
  for (uint32_t p = 0; p < priorities; ++p) {
    if (port.prio_tc[p] < tcs) priorities_of[port.prio_tc[p]].push_back(p);
  }
  auto row_mid = [](size_t row) { return kTop + static_cast<double>(row) * kPitch + kBoxH / 2; };
  const double height = kTop + static_cast<double>(rows) * kPitch + 4;

  begin_svg(m, kWidth, height, "ets",
            "ETS: priority to traffic class, TSA, ETS shares and caps, expected vs measured per "
            "class");
  m.open("g", {{"class", "axis"}});
  m.element("text", {{"class", "axis-title"}, {"x", coord(kPrioX)}, {"y", "16"}},
            "priority (trust " + port.trust + ")");
  m.element("text", {{"class", "axis-title"}, {"x", coord(kTcX)}, {"y", "16"}},
            "traffic class: TSA, ETS share, cap");
  m.element("text", {{"class", "axis-title"}, {"x", coord(kBarX)}, {"y", "16"}},
            port.decides ? "measured (bar) vs expected (tick), share of the port"
                         : "shares are decided at the switch egress");
  m.close();

  m.open("g", {{"class", "edges"}});
  for (uint32_t p = 0; p < priorities; ++p) {
    const uint32_t tc = port.prio_tc[p];
    if (tc >= tcs) continue;
    const double x0 = kPrioX + kPrioW, y0 = row_mid(p), x1 = kTcX, y1 = row_mid(tc);
    const double xm = (x0 + x1) / 2;
    m.empty("path",
            {{"class", flows_of.count(p) != 0 ? "prio-edge" : "prio-edge unused"},
             {"data-priority", std::to_string(p)},
             {"data-tc", std::to_string(tc)},
             {"d", "M" + coord(x0) + "," + coord(y0) + " C" + coord(xm) + "," + coord(y0) + " " +
                       coord(xm) + "," + coord(y1) + " " + coord(x1) + "," + coord(y1)}});
  }
  m.close();

  for (uint32_t p = 0; p < priorities; ++p) {
    const double y = row_mid(p) - kBoxH / 2;
    const size_t flows = flows_of.count(p) != 0 ? flows_of[p] : 0;
    m.open("g", {{"class", flows == 0 ? "ets-priority unused" : "ets-priority"},
                 {"data-priority", std::to_string(p)},
                 {"data-tc", std::to_string(port.prio_tc[p])},
                 {"data-flows", std::to_string(flows)}});
    std::string detail = flows == 0 ? std::string("no flows")
                                    : std::to_string(flows) + (flows == 1 ? " flow" : " flows");
    if (flows != 0 && port.trust == "dscp") detail += " · DSCP " + list_text(dscps_of[p]);
    m.element("title", {},
              "priority " + std::to_string(p) + " → TC" + std::to_string(port.prio_tc[p]) +
                  " (prio_tc)\n" + detail);
    m.empty("rect", {{"class", "prio-box"},
                     {"x", coord(kPrioX)},
                     {"y", coord(y)},
                     {"width", coord(kPrioW)},
                     {"height", coord(kBoxH)},
                     {"rx", "5"}});
    m.element("text", {{"class", "label"}, {"x", coord(kPrioX + 10)}, {"y", coord(y + 19)}},
              "prio " + std::to_string(p));
    m.element("text",
              {{"class", "small muted"},
               {"x", coord(kPrioX + kPrioW - 10)},
               {"y", coord(y + 19)},
               {"text-anchor", "end"}},
              shorten(detail, 22));
    m.close();
  }

  for (size_t row = 0; row < tcs; ++row) {
    const EtsTcResult& tc = port.tcs[row];
    const std::string name = "TC" + std::to_string(tc.tc);
    const ClassResult* measured = port.decides ? find_class(s, name) : nullptr;
    // Used: a flow's priority maps here (a mapped priority without flows carries nothing).
    bool used = measured != nullptr;
    for (uint32_t p : priorities_of[row]) used = used || flows_of.count(p) != 0;
    std::vector<Attr> attrs = {{"class", used ? "ets-tc" : "ets-tc unused"},
                               {"data-class", name},
                               {"data-tsa", tc.tsa},
                               {"data-ets-percent", std::to_string(tc.ets_percent)},
                               {"data-group", std::to_string(tc.group)}};
    if (tc.max_rate_bps) attrs.emplace_back("data-max-rate-bps", json_number(*tc.max_rate_bps));
    if (measured != nullptr) {
      attrs.emplace_back("data-expected-bps", json_number(measured->expected_bps));
      attrs.emplace_back("data-measured-bps", json_number(measured->measured_bps));
    }
    m.open("g", attrs);
    std::string title = name + ": " + tsa_text(tc);
    std::string prios;
    for (uint32_t p : priorities_of[row]) prios += (prios.empty() ? "" : ", ") + std::to_string(p);
    title += "\npriorities: " + (prios.empty() ? std::string("none") : prios);
    if (measured != nullptr) {
      title += "\nmeasured " + format_bps(measured->measured_bps) + ", expected " +
               format_bps(measured->expected_bps) + " (" + format_percent(measured->error) + ")";
    }
    m.element("title", {}, title);
    const double y = row_mid(row) - kBoxH / 2;
    m.empty("rect", {{"class", tc.tsa == "strict" ? "class-box strict" : "class-box"},
                     {"x", coord(kTcX)},
                     {"y", coord(y)},
                     {"width", coord(kTcW)},
                     {"height", coord(kBoxH)},
                     {"rx", "5"}});
    m.element("text", {{"class", "name"}, {"x", coord(kTcX + 10)}, {"y", coord(y + 20)}}, name);
    m.element("text",
              {{"class", "small muted"},
               {"x", coord(kTcX + kTcW - 10)},
               {"y", coord(y + 20)},
               {"text-anchor", "end"}},
              tsa_text(tc));
    if (measured != nullptr) {
      class_share_bar(m, kBarX, row_mid(row), kBarW, *measured, port.capacity_bps, tc.max_rate_bps);
    }
    m.close();
  }
  m.close();  // svg
  m.open("p", {{"class", "note"}});
  m.text(
      "Each priority goes to the TC prio_tc names (under trust dscp, dscp2prio picks the "
      "priority from the DSCP). Strict TCs (blue outline) are served first, the higher "
      "arbitration group first; ETS TCs share what is left by their percentages; a cap limits a "
      "TC whatever its TSA. Bar: measured share of the port; black tick: expected; ");
  m.element("span", {{"class", "cap-key"}}, "vermillion tick");
  m.text(": the TC's cap. Faded: no flow uses it.");
  m.close();
}

}  // namespace qb::report::html
