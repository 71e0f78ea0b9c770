// The QoS sections of a suite (see qos_loader.hpp and docs/suite-format.md).
#include "qos_loader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <limits>
#include <utility>

#include "congestion_loader.hpp"
#include "qb/common/units.hpp"

namespace qb::suite::detail {
namespace {

constexpr size_t kEthClasses = 8;
constexpr int64_t kMaxDscp = 63;
constexpr int64_t kMaxPrio = 7;
constexpr int64_t kMaxSl = 15;
constexpr int64_t kMaxDataVl = 14;
constexpr int64_t kMaxVlarbWeight = 255;
constexpr int64_t kMaxVlarbCap = 64;
constexpr int64_t kMaxHosts = 1024;
constexpr uint64_t kMaxTcRateKbps = 255'000'000;  // 255 units of 1 Gbit/s

// ---- small typed reads of located values ---------------------------------------------------

int64_t located_integer(const Located& value, int64_t min, int64_t max, std::string_view what) {
  const auto* integer = value.node.as_integer();
  if (integer == nullptr) value.fail_type("an integer");
  const int64_t number = integer->get();
  if (number < min || number > max) {
    value.fail_here(fmt::format("{} must be in {}..{}, got {}", what, min, max, number));
  }
  return number;
}

// An array of exactly `size` elements (fails at the array otherwise).
const toml::array& fixed_array(const Located& value, size_t size, std::string_view what) {
  const auto* array = value.node.as_array();
  if (array == nullptr) value.fail_type(fmt::format("an array of {} {}", size, what));
  if (array->size() != size) {
    value.fail_here(fmt::format("expected {} {} (one per {}), got {}", size, what,
                                size == 16 ? "SL" : "priority or TC", array->size()));
  }
  return *array;
}

Located element(const Located& array_value, const toml::array& array, size_t index) {
  return Located{*array.get(index), fmt::format("{}[{}]", array_value.path, index),
                 array_value.file};
}

// A 64-bit identifier: a TOML integer (>= 0) or a string ("0x0002c90300000001", decimal too),
// since TOML integers stop at 2^63 - 1 and GUIDs use the whole range.
uint64_t located_u64(const Located& value, uint64_t max, std::string_view what) {
  uint64_t number = 0;
  if (const auto* integer = value.node.as_integer()) {
    if (integer->get() < 0) value.fail_here(fmt::format("{} must not be negative", what));
    number = static_cast<uint64_t>(integer->get());
  } else if (const auto* text = value.node.as_string()) {
    std::string_view digits = text->get();
    int base = 10;
    if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
      digits.remove_prefix(2);
      base = 16;
    }
    const auto [end, ec] =
        std::from_chars(digits.data(), digits.data() + digits.size(), number, base);
    if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size()) {
      value.fail_here(
          fmt::format("{} '{}' is not a number (use an integer or \"0x...\")", what, text->get()));
    }
  } else {
    value.fail_type("an integer or a string such as \"0x0002c90300000001\"");
  }
  if (number > max)
    value.fail_here(fmt::format("{} must be at most {:#x}, got {:#x}", what, max, number));
  return number;
}

// "best_effort", "unspec", "dscp:46".
policy::TrafficClass read_tclass_string(const Located& value) {
  const auto* text = value.node.as_string();
  if (text == nullptr) value.fail_type("a string (a traffic class label or \"dscp:N\")");
  const std::string_view name = text->get();
  if (name.rfind("dscp:", 0) == 0) {
    const std::string_view digits = name.substr(5);
    unsigned dscp = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), dscp);
    if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size()) {
      value.fail_here(fmt::format("'{}': expected \"dscp:N\" with N in 0..63", name));
    }
    if (dscp > kMaxDscp) value.fail_here(fmt::format("DSCP must be in 0..63, got {}", dscp));
    return policy::TrafficClass{policy::TcLabel::dscp, static_cast<uint8_t>(dscp)};
  }
  auto parsed = policy::parse_tc_label(name);
  if (!parsed) value.fail_here(parsed.error().message + " or \"dscp:N\"");
  return *parsed;
}

// `tclass` (label or "dscp:N") or `dscp` (an integer), not both. unspec when neither.
policy::TrafficClass read_class_pair(const TableReader& reader, std::string_view tclass_key,
                                     SourceLoc& loc, std::string& where) {
  policy::TrafficClass tclass;
  if (reader.has(tclass_key)) {
    tclass = read_tclass_string(reader.at(tclass_key));
    loc = reader.value_loc(tclass_key);
    where = reader.key_path(tclass_key);
  }
  if (reader.has("dscp")) {
    if (reader.has(tclass_key)) {
      reader.fail_at("dscp", fmt::format("give either {} or dscp, not both", tclass_key));
    }
    tclass = policy::TrafficClass{
        policy::TcLabel::dscp,
        static_cast<uint8_t>(located_integer(reader.at("dscp"), 0, kMaxDscp, "DSCP"))};
    loc = reader.value_loc("dscp");
    where = reader.key_path("dscp");
  }
  return tclass;
}

