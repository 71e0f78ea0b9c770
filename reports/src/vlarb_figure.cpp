// InfiniBand arbitration of a port: the SL -> VL table, the VLArb high and low tables (entries in
// programmed order, weights in 64-byte credits) with high_limit, and, at the port that decides
// the shares, what each VL should and did carry.
#include <algorithm>
#include <map>
#include <set>

#include "figure_parts.hpp"
#include "svg_charts.hpp"
#include "svg_figures.hpp"

namespace qb::report::html {
namespace {

constexpr double kWidth = 1180, kPad = 14, kCellGap = 5;
constexpr uint32_t kDropVl = 15;

std::string high_limit_text(uint32_t limit) {
  if (limit == 255) return "high_limit 255: no limit on the high table";
  return "high_limit " + std::to_string(limit) + ": at most " +
         (limit == 0 ? std::string("one packet") : std::to_string(limit) + " × 4 KB") +
         " from the high table before a low entry's turn";
}

// One VLArb table as a row of cells in programmed order; returns the row's bottom.
double table_row(Markup& m, const char* table, const std::vector<VlArbEntryResult>& entries,
                 double y, const std::string& title, const std::set<uint32_t>& used_vls) {
  m.element("text", {{"class", "section-title"}, {"x", coord(kPad)}, {"y", coord(y + 12)}}, title);
  const double top = y + 20, h = 38;
  if (entries.empty()) {
    m.element("text", {{"class", "small muted"}, {"x", coord(kPad)}, {"y", coord(top + 16)}},
              "empty table");
    return top + 22;
  }
  const double pitch = std::min(72.0, (kWidth - 2 * kPad) / static_cast<double>(entries.size()));
  const double w = pitch - kCellGap;
  const bool text = w >= 40;  // narrower cells (long tables) keep their figures in the tooltip
  for (size_t i = 0; i < entries.size(); ++i) {
    const VlArbEntryResult& e = entries[i];
    const double x = kPad + static_cast<double>(i) * pitch;
    std::string cls = "table-cell";
    if (e.weight == 0) {
      cls += " skipped";
    } else if (used_vls.count(e.vl) != 0) {
      cls += " used";
    }
    m.open("g", {{"class", "vlarb-entry"},
                 {"data-table", table},
                 {"data-index", std::to_string(i)},
                 {"data-vl", std::to_string(e.vl)},
                 {"data-weight", std::to_string(e.weight)}});
    m.element("title", {},
              std::string(table) + " table entry " + std::to_string(i) + ": VL" +
                  std::to_string(e.vl) + ", weight " + std::to_string(e.weight) +
                  (e.weight == 0 ? " (skipped)" : " × 64 bytes per turn"));
    m.empty("rect", {{"class", cls},
                     {"x", coord(x)},
                     {"y", coord(top)},
                     {"width", coord(w)},
                     {"height", coord(h)},
                     {"rx", "4"}});
    if (text) {
      m.element("text",
                {{"class", "label"},
                 {"x", coord(x + w / 2)},
                 {"y", coord(top + 16)},
                 {"text-anchor", "middle"}},
                "VL" + std::to_string(e.vl));
      m.element("text",
                {{"class", "small muted"},
                 {"x", coord(x + w / 2)},
                 {"y", coord(top + 31)},
                 {"text-anchor", "middle"}},
                "w " + std::to_string(e.weight));
    }
    m.close();
  }
  return top + h;
}

uint32_t weight_of(const std::vector<VlArbEntryResult>& table, uint32_t vl) {
  uint32_t sum = 0;
  for (const auto& e : table) sum += e.vl == vl ? e.weight : 0;
  return sum;
}

uint32_t total_weight(const std::vector<VlArbEntryResult>& table) {
  uint32_t sum = 0;
  for (const auto& e : table) sum += e.weight;
  return sum;
}

}  // namespace

// Long (about 140 lines) on purpose: one SVG laid out top to bottom, each part placed below the
// one before; split, the running y offset and the shared scales would travel through every step.
void vlarb_figure(Markup& m, const ScenarioResult& s, const PortArbitrationResult& port) {
  // SLs with flows, and the VLs they reach here.
  std::map<uint32_t, size_t> flows_of_sl;
  for (const auto& f : s.flows) ++flows_of_sl[f.sl];
  std::set<uint32_t> used_vls;
  for (const auto& [sl, flows] : flows_of_sl) {
    if (sl < port.sl2vl.size() && port.sl2vl[sl] != kDropVl) used_vls.insert(port.sl2vl[sl]);
  }
  // The VLs drawn as rows: every VL with a class result, table weight or flows.
  std::set<uint32_t> vls = used_vls;
  for (const auto* table : {&port.vlarb_high, &port.vlarb_low}) {
    for (const auto& e : *table) {
      if (e.weight != 0) vls.insert(e.vl);
    }
  }
  if (port.decides) {
    for (const auto& c : s.classes) {
      if (c.name.starts_with("VL")) vls.insert(static_cast<uint32_t>(std::stoul(c.name.substr(2))));
    }
  }

  constexpr double kSlTop = 26, kSlH = 44, kRowPitch = 34, kRowH = 26;
  const double sl_pitch =
      port.sl2vl.empty() ? 0.0 : (kWidth - 2 * kPad) / static_cast<double>(port.sl2vl.size());
  const double tables_top = kSlTop + kSlH + 18;
  // Heights: SL row, two tables (title 20 + cells 38 + gap 14 each), then the VL rows.
  const double rows_top = tables_top + 2 * (20 + 38 + 14) + 10;
  const double height = rows_top + 24 + static_cast<double>(vls.size()) * kRowPitch + 4;

  begin_svg(m, kWidth, height, "vlarb",
            "InfiniBand SL to VL and VL arbitration tables, expected vs measured per VL");
  m.element("text", {{"class", "section-title"}, {"x", coord(kPad)}, {"y", "16"}},
            "SL → VL (SL2VL; VL15 drops)");
  for (size_t sl = 0; sl < port.sl2vl.size(); ++sl) {
    const uint32_t vl = port.sl2vl[sl];
    const size_t flows = flows_of_sl.count(static_cast<uint32_t>(sl)) != 0
                             ? flows_of_sl[static_cast<uint32_t>(sl)]
                             : 0;
    const double x = kPad + static_cast<double>(sl) * sl_pitch, w = sl_pitch - kCellGap;
    std::string cls = "table-cell";
    if (vl == kDropVl) {
      cls += " drop";
    } else if (flows != 0) {
      cls += " used";
    }
    m.open("g", {{"class", "sl2vl-entry"},
                 {"data-sl", std::to_string(sl)},
                 {"data-vl", std::to_string(vl)},
                 {"data-flows", std::to_string(flows)}});
    m.element("title", {},
              "SL" + std::to_string(sl) + " → " +
                  (vl == kDropVl ? std::string("VL15: dropped") : "VL" + std::to_string(vl)) +
                  "\n" + std::to_string(flows) + (flows == 1 ? " flow" : " flows"));
    m.empty("rect", {{"class", cls},
                     {"x", coord(x)},
                     {"y", coord(kSlTop)},
                     {"width", coord(w)},
                     {"height", coord(kSlH)},
                     {"rx", "4"}});
    m.element("text",
              {{"class", "small muted"},
               {"x", coord(x + w / 2)},
               {"y", coord(kSlTop + 17)},
               {"text-anchor", "middle"}},
              "SL" + std::to_string(sl));
    m.element("text",
              {{"class", "label"},
               {"x", coord(x + w / 2)},
               {"y", coord(kSlTop + 35)},
               {"text-anchor", "middle"}},
              vl == kDropVl ? std::string("drop") : "VL" + std::to_string(vl));
    m.close();
  }

  double y = table_row(m, "high", port.vlarb_high, tables_top,
                       "VLArb high table · " + high_limit_text(port.high_limit), used_vls);
  table_row(m, "low", port.vlarb_low, y + 14, "VLArb low table (served when the high table yields)",
            used_vls);

  m.element("text", {{"class", "section-title"}, {"x", coord(kPad)}, {"y", coord(rows_top + 12)}},
            port.decides ? "Per VL: measured (bar) vs expected (tick), share of the port"
                         : "Per VL (the shares are decided at the switch egress)");
  const uint32_t low_total = total_weight(port.vlarb_low);
  const uint32_t high_total = total_weight(port.vlarb_high);
  size_t row = 0;
  for (uint32_t vl : vls) {
    const std::string name = "VL" + std::to_string(vl);
    const ClassResult* measured = port.decides ? find_class(s, name) : nullptr;
    const uint32_t high = weight_of(port.vlarb_high, vl), low = weight_of(port.vlarb_low, vl);
    std::string tables;
    if (high != 0) tables = "high w " + std::to_string(high);
    if (low != 0) {
      tables += (tables.empty() ? "" : " · ") + std::string("low w ") + std::to_string(low);
      if (low_total != 0) tables += " (" + format_sig(100.0 * low / low_total, 3) + "% of low)";
    }
    if (tables.empty()) tables = "no table weight: starves";
    std::vector<Attr> attrs = {{"class", used_vls.count(vl) != 0 ? "vl-class" : "vl-class unused"},
                               {"data-class", name},
                               {"data-high-weight", std::to_string(high)},
                               {"data-low-weight", std::to_string(low)}};
    if (measured != nullptr) {
      attrs.emplace_back("data-expected-bps", json_number(measured->expected_bps));
      attrs.emplace_back("data-measured-bps", json_number(measured->measured_bps));
    }
    m.open("g", attrs);
    std::string title = name + ": " + tables;
    if (high_total != 0 && high != 0) {
      title += "\nhigh table: " + format_sig(100.0 * high / high_total, 3) + "% of its weight";
    }
    if (measured != nullptr) {
      title += "\nmeasured " + format_bps(measured->measured_bps) + ", expected " +
               format_bps(measured->expected_bps) + " (" + format_percent(measured->error) + ")";
    }
    m.element("title", {}, title);
    const double top = rows_top + 24 + static_cast<double>(row) * kRowPitch;
    m.empty("rect", {{"class", high != 0 ? "class-box strict" : "class-box"},
                     {"x", coord(kPad)},
                     {"y", coord(top)},
                     {"width", "420"},
                     {"height", coord(kRowH)},
                     {"rx", "5"}});
    m.element("text", {{"class", "name"}, {"x", coord(kPad + 10)}, {"y", coord(top + 18)}}, name);
    m.element("text",
              {{"class", "small muted"},
               {"x", coord(kPad + 410)},
               {"y", coord(top + 18)},
               {"text-anchor", "end"}},
              tables);
    if (measured != nullptr) {
      class_share_bar(m, 468, top + kRowH / 2, 440, *measured, port.capacity_bps, std::nullopt);
    }
    m.close();
    ++row;
  }
  m.close();  // svg
  m.element("p", {{"class", "note"}},
            "Each SL goes to the VL that SL2VL names (VL15 drops it). The high table is served "
            "first, up to high_limit; the low table gets the rest. Within a table the entries "
            "take turns in order, each sending its weight in 64-byte credits (whole packets, "
            "so large packets round the weights). Highlighted: entries and SLs that flows use; "
            "dashed: weight 0, skipped; blue outline: a VL in the high table. Bar: measured "
            "share of the port; black tick: expected.");
}

}  // namespace qb::report::html
