#include "qb/fabric/ib_diag.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <utility>

namespace qb::fabric {
namespace {

// A line of a diag tool's output, with 1-based columns for errors.
struct Line {
  std::string_view text;
  uint32_t number = 0;
  const std::string* file = nullptr;

  SourceLoc loc(size_t pos) const {
    return SourceLoc{*file, number, static_cast<uint32_t>(pos + 1)};
  }
  [[noreturn]] void fail(size_t pos, std::string message) const {
    throw Error{Errc::invalid_config, std::move(message), "", loc(pos)};
  }
};

template <class Fn>
void for_each_line(std::string_view text, const std::string& file, Fn&& fn) {
  uint32_t number = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    start = end + 1;
    const Line l{line, ++number, &file};
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '\0') l.fail(i, "a NUL byte: not a text file");
    }
    fn(l);
  }
}

// An unsigned number at `pos` (after blanks): "0x" hex or decimal; nullopt when there is none.
std::optional<uint64_t> number_at(std::string_view text, size_t& pos) {
  while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
  int base = 10;
  size_t start = pos;
  if (text.substr(pos, 2) == "0x" || text.substr(pos, 2) == "0X") {
    base = 16;
    start += 2;
  }
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data() + start, text.data() + text.size(), value, base);
  if (ec != std::errc{} || end == text.data() + start) return std::nullopt;
  pos = static_cast<size_t>(end - text.data());
  return value;
}

uint64_t need_number(const Line& line, size_t& pos, const char* what, uint64_t max) {
  while (pos < line.text.size() && (line.text[pos] == ' ' || line.text[pos] == '\t')) ++pos;
  const size_t at = pos;
  auto value = number_at(line.text, pos);
  if (!value) line.fail(at, fmt::format("expected {} (a number)", what));
  if (*value > max) line.fail(at, fmt::format("{} is above {}", what, max));
  return *value;
}

// "0x0004 003 : (Channel Adapter portguid 0x0000000000100004: 'Hca2')"
DiagLftEntry parse_entry(const Line& line) {
  DiagLftEntry entry;
  entry.loc = line.loc(0);
  size_t pos = 0;
  entry.lid = static_cast<uint32_t>(need_number(line, pos, "the LID", 0xffff));
  entry.port = static_cast<uint32_t>(need_number(line, pos, "the output port", 255));
  const size_t colon = line.text.find(':', pos);
  if (colon == std::string_view::npos) line.fail(pos, "expected ': (destination)' after the port");
  const std::string_view rest = line.text.substr(colon);
  if (rest.find("Channel Adapter") != std::string_view::npos) {
    entry.to_ca = true;
  } else if (rest.find("Switch") == std::string_view::npos) {
    // Routers and unknown destinations are not hosts qosbench routes to: the entry is kept with
    // no GUID, so it matches nothing.
    return entry;
  }
  const size_t guid_at = line.text.find("portguid", colon);
  if (guid_at == std::string_view::npos) line.fail(colon, "expected 'portguid 0x...'");
  size_t gpos = guid_at + 8;
  entry.port_guid = need_number(line, gpos, "the port GUID", UINT64_MAX);
  return entry;
}

// "Unicast lids [0x0-0x6] of switch DR path slid 0; dlid 0; 0,1 guid 0x0000000000200000 (Switch1):"
DiagLft parse_header(const Line& line) {
  DiagLft lft;
  lft.loc = line.loc(0);
  const size_t guid_at = line.text.find(" guid ");
  if (guid_at == std::string_view::npos) line.fail(0, "a table header without 'guid 0x...'");
  size_t pos = guid_at + 6;
  lft.switch_guid = need_number(line, pos, "the switch GUID", UINT64_MAX);
  const size_t open = line.text.find('(', pos);
  const size_t close = line.text.rfind(')');
  if (open != std::string_view::npos && close != std::string_view::npos && close > open) {
    lft.description = std::string(line.text.substr(open + 1, close - open - 1));
  }
  return lft;
}

bool starts_with_lid(std::string_view text) {
  return text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
}