// ---- [ib] tables: OpenSM's string syntax or TOML arrays ------------------------------------

// One number of an OpenSM-syntax string, with the column it starts at (for errors).
struct Token {
  std::string_view text;
  uint32_t column = 0;
};

std::vector<Token> split(std::string_view text, char separator, uint32_t first_column) {
  std::vector<Token> tokens;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(separator, start);
    std::string_view piece = text.substr(start, end == std::string_view::npos ? end : end - start);
    size_t lead = 0;
    while (lead < piece.size() && (piece[lead] == ' ' || piece[lead] == '\t')) ++lead;
    piece.remove_prefix(lead);
    while (!piece.empty() && (piece.back() == ' ' || piece.back() == '\t')) piece.remove_suffix(1);
    tokens.push_back(Token{piece, first_column + static_cast<uint32_t>(start + lead)});
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return tokens;
}

// Parses one number of a table string strictly (decimal or 0x hex), failing at its column.
int64_t token_number(const Located& value, const Token& token, const std::string& path, int64_t max,
                     std::string_view what) {
  std::string_view digits = token.text;
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    digits.remove_prefix(2);
    base = 16;
  }
  int64_t number = 0;
  const auto [end, ec] =
      std::from_chars(digits.data(), digits.data() + digits.size(), number, base);
  SourceLoc loc = value.loc();
  loc.column = token.column;
  if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size()) {
    fail(fmt::format("'{}' is not a number ({})", token.text, what), path, loc);
  }
  if (number < 0 || number > max) {
    fail(fmt::format("{} must be in 0..{}, got {}", what, max, number), path, loc);
  }
  return number;
}

// Column of the first character inside a basic string value ("..." starts one after the quote).
uint32_t string_body_column(const Located& value) {
  return value.loc().column + 1;
}

void check_vl_operational(const Located& value, int64_t vl, uint8_t op_vls, const std::string& path,
                          SourceLoc loc) {
  const uint8_t highest = policy::max_data_vl(op_vls);
  if (vl > highest) {
    fail(fmt::format("VL {} is not operational on the port (op_vls {} = VL0-VL{}); raise op_vls",
                     vl, op_vls, highest),
         path, loc);
  }
  (void)value;
}

std::array<uint8_t, 16> read_sl2vl(const Located& value, uint8_t op_vls) {
  std::array<uint8_t, 16> table{};
  // VL15 is allowed: it means "drop" (a flow on such an SL gets nothing).
  auto check = [&](int64_t vl, const std::string& path, const SourceLoc& loc) {
    if (vl != policy::kDropVl) check_vl_operational(value, vl, op_vls, path, loc);
  };
  if (const auto* text = value.node.as_string()) {
    const auto tokens = split(text->get(), ',', string_body_column(value));
    if (tokens.size() != table.size()) {
      value.fail_here(fmt::format("expected 16 VLs (one per SL), got {}", tokens.size()));
    }
    for (size_t sl = 0; sl < tokens.size(); ++sl) {
      const std::string path = fmt::format("{}[{}]", value.path, sl);
      SourceLoc loc = value.loc();
      loc.column = tokens[sl].column;
      const int64_t vl = token_number(value, tokens[sl], path, 15, "VL (0-14, 15 = drop)");
      check(vl, path, loc);
      table[sl] = static_cast<uint8_t>(vl);
    }
    return table;
  }
  if (value.node.as_array() == nullptr) {
    value.fail_type("a string such as \"0,1,2,...\" or an array of 16 VLs");
  }
  const auto& array = fixed_array(value, table.size(), "VLs");
  for (size_t sl = 0; sl < array.size(); ++sl) {
    const Located item = element(value, array, sl);
    const int64_t vl = located_integer(item, 0, 15, "VL (0-14, 15 = drop)");
    check(vl, item.path, item.loc());
    table[sl] = static_cast<uint8_t>(vl);
  }
  return table;
}

