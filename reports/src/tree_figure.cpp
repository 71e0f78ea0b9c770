#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "figure_parts.hpp"
#include "svg_charts.hpp"
#include "svg_figures.hpp"

namespace qb::report::html {

namespace {

constexpr double kBoxW = 300, kBoxH = 62, kCol = 348, kRowPitch = 76, kPad = 14, kTop = 12;

// Tidy left-to-right layout: leaves take consecutive rows, a node sits between its first
// and last child.
struct TreeLayout {
  struct Pos {
    int depth = 0;
    double row = 0.0;
    bool placed = false;
  };
  std::vector<std::vector<size_t>> children;
  std::vector<size_t> parent_of;  // the element count: a root
  std::vector<Pos> pos;
  int rows = 0, max_depth = 0;

  double x(size_t i) const { return kPad + pos[i].depth * kCol; }
  double y(size_t i) const { return kPad + kTop + pos[i].row * kRowPitch; }
};

TreeLayout layout_tree(const std::vector<ElementResult>& tree) {
  const size_t n = tree.size();
  TreeLayout layout;
  layout.children.resize(n);
  layout.parent_of.assign(n, n);
  layout.pos.resize(n);
  std::map<std::string, size_t> by_name;
  for (size_t i = 0; i < n; ++i) by_name.emplace(tree[i].name, i);
  std::vector<size_t> roots;
  for (size_t i = 0; i < n; ++i) {
    auto it = by_name.find(tree[i].parent);
    if (tree[i].parent.empty() || it == by_name.end() || it->second == i) {
      roots.push_back(i);
    } else {
      layout.children[it->second].push_back(i);
      layout.parent_of[i] = it->second;
    }
  }
  // `placed` guards against cycles in a hand-edited results file.
  auto& pos = layout.pos;
  std::function<double(size_t, int)> place = [&](size_t i, int depth) -> double {
    pos[i].placed = true;
    pos[i].depth = depth;
    layout.max_depth = std::max(layout.max_depth, depth);
    double first = -1.0, last = -1.0;
    for (size_t c : layout.children[i]) {
      if (pos[c].placed) continue;
      const double r = place(c, depth + 1);
      if (first < 0) first = r;
      last = r;
    }
    pos[i].row = first < 0 ? layout.rows++ : (first + last) / 2.0;
    return pos[i].row;
  };
  for (size_t r : roots) place(r, 0);
  for (size_t i = 0; i < n; ++i) {
    if (!pos[i].placed) place(i, 0);
  }
  return layout;
}

// The bar: `e`'s share of its parent (of the port for a root: `parent_*` its rates); tick =
// expected; a cap below the parent's expected rate is its own tick. The measured share.
double share_bar(Markup& m, const ElementResult& e, double parent_measured, double parent_expected,
                 double x, double y) {
  auto share = [](double part, double whole) {
    return whole > 0 ? std::clamp(part / whole, 0.0, 1.0) : 0.0;
  };
  const double bar_x = x + 12, bar_y = y + 28, bar_w = kBoxW - 24 - 56, bar_h = 8;
  const double measured_share = share(e.measured_bps, parent_measured);
  const double expected_share = share(e.expected_bps, parent_expected);
  m.empty("rect", {{"class", "track"},
                   {"x", coord(bar_x)},
                   {"y", coord(bar_y)},
                   {"width", coord(bar_w)},
                   {"height", coord(bar_h)},
                   {"rx", "2"}});
  m.empty("rect", {{"class", "fill"},
                   {"x", coord(bar_x)},
                   {"y", coord(bar_y)},
                   {"width", coord(bar_w * measured_share)},
                   {"height", coord(bar_h)},
                   {"rx", "2"}});
  const double tick_x = bar_x + bar_w * expected_share;
  m.empty("line", {{"class", "expected-tick"},
                   {"x1", coord(tick_x)},
                   {"x2", coord(tick_x)},
                   {"y1", coord(bar_y - 3)},
                   {"y2", coord(bar_y + bar_h + 3)}});
  if (e.cap_bps && parent_expected > 0 && *e.cap_bps < parent_expected) {
    const double cap_x = bar_x + bar_w * share(*e.cap_bps, parent_expected);
    m.empty("line", {{"class", "cap-tick"},
                     {"x1", coord(cap_x)},
                     {"x2", coord(cap_x)},
                     {"y1", coord(bar_y - 4)},
                     {"y2", coord(bar_y + bar_h + 4)}});
  }
  m.element("text",
            {{"class", "small"},
             {"x", coord(x + kBoxW - 12)},
             {"y", coord(bar_y + bar_h)},
             {"text-anchor", "end"}},
            format_sig(measured_share * 100.0, 3) + "%");
  return measured_share;
}

// The cap badge on the box's top edge.
void cap_badge(Markup& m, double cap_bps, double x, double y) {
  const std::string cap_text = "cap " + format_bps(cap_bps);
  const double w = 12 + static_cast<double>(cap_text.size()) * 6.0;
  m.empty("rect", {{"class", "cap-badge"},
                   {"x", coord(x + kBoxW - 12 - w)},
                   {"y", coord(y - 9)},
                   {"width", coord(w)},
                   {"height", "17"},
                   {"rx", "8"}});
  m.element("text",
            {{"class", "cap-text"},
             {"x", coord(x + kBoxW - 12 - w / 2)},
             {"y", coord(y + 3.5)},
             {"text-anchor", "middle"}},
            cap_text);
}

// One element's box: its name and share or flows, its share bar, its rates and error, its cap.
void element_box(Markup& m, const ScenarioResult& s, const std::vector<ElementResult>& tree,
                 size_t i, const TreeLayout& layout,
                 const std::map<std::string, size_t>& flows_on_leaf) {
  const size_t n = tree.size();
  const ElementResult& e = tree[i];
  const double x = layout.x(i), y = layout.y(i);
  std::vector<Attr> attrs = {{"class", "tree-node"},
                             {"data-name", e.name},
                             {"data-kind", e.is_leaf ? "leaf" : "node"},
                             {"data-expected-bps", json_number(e.expected_bps)},
                             {"data-measured-bps", json_number(e.measured_bps)}};
  if (e.cap_bps) attrs.emplace_back("data-cap-bps", json_number(*e.cap_bps));
  m.open("g", attrs);

  const double error = e.expected_bps > 0 ? e.measured_bps / e.expected_bps - 1.0 : 0.0;
  std::string title = e.name + (e.is_leaf ? " (leaf)" : " (node)") + "\nmeasured " +
                      format_bps(e.measured_bps) + ", expected " + format_bps(e.expected_bps) +
                      " (" + format_percent(error) + ")";
  if (e.bw_share > 0) title += "\nbw_share " + std::to_string(e.bw_share);
  if (e.cap_bps) title += "\ncap (max_avg_bw) " + format_bps(*e.cap_bps);
  m.element("title", {}, title);

  m.empty("rect", {{"class", e.is_leaf ? "box leaf" : "box"},
                   {"x", coord(x)},
                   {"y", coord(y)},
                   {"width", coord(kBoxW)},
                   {"height", coord(kBoxH)},
                   {"rx", "6"}});
  std::string right;
  if (e.bw_share > 0) right = "share " + std::to_string(e.bw_share);
  if (e.is_leaf) {
    const auto on_leaf = flows_on_leaf.find(e.name);
    const size_t k = on_leaf != flows_on_leaf.end() ? on_leaf->second : 0;
    right += (right.empty() ? "" : " · ") + std::to_string(k) + (k == 1 ? " flow" : " flows");
  }
  if (layout.parent_of[i] == n && right.empty()) right = "port " + format_bps(s.capacity_bps);
  const auto name_chars = static_cast<size_t>(
      std::max(4.0, (kBoxW - 24 - static_cast<double>(right.size()) * 6.2 - 10) / 7.6));
  m.element("text", {{"class", "name"}, {"x", coord(x + 12)}, {"y", coord(y + 19)}},
            shorten(e.name, name_chars));
  m.element("text",
            {{"class", "small muted"},
             {"x", coord(x + kBoxW - 12)},
             {"y", coord(y + 19)},
             {"text-anchor", "end"}},
            right);

  double parent_measured = s.capacity_bps, parent_expected = s.capacity_bps;
  if (layout.parent_of[i] != n) {
    parent_measured = tree[layout.parent_of[i]].measured_bps;
    parent_expected = tree[layout.parent_of[i]].expected_bps;
  }
  share_bar(m, e, parent_measured, parent_expected, x, y);
  m.element("text", {{"class", "small"}, {"x", coord(x + 12)}, {"y", coord(y + 54)}},
            rate_pair(e.measured_bps, e.expected_bps));
  m.element("text",
            {{"class", "small muted"},
             {"x", coord(x + kBoxW - 12)},
             {"y", coord(y + 54)},
             {"text-anchor", "end"}},
            format_percent(error));
  if (e.cap_bps) cap_badge(m, *e.cap_bps, x, y);
  m.close();  // g.tree-node
}

}  // namespace

void tree_figure(Markup& m, const ScenarioResult& s, const std::vector<ElementResult>& tree,
                 std::optional<uint32_t> host) {
  const size_t n = tree.size();
  if (n == 0) {
    m.element("p", {{"class", "note"}}, "The results carry no scheduling tree.");
    return;
  }
  std::map<std::string, size_t> flows_on_leaf;
  for (const auto& f : s.flows) {
    if (!host || f.host == *host) ++flows_on_leaf[f.leaf];
  }
  const TreeLayout layout = layout_tree(tree);
  const double width = 2 * kPad + layout.max_depth * kCol + kBoxW;
  const double height = kPad + kTop + layout.rows * kRowPitch - (kRowPitch - kBoxH) + kPad;

  begin_svg(m, width, height, "tree",
            host ? "Scheduling tree of host " + std::to_string(*host) +
                       ": expected vs measured at every element"
                 : std::string("Scheduling tree: expected vs measured at every element"));
  m.open("g", {{"class", "edges"}});
  for (size_t i = 0; i < n; ++i) {
    for (size_t c : layout.children[i]) {
      const double x_from = layout.x(i) + kBoxW, y_from = layout.y(i) + kBoxH / 2;
      const double x_to = layout.x(c), y_to = layout.y(c) + kBoxH / 2;
      const double x_mid = x_from + (x_to - x_from) / 2;
      m.empty("path", {{"d", "M" + coord(x_from) + "," + coord(y_from) + " H" + coord(x_mid) +
                                 " V" + coord(y_to) + " H" + coord(x_to)}});
    }
  }
  m.close();
  for (size_t i = 0; i < n; ++i) element_box(m, s, tree, i, layout, flows_on_leaf);
  m.close();  // svg
}

void tree_note(Markup& m) {
  m.open("p", {{"class", "note"}});
  m.text(
      "Each box: measured of expected rate and the error. Bar: measured share of the parent "
      "(of the port for the root); black tick: expected share; ");
  m.element("span", {{"class", "cap-key"}}, "vermillion tick and badge");
  m.text(": the element's cap (max_avg_bw).");
  m.close();
}

}  // namespace qb::report::html