// "| 0| 1| ...|15|": the numbers between bars, each hex with `hex`.
std::vector<uint64_t> bar_cells(const Line& line, size_t from, bool hex,
                                std::vector<size_t>* starts = nullptr) {
  std::vector<uint64_t> cells;
  size_t pos = line.text.find('|', from);
  if (pos == std::string_view::npos) line.fail(from, "expected '|' cells");
  while (true) {
    const size_t next = line.text.find('|', pos + 1);
    if (next == std::string_view::npos) break;
    std::string_view cell = line.text.substr(pos + 1, next - pos - 1);
    size_t lead = 0;
    while (lead < cell.size() && cell[lead] == ' ') ++lead;
    cell.remove_prefix(lead);
    while (!cell.empty() && cell.back() == ' ') cell.remove_suffix(1);
    if (hex && (cell.starts_with("0x") || cell.starts_with("0X"))) cell.remove_prefix(2);
    uint64_t value = 0;
    const auto [end, ec] =
        std::from_chars(cell.data(), cell.data() + cell.size(), value, hex ? 16 : 10);
    if (cell.empty() || ec != std::errc{} || end != cell.data() + cell.size()) {
      line.fail(pos + 1 + lead, fmt::format("'{}' is not a number", cell));
    }
    cells.push_back(value);
    if (starts != nullptr) starts->push_back(pos + 1 + lead);
    pos = next;
  }
  return cells;
}

}  // namespace

Result<std::vector<DiagLft>> parse_dump_lfts(std::string_view text, const std::string& file) {
  std::vector<DiagLft> out;
  try {
    DiagLft* current = nullptr;
    for_each_line(text, file, [&](const Line& line) {
      std::string_view t = line.text;
      if (t.starts_with("Unicast lids")) {
        out.push_back(parse_header(line));
        current = &out.back();
        return;
      }
      if (!starts_with_lid(t)) {
        if (t.find("valid lids dumped") != std::string_view::npos) current = nullptr;
        return;  // column titles, blank lines, the tool's warnings
      }
      if (current == nullptr) line.fail(0, "an LFT entry outside a switch's table");
      current->entries.push_back(parse_entry(line));
    });
  } catch (const Error& error) {
    return error;
  }
  if (out.empty()) {
    return make_error(Errc::invalid_config, "no switch table (\"Unicast lids ... guid ...\")", "",
                      SourceLoc{file, 1, 1});
  }
  return out;
}

Result<std::vector<DiagPortTables>> parse_port_tables(std::string_view text,
                                                      const std::string& file) {
  std::vector<DiagPortTables> out;
  try {
    DiagPortTables* current = nullptr;
    std::vector<uint64_t> vls;  // the VL row waiting for its WEIGHT row
    std::vector<SourceLoc> vl_locs;  // its cells
    size_t vl_line = 0;
    bool high = false;
    auto finish = [&](const SourceLoc& at) {
      if (current == nullptr) return;
      if (current->sl2vl_rows.empty()) {
        throw Error{Errc::invalid_config,
                    fmt::format("node \"{}\" port {} has no SL2VL row", current->node,
                                current->port),
                    "", current->loc};
      }
      if (!vls.empty()) throw Error{Errc::invalid_config, "a VL row without its WEIGHT row", "", at};
    };
    uint32_t last_line = 0;
    for_each_line(text, file, [&](const Line& line) {
      last_line = line.number;
      const std::string_view t = line.text;
      if (t.starts_with("### node ")) {
        finish(line.loc(0));
        DiagPortTables port;
        port.loc = line.loc(0);
        const size_t open = t.find('"');
        const size_t close = open == std::string_view::npos ? open : t.find('"', open + 1);
        if (close == std::string_view::npos || close == open + 1) {
          line.fail(9, "expected the node id in double quotes");
        }
        port.node = std::string(t.substr(open + 1, close - open - 1));
        const size_t port_at = t.find(" port ", close);
        if (port_at == std::string_view::npos) line.fail(close + 1, "expected 'port N'");
        size_t pos = port_at + 6;
        port.port = static_cast<uint32_t>(need_number(line, pos, "the port", 254));
        out.push_back(std::move(port));
        current = &out.back();
        vls.clear();
        return;
      }
      if (t.starts_with("ports: in")) {
        if (current == nullptr) line.fail(0, "an SL2VL row before any '### node' line");
        size_t pos = 9;
        const auto in = static_cast<uint32_t>(need_number(line, pos, "the input port", 255));
        std::vector<size_t> starts;
        const std::vector<uint64_t> cells = bar_cells(line, pos, false, &starts);
        if (cells.size() != 16) {
          line.fail(pos, fmt::format("an SL2VL row has 16 VLs, this one {}", cells.size()));
        }
        std::array<uint8_t, 16> row{};
        std::array<SourceLoc, 16> locs{};
        for (size_t sl = 0; sl < 16; ++sl) {
          if (cells[sl] > 15) line.fail(pos, fmt::format("VL {} is above 15", cells[sl]));
          row[sl] = static_cast<uint8_t>(cells[sl]);
          locs[sl] = line.loc(starts[sl]);
        }
        current->sl2vl_rows.emplace_back(in, row);
        current->sl2vl_locs.push_back(std::move(locs));
        return;
      }
      if (t.find("Low priority VL Arbitration") != std::string_view::npos) high = false;
      if (t.find("High priority VL Arbitration") != std::string_view::npos) high = true;
      if (t.starts_with("VL ")) {
        if (current == nullptr) line.fail(0, "a VL row before any '### node' line");
        std::vector<size_t> starts;
        vls = bar_cells(line, 0, true, &starts);
        vl_line = line.number;
        vl_locs.clear();
        for (const size_t start : starts) vl_locs.push_back(line.loc(start));
        return;
      }
      if (t.starts_with("WEIGHT")) {
        if (current == nullptr || vls.empty()) line.fail(0, "a WEIGHT row without its VL row");
        const std::vector<uint64_t> weights = bar_cells(line, 0, true);
        if (weights.size() != vls.size()) {
          line.fail(0, fmt::format("{} weights for the {} VLs of line {}", weights.size(),
                                   vls.size(), vl_line));
        }
        auto& table = high ? current->vlarb_high : current->vlarb_low;
        auto& locs = high ? current->vlarb_high_locs : current->vlarb_low_locs;
        for (size_t i = 0; i < vls.size(); ++i) {
          if (vls[i] > 15 || weights[i] > 255) line.fail(0, "a VL above 15 or a weight above 255");
          table.push_back(policy::VlArbEntry{static_cast<uint8_t>(vls[i]),
                                             static_cast<uint8_t>(weights[i])});
          locs.push_back(vl_locs[i]);
        }
        vls.clear();
      }
    });
    finish(SourceLoc{file, last_line, 1});
  } catch (const Error& error) {
    return error;
  }
  if (out.empty()) {
    return make_error(Errc::invalid_config, "no port (\"### node ...\" line)", "",
                      SourceLoc{file, 1, 1});
  }
  return out;
}