std::vector<policy::VlArbEntry> read_vlarb(const Located& value, uint8_t capacity,
                                           std::string_view capacity_key, uint8_t op_vls) {
  std::vector<policy::VlArbEntry> table;
  auto add = [&](int64_t vl, int64_t weight, const std::string& path, const SourceLoc& loc) {
    check_vl_operational(value, vl, op_vls, path, loc);
    if (table.size() == capacity) {
      fail(fmt::format("the port holds {} entries ({} = {}); this is entry {}", capacity,
                       capacity_key, capacity, table.size() + 1),
           path, loc);
    }
    table.push_back(policy::VlArbEntry{static_cast<uint8_t>(vl), static_cast<uint8_t>(weight)});
  };
  if (const auto* text = value.node.as_string()) {
    if (!text->get().empty()) {
      for (const Token& pair : split(text->get(), ',', string_body_column(value))) {
        const std::string path = fmt::format("{}[{}]", value.path, table.size());
        SourceLoc loc = value.loc();
        loc.column = pair.column;
        const size_t colon = pair.text.find(':');
        if (colon == std::string_view::npos) {
          fail(fmt::format("'{}': expected VL:weight", pair.text), path, loc);
        }
        const auto parts = split(pair.text, ':', pair.column);
        if (parts.size() != 2) fail(fmt::format("'{}': expected VL:weight", pair.text), path, loc);
        const int64_t vl = token_number(value, parts[0], path, kMaxDataVl, "VL");
        const int64_t weight =
            token_number(value, parts[1], path, kMaxVlarbWeight, "weight (64-byte credits)");
        add(vl, weight, path, loc);
      }
    }
  } else if (const auto* array = value.node.as_array()) {
    for (size_t i = 0; i < array->size(); ++i) {
      const Located item = element(value, *array, i);
      const auto* pair = item.node.as_array();
      if (pair == nullptr || pair->size() != 2) item.fail_here("expected a [VL, weight] pair");
      const int64_t vl = located_integer(element(item, *pair, 0), 0, kMaxDataVl, "VL");
      const int64_t weight =
          located_integer(element(item, *pair, 1), 0, kMaxVlarbWeight, "weight (64-byte credits)");
      add(vl, weight, item.path, item.loc());
    }
  } else {
    value.fail_type("a string such as \"0:64,1:128\" or an array of [VL, weight] pairs");
  }
  // A port's table always has `capacity` entries; OpenSM fills the rest with 0:0.
  table.resize(capacity, policy::VlArbEntry{0, 0});
  return table;
}

std::string resolve_path(const std::string& suite_file, const std::string& path) {
  const std::filesystem::path given(path);
  if (given.is_absolute()) return path;
  return (std::filesystem::path(suite_file).parent_path() / given).lexically_normal().string();
}

// An OpenSM file's error keeps its own location when it has one (the line in that file).
[[noreturn]] void fail_file(Error error, const TableReader& reader, std::string_view key) {
  SourceLoc loc = error.loc.file.empty() ? reader.value_loc(key) : error.loc;
  fail(std::move(error.message), reader.key_path(key), std::move(loc));
}

}  // namespace

void add_warning(std::vector<Warning>& warnings, Warning warning) {
  for (const auto& earlier : warnings) {
    if (earlier.message == warning.message && earlier.loc.file == warning.loc.file &&
        earlier.loc.line == warning.loc.line && earlier.loc.column == warning.loc.column) {
      return;
    }
  }
  warnings.push_back(std::move(warning));
}

// ---- [traffic_class] -----------------------------------------------------------------------

TrafficClassSpec read_traffic_class(const Located* section) {
  TrafficClassSpec spec;
  if (section == nullptr) return spec;
  const TableReader reader(section->table(), section->path, section->file);
  reader.allow_only({"tclass", "dscp", "provider", "dscp_table"});
  spec.present = true;
  spec.where = section->path;
  spec.loc = reader.loc();
  spec.domain = read_class_pair(reader, "tclass", spec.domain_loc, spec.domain_where);
  if (auto name = reader.string("provider")) {
    auto provider = policy::parse_tc_provider(*name);
    if (!provider) reader.fail_at("provider", provider.error().message);
    spec.provider = *provider;
    spec.provider_loc = reader.value_loc("provider");
  }
  if (const auto* table = reader.subtable("dscp_table")) {
    const TableReader overrides(*table, reader.key_path("dscp_table"), reader.file());
    overrides.allow_only({"best_effort", "low_latency", "dedicated_access", "bulk_data",
                          "scavenger", "network_ctrl"});
    for (auto&& [key, value] : *table) {
      const auto label = policy::parse_tc_label(key.str());
      const Located item = overrides.at(key.str());
      spec.dscp_table.dscp_by_label[static_cast<size_t>(label->label)] =
          static_cast<uint8_t>(located_integer(item, 0, kMaxDscp, "DSCP"));
    }
  }
  return spec;
}

// ---- [eth] ---------------------------------------------------------------------------------

namespace {

void read_eth_trust(const TableReader& reader, policy::EthPortQos& qos) {
  if (auto trust = reader.string("trust")) {
    if (*trust == "pcp") {
      qos.trust = policy::EthTrust::pcp;
    } else if (*trust == "dscp") {
      qos.trust = policy::EthTrust::dscp;
    } else {
      reader.fail_at("trust", fmt::format("unknown trust '{}' (use \"pcp\", \"dscp\")", *trust));
    }
  }
}

void read_eth_dscp2prio(const TableReader& reader, policy::EthPortQos& qos) {
  if (reader.has("dscp2prio")) {
    const Located value = reader.at("dscp2prio");
    if (const auto* table = value.node.as_table()) {
      // Overrides over the default dscp >> 3: { "46" = 5, "26" = 3 }.
      for (auto&& [key, entry] : *table) {
        const std::string path = fmt::format("{}.\"{}\"", value.path, key.str());
        const SourceLoc key_loc = loc_of(key.source(), reader.file());
        unsigned dscp = 0;
        const std::string_view digits = key.str();
        const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), dscp);
        if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size()) {
          fail(fmt::format("dscp2prio keys are DSCP values 0..63, got '{}'", digits), path,
               key_loc);
        }
        if (dscp > kMaxDscp) {
          fail(fmt::format("DSCP must be in 0..63, got {}", dscp), path, key_loc);
        }
        qos.dscp2prio[dscp] = static_cast<uint8_t>(
            located_integer(Located{entry, path, reader.file()}, 0, kMaxPrio, "priority"));
      }
    } else if (value.node.as_array() != nullptr) {
      const auto& array = fixed_array(value, qos.dscp2prio.size(), "priorities");
      for (size_t i = 0; i < array.size(); ++i) {
        qos.dscp2prio[i] = static_cast<uint8_t>(
            located_integer(element(value, array, i), 0, kMaxPrio, "priority"));
      }
    } else {
      value.fail_type("a table of \"dscp\" = priority overrides or an array of 64 priorities");
    }
  }
}

// `read(i, item)` for each of the kEthClasses items of the array at `key`, when there is one.
template <class Read>
void for_each_tc(const TableReader& reader, std::string_view key, std::string_view items,
                 Read&& read) {
  if (!reader.has(key)) return;
  const Located value = reader.at(key);
  const auto& array = fixed_array(value, kEthClasses, items);
  for (size_t i = 0; i < kEthClasses; ++i) read(i, element(value, array, i));
}

void read_eth_prio_tc(const TableReader& reader, policy::EthPortQos& qos) {
  for_each_tc(reader, "prio_tc", "TCs", [&](size_t i, const Located& item) {
    qos.prio_tc[i] = static_cast<uint8_t>(located_integer(item, 0, kMaxPrio, "TC"));
  });
}

void read_eth_tsa(const TableReader& reader, policy::EthPortQos& qos) {
  for_each_tc(reader, "tsa", "selections", [&](size_t i, const Located& item) {
    const auto* text = item.node.as_string();
    if (text == nullptr) item.fail_type("a string (\"strict\", \"ets\" or \"vendor\")");
    if (text->get() == "strict") {
      qos.tsa[i] = policy::TcSelect::strict;
    } else if (text->get() == "ets") {
      qos.tsa[i] = policy::TcSelect::ets;
    } else if (text->get() == "vendor") {
      qos.tsa[i] = policy::TcSelect::vendor;
    } else {
      item.fail_here(
          fmt::format("unknown selection '{}' (use \"strict\", \"ets\", \"vendor\")", text->get()));
    }
  });
}

// After tsa: a percentage is allowed on an ETS TC only.
void read_eth_ets(const TableReader& reader, policy::EthPortQos& qos) {
  for_each_tc(reader, "ets", "percentages", [&](size_t i, const Located& item) {
    const int64_t percent = located_integer(item, 0, 100, "ETS percentage");
    if (percent != 0 && qos.tsa[i] != policy::TcSelect::ets) {
      item.fail_here(
          fmt::format("TC{} has {}% but is not an ETS TC; set tsa[{}] = \"ets\"", i, percent, i));
    }
    qos.ets_percent[i] = static_cast<uint8_t>(percent);
  });
  // The kernel's rule: with any ETS TC, the percentages sum to 100 (EINVAL otherwise).
  const bool any_ets =
      std::find(qos.tsa.begin(), qos.tsa.end(), policy::TcSelect::ets) != qos.tsa.end();
  if (any_ets) {
    unsigned sum = 0;
    for (const uint8_t percent : qos.ets_percent) sum += percent;
    if (sum != 100) {
      const std::string_view key = reader.has("ets") ? "ets" : "tsa";
      reader.fail_at(key, fmt::format("ETS percentages must sum to 100 when any TC is ETS, got "
                                      "{}",
                                      sum));
    }
  }
}