Status check_port_vls(const DiagPortTables& tables, uint8_t max_data_vl) {
  for (size_t r = 0; r < tables.sl2vl_rows.size(); ++r) {
    const auto& [in, row] = tables.sl2vl_rows[r];
    for (size_t sl = 0; sl < row.size(); ++sl) {
      if (row[sl] > max_data_vl && row[sl] != 15) {
        return make_error(Errc::invalid_config,
                          fmt::format("node \"{}\" port {} (input port {}): SL2VL sends SL {} to "
                                      "VL {}, above the port's operational VLs (VL0-VL{})",
                                      tables.node, tables.port, in, sl, row[sl], max_data_vl),
                          "", tables.sl2vl_locs[r][sl]);
      }
    }
  }
  for (const bool high : {true, false}) {
    const auto& table = high ? tables.vlarb_high : tables.vlarb_low;
    const auto& locs = high ? tables.vlarb_high_locs : tables.vlarb_low_locs;
    for (size_t i = 0; i < table.size(); ++i) {
      if (table[i].vl > max_data_vl) {
        return make_error(Errc::invalid_config,
                          fmt::format("node \"{}\" port {}: the VLArb {} table's entry {} names VL "
                                      "{}, above the port's operational VLs (VL0-VL{})",
                                      tables.node, tables.port, high ? "high" : "low", i,
                                      table[i].vl, max_data_vl),
                          "", locs[i]);
      }
    }
  }
  return {};
}

std::string sl2vl_rows_problem(const DiagPortTables& tables) {
  const std::array<uint8_t, 16>* first = nullptr;
  uint32_t first_in = 0;
  for (const auto& [in, row] : tables.sl2vl_rows) {
    if (in == tables.port && tables.sl2vl_rows.size() > 1) continue;
    if (first == nullptr) {
      first = &row;
      first_in = in;
    } else if (row != *first) {
      return fmt::format("node \"{}\" port {}: the SL2VL rows of input ports {} and {} differ",
                         tables.node, tables.port, first_in, in);
    }
  }
  return {};
}

}  // namespace qb::fabric