void read_eth_pfc(const TableReader& reader, policy::EthPortQos& qos) {
  if (reader.has("pfc")) {
    // The priorities with PFC on (lossless): compared with the NIC's, not modelled.
    const Located value = reader.at("pfc");
    const auto* array = value.node.as_array();
    if (array == nullptr) value.fail_type("an array of priorities 0..7 (those with PFC on)");
    qos.pfc_given = true;
    for (size_t i = 0; i < array->size(); ++i) {
      const Located item = element(value, *array, i);
      const auto prio = static_cast<uint8_t>(located_integer(item, 0, kMaxPrio, "priority"));
      if ((qos.pfc_enabled >> prio) & 1U) item.fail_here(fmt::format("priority {} twice", prio));
      qos.pfc_enabled = static_cast<uint8_t>(qos.pfc_enabled | (1U << prio));
    }
  }
}

// One TC's cap in kbit/s: a bare number is kbit/s, as the kernel's ieee_maxrate takes it
// (0 = no cap); a string is a bit rate.
uint64_t tc_max_rate_kbps(const Located& item) {
  uint64_t kbps = 0;
  if (const auto* integer = item.node.as_integer()) {
    if (integer->get() < 0) item.fail_here("tc_max_rate must not be negative");
    kbps = static_cast<uint64_t>(integer->get());
  } else if (const auto* text = item.node.as_string()) {
    auto rate = parse_rate(text->get());
    if (!rate) item.fail_here(rate.error().message);
    if (rate->unit != Rate::Unit::bits_per_second) {
      item.fail_here(
          fmt::format("tc_max_rate must be a bit rate such as \"10Gbps\", not a "
                      "packet rate ('{}')",
                      text->get()));
    }
    kbps = static_cast<uint64_t>(rate->value / 1000.0);
    if (rate->value > 0 && kbps == 0) item.fail_here("tc_max_rate is below 1 kbit/s");
  } else {
    item.fail_type("a bit rate string such as \"10Gbps\" or an integer (kbit/s, 0 = none)");
  }
  if (kbps > kMaxTcRateKbps) {
    item.fail_here("tc_max_rate must be at most 255 Gbit/s (the hardware's largest cap)");
  }
  return kbps;
}

void read_eth_tc_max_rate(const TableReader& reader, policy::EthPortQos& qos) {
  for_each_tc(reader, "tc_max_rate", "rates", [&](size_t i, const Located& item) {
    const uint64_t kbps = tc_max_rate_kbps(item);
    qos.tc_max_rate_bps[i] = policy::hw_tc_max_rate_bps(kbps);
    if (kbps > 0 && qos.tc_max_rate_bps[i] == 0.0) {
      item.fail_here(
          "tc_max_rate rounds to 0 in the hardware's 100 Mbit/s units; give at least "
          "\"100Mbps\" (or 0 for no cap)");
    }
  });
}

// The [eth] keys `reader` has, over what spec.qos holds already.
void read_eth_keys(const TableReader& reader, EthQosSpec& spec) {
  policy::EthPortQos& qos = spec.qos;
  read_eth_trust(reader, qos);
  read_eth_dscp2prio(reader, qos);
  read_eth_prio_tc(reader, qos);
  read_eth_tsa(reader, qos);
  read_eth_ets(reader, qos);
  read_eth_pfc(reader, qos);
  read_eth_tc_max_rate(reader, qos);

  // The kernel's checks as a backstop (they name the field in `where`).
  if (auto status = policy::validate_eth_port_qos(qos); !status) {
    fail(status.error().message, join_path(spec.where, status.error().where), spec.loc);
  }
}

}  // namespace

EthQosSpec read_eth(const Located* section) {
  EthQosSpec spec;
  if (section == nullptr) return spec;
  const TableReader reader(section->table(), section->path, section->file);
  reader.allow_only({"trust", "dscp2prio", "prio_tc", "tsa", "ets", "tc_max_rate", "pfc"});
  spec.present = true;
  spec.where = section->path;
  spec.loc = reader.loc();
  spec.qos = policy::default_eth_port_qos();
  read_eth_keys(reader, spec);
  return spec;
}

policy::EthPortQos read_eth_over(const TableReader& reader, const policy::EthPortQos& base) {
  EthQosSpec spec;
  spec.present = true;
  spec.where = reader.path();
  spec.loc = reader.loc();
  spec.qos = base;
  read_eth_keys(reader, spec);
  return spec.qos;
}

fabric::IbTablesOverride read_ib_tables(const TableReader& reader, const policy::IbPortCaps& caps) {
  fabric::IbTablesOverride tables;
  if (reader.has("sl2vl")) tables.sl2vl = read_sl2vl(reader.at("sl2vl"), caps.op_vls);
  if (reader.has("vlarb_high")) {
    tables.vlarb_high =
        read_vlarb(reader.at("vlarb_high"), caps.vlarb_high_cap, "vlarb_high_cap", caps.op_vls);
  }
  if (reader.has("vlarb_low")) {
    tables.vlarb_low =
        read_vlarb(reader.at("vlarb_low"), caps.vlarb_low_cap, "vlarb_low_cap", caps.op_vls);
  }
  if (auto limit = reader.integer("high_limit", 0, 255)) {
    tables.high_limit = static_cast<uint8_t>(*limit);
  }
  return tables;
}

// ---- [ib] ----------------------------------------------------------------------------------

IbQosSpec read_ib(const Located* section, const std::string& suite_file,
                  std::vector<Warning>& warnings) {
  IbQosSpec spec;
  if (section == nullptr) return spec;
  const TableReader reader(section->table(), section->path, section->file);
  reader.allow_only({"opensm_conf", "qos_policy", "op_vls", "vlarb_high_cap", "vlarb_low_cap",
                     "sl2vl", "vlarb_high", "vlarb_low", "high_limit", "ca", "swe"});
  spec.present = true;
  spec.where = section->path;
  spec.loc = reader.loc();

  // Capacities first: the tables below are checked against them.
  if (auto op_vls = reader.integer("op_vls", 1, 5))
    spec.caps.op_vls = static_cast<uint8_t>(*op_vls);
  if (auto cap = reader.integer("vlarb_high_cap", 0, kMaxVlarbCap)) {
    spec.caps.vlarb_high_cap = static_cast<uint8_t>(*cap);
  }
  if (auto cap = reader.integer("vlarb_low_cap", 0, kMaxVlarbCap)) {
    spec.caps.vlarb_low_cap = static_cast<uint8_t>(*cap);
  }

  if (reader.has("opensm_conf")) {
    const std::string given = reader.required_string("opensm_conf");
    spec.opensm_conf_path = resolve_path(suite_file, given);
    auto conf = policy::load_opensm_conf(spec.opensm_conf_path);
    if (!conf) fail_file(std::move(conf).error(), reader, "opensm_conf");
    for (const auto& warning : conf->warnings) {
      add_warning(warnings, Warning{warning.message, reader.key_path("opensm_conf"), warning.loc});
    }
    if (!conf->qos_enabled) {
      add_warning(warnings,
                  Warning{"no \"qos TRUE\": OpenSM programs these tables only when QoS is "
                          "enabled (or with -Q); using them as if it were",
                          reader.key_path("opensm_conf"), SourceLoc{spec.opensm_conf_path, 0, 0}});
    }
    spec.opensm_conf = std::move(conf).value();
    // OpenSM caps the port's VLs at the file's max_op_vls; an op_vls given here is the port's.
    if (!reader.has("op_vls")) {
      spec.caps.op_vls = policy::operational_vls(policy::kDefaultVlCap, *spec.opensm_conf);
    }
  }
  if (reader.has("qos_policy")) {
    const std::string given = reader.required_string("qos_policy");
    spec.qos_policy_path = resolve_path(suite_file, given);
    auto policy_file = policy::load_opensm_policy(spec.qos_policy_path);
    if (!policy_file) fail_file(std::move(policy_file).error(), reader, "qos_policy");
    spec.qos_policy = std::move(policy_file).value();
  }

  if (reader.has("sl2vl")) spec.sl2vl = read_sl2vl(reader.at("sl2vl"), spec.caps.op_vls);
  if (reader.has("vlarb_high")) {
    spec.vlarb_high = read_vlarb(reader.at("vlarb_high"), spec.caps.vlarb_high_cap,
                                 "vlarb_high_cap", spec.caps.op_vls);
  }
  if (reader.has("vlarb_low")) {
    spec.vlarb_low = read_vlarb(reader.at("vlarb_low"), spec.caps.vlarb_low_cap, "vlarb_low_cap",
                                spec.caps.op_vls);
  }
  if (auto limit = reader.integer("high_limit", 0, 255)) {
    spec.high_limit = static_cast<uint8_t>(*limit);
  }
  // Per port type, as opensm.conf's qos_ca_* / qos_swe_* sets.
  for (const std::string_view type : {"ca", "swe"}) {
    const toml::table* table = reader.subtable(type);
    if (table == nullptr) continue;
    const TableReader sub(*table, reader.key_path(type), reader.file());
    sub.allow_only({"sl2vl", "vlarb_high", "vlarb_low", "high_limit"});
    (type == "ca" ? spec.ca_tables : spec.swe_tables) = read_ib_tables(sub, spec.caps);
  }
  return spec;
}

// ---- [fabric] ------------------------------------------------------------------------------

// Ranks above this are a typo, not a job (MPI jobs of a million ranks do not run qosbench).
constexpr int64_t kMaxRank = 1'000'000;

// One placement; a rank that `earlier` placements already took cannot play two parts.
RankPlacement read_placement(const Located& entry, const std::vector<RankPlacement>& earlier) {
  const TableReader reader(entry.table(), entry.path, entry.file);
  reader.allow_only({"rank", "hostname"});
  RankPlacement placement;
  placement.where = entry.path;
  placement.loc = entry.loc();
  if (auto rank = reader.integer("rank", 0, kMaxRank)) {
    placement.rank = static_cast<uint32_t>(*rank);
    placement.loc = reader.value_loc("rank");
    for (const RankPlacement& other : earlier) {
      if (other.rank == placement.rank) {
        reader.fail_at(
            "rank", fmt::format("rank {} is already placed by {}", *placement.rank, other.where));
      }
    }
  }
  if (auto hostname = reader.string("hostname")) {
    if (hostname->empty()) reader.fail_at("hostname", "hostname must not be empty");
    if (placement.rank) {
      reader.fail_at("hostname", "give rank or hostname, not both: rank already places it");
    }
    placement.hostname = *hostname;
    placement.loc = reader.value_loc("hostname");
  }
  return placement;
}

void read_placements(const TableReader& reader, FabricSpec& spec) {
  if (reader.has("host")) {
    const Located hosts = reader.at("host");
    const auto* array = hosts.node.as_array();
    if (array == nullptr) hosts.fail_type("an array of tables ([[fabric.host]])");
    if (array->size() != spec.hosts) {
      hosts.fail_here(
          fmt::format("{} [[fabric.host]] entr{} for hosts = {}: give one per host, "
                      "in host order",
                      array->size(), array->size() == 1 ? "y" : "ies", spec.hosts));
    }
    for (size_t i = 0; i < array->size(); ++i) {
      const Located entry{*array->get(i), fmt::format("{}[{}]", hosts.path, i), hosts.file};
      spec.host_ranks.push_back(read_placement(entry, spec.host_ranks));
    }
  }
  if (reader.has("receiver")) {
    spec.receiver_rank = read_placement(reader.at("receiver"), spec.host_ranks);
  }
}

FabricSpec read_fabric(const Located* section, bool has_topology) {
  FabricSpec spec;
  if (section == nullptr) return spec;
  const TableReader reader(section->table(), section->path, section->file);
  reader.allow_only({"hosts", "switch", "switch_rate", "ecn", "cnp_interval", "mode", "buffer",
                     "retransmit_timeout", "host", "receiver"});
  spec.where = section->path;
  spec.loc = reader.loc();
  if (auto hosts = reader.integer("hosts", 1, kMaxHosts))
    spec.hosts = static_cast<uint32_t>(*hosts);
  spec.switched = reader.boolean("switch").value_or(spec.hosts > 1);
  if (const auto* node = reader.find("switch_rate")) {
    if (!spec.switched) reader.fail_at("switch_rate", "switch_rate needs switch = true");
    if (const auto* integer = node->as_integer()) {
      if (integer->get() <= 0) reader.fail_at("switch_rate", "switch_rate must be greater than 0");
      spec.switch_rate_bps = static_cast<double>(integer->get());
    } else if (const auto* text = node->as_string()) {
      auto rate = parse_rate(text->get());
      if (!rate) reader.fail_at("switch_rate", rate.error().message);
      if (rate->unit != Rate::Unit::bits_per_second) {
        reader.fail_at("switch_rate", "switch_rate must be a bit rate such as \"100Gbps\"");
      }
      spec.switch_rate_bps = rate->value;
    } else {
      reader.at("switch_rate").fail_type("a string (a bit rate such as \"100Gbps\") or an integer");
    }
    // The port rate's bound: the simulator serialises at an integer bit/s.
    if (spec.switch_rate_bps > kMaxPortRateBps) {
      reader.fail_at(
          "switch_rate",
          fmt::format("switch_rate {} is above {}, the largest port rate qosbench "
                      "takes (u32 Mbit/s)",
                      format_rate_bps(spec.switch_rate_bps), format_rate_bps(kMaxPortRateBps)));
    }
  }
  read_fabric_congestion(reader, spec, has_topology);
  read_placements(reader, spec);
  return spec;
}

// ---- per flow ------------------------------------------------------------------------------

void read_flow_qos(const TableReader& reader, const PortSpec& port, FlowSpec& flow) {
  using policy::Transport;
  const Transport transport = port.wire.transport;
  if (reader.has("dscp") && transport == Transport::ib) {
    reader.fail_at("dscp", "InfiniBand packets carry no DSCP; give the flow an sl");
  }
  flow.tx_tclass = read_class_pair(reader, "tx_tclass", flow.tx_tclass_loc, flow.tx_tclass_where);
  if (reader.has("rx_tclass")) {
    flow.rx_tclass = read_tclass_string(reader.at("rx_tclass"));
    flow.rx_tclass_loc = reader.value_loc("rx_tclass");
  }
  if (reader.has("sl")) {
    if (transport == Transport::eth) {
      reader.fail_at("sl", "eth has no SL; give the VLAN priority as pcp = 0..7");
    }
    flow.sl = static_cast<uint8_t>(located_integer(reader.at("sl"), 0, kMaxSl, "SL"));
    flow.sl_loc = reader.value_loc("sl");
  }
  if (reader.has("pcp")) {
    if (transport != Transport::eth) {
      reader.fail_at("pcp", fmt::format("pcp applies to eth; on {} give sl (the priority is "
                                        "sl & 7 on RoCE)",
                                        policy::transport_name(transport)));
    }
    flow.sl = static_cast<uint8_t>(located_integer(reader.at("pcp"), 0, kMaxPrio, "PCP"));
    flow.sl_loc = reader.value_loc("pcp");
  }
  if (reader.has("host")) {
    flow.host = static_cast<uint32_t>(located_integer(reader.at("host"), 0, kMaxHosts - 1, "host"));
    flow.host_loc = reader.value_loc("host");
  }

  // Path-record fields for the qos-policy.conf matcher (in document order for the first key).
  auto note_key = [&](std::string_view key) {
    const SourceLoc loc = reader.value_loc(key);
    if (!flow.has_path_query || loc.line < flow.path_query_loc.line ||
        (loc.line == flow.path_query_loc.line && loc.column < flow.path_query_loc.column)) {
      flow.path_query_where = reader.key_path(key);
      flow.path_query_loc = loc;
    }
    flow.has_path_query = true;
  };
  constexpr uint64_t kU64 = std::numeric_limits<uint64_t>::max();
  if (reader.has("service_id")) {
    flow.path_query.service_id = located_u64(reader.at("service_id"), kU64, "service_id");
    note_key("service_id");
  }
  if (reader.has("pkey")) {
    flow.path_query.pkey = static_cast<uint16_t>(located_u64(reader.at("pkey"), 0xffff, "pkey"));
    note_key("pkey");
  }
  if (reader.has("qos_class")) {
    flow.path_query.qos_class =
        static_cast<uint8_t>(located_integer(reader.at("qos_class"), 0, 255, "qos_class"));
    note_key("qos_class");
  }
  if (reader.has("source_guid")) {
    flow.path_query.source_port_guid = located_u64(reader.at("source_guid"), kU64, "source_guid");
    note_key("source_guid");
  }
  if (reader.has("destination_guid")) {
    flow.path_query.destination_port_guid =
        located_u64(reader.at("destination_guid"), kU64, "destination_guid");
    note_key("destination_guid");
  }
}

// ---- across sections -----------------------------------------------------------------------

void check_scenario_qos(Scenario& scenario) {
  using policy::Transport;
  const Transport transport = scenario.port.wire.transport;
  if (scenario.eth.present && transport == Transport::ib) {
    fail("[eth] applies to rocev2 and eth ports; this port is ib (use [ib])", scenario.eth.where,
         scenario.eth.loc);
  }
  if (scenario.ib.present && transport != Transport::ib) {
    fail(fmt::format("[ib] applies to ib ports; this port is {} (use [eth])",
                     policy::transport_name(transport)),
         scenario.ib.where, scenario.ib.loc);
  }
  if (scenario.fabric.switched && scenario.fabric.switch_rate_bps == 0.0) {
    scenario.fabric.switch_rate_bps = scenario.port.rate_bps;
  }
  for (const FlowSpec& flow : scenario.flows) {
    if (flow.host >= scenario.fabric.hosts) {
      fail(fmt::format("host {} does not exist: [fabric] hosts = {} (hosts are 0..{})", flow.host,
                       scenario.fabric.hosts, scenario.fabric.hosts - 1),
           flow.where + ".host", flow.host_loc);
    }
    if (flow.has_path_query && !scenario.ib.qos_policy) {
      fail("this key is matched against an OpenSM qos-policy.conf; name one in [ib] qos_policy",
           flow.path_query_where, flow.path_query_loc);
    }
  }
}

}  // namespace qb::suite::detail
