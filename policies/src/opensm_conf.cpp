// opensm.conf qos_* options -> the tables OpenSM programs on a port. The parsing deliberately
// reproduces OpenSM's C-library number handling (strtol/strtoul with base 0, so 0x.. and 0..
// octal are accepted, leading blanks skipped, a failed conversion reads as 0) because the import
// must program exactly what OpenSM would, quirks included.
#include "qb/policies/opensm_conf.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>

#include "opensm_text.hpp"

namespace qb::policy {
namespace {

constexpr uint32_t kDefaultMaxVls = 15;
constexpr int32_t kDefaultHighLimit = 0;
constexpr const char* kDefaultVlarbHigh =
    "0:4,1:0,2:0,3:0,4:0,5:0,6:0,7:0,8:0,9:0,10:0,11:0,12:0,13:0,14:0";
constexpr const char* kDefaultVlarbLow =
    "0:0,1:4,2:4,3:4,4:4,5:4,6:4,7:4,8:4,9:4,10:4,11:4,12:4,13:4,14:4";
constexpr const char* kDefaultSl2vl = "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7";
constexpr size_t kVlarbEntries = 64;  // two blocks of 32, what OpenSM parses per table
constexpr size_t kVlarbBlock = 32;
constexpr uint8_t kMaxCap = 64;

// Sets in the order OpenSM verifies them (and so logs their warnings).
constexpr std::array<std::string_view, 5> kPrefixes{"qos", "qos_ca", "qos_sw0", "qos_swe",
                                                    "qos_rtr"};
constexpr std::array<std::string_view, 5> kSuffixes{"max_vls", "high_limit", "vlarb_high",
                                                    "vlarb_low", "sl2vl"};

struct RawValue {
  std::string value;
  uint32_t line = 0;
  uint32_t column = 0;  // of the value's first character
};

// OpenSM's clean_val: trim blanks, then drop one pair of matching quotes.
std::string_view clean_value(std::string_view value, uint32_t& offset) {
  size_t begin = 0;
  std::string_view out = opensm_text::trim(value, begin);
  offset = static_cast<uint32_t>(begin);
  if (out.size() >= 2 &&
      ((out.front() == '"' && out.back() == '"') || (out.front() == '\'' && out.back() == '\''))) {
    out = out.substr(1, out.size() - 2);
    ++offset;
  }
  return out;
}

class Parser {
 public:
  Parser(std::string file, OpensmConf& conf) : file_(std::move(file)), conf_(conf) {}

  // The last occurrence wins, as for every OpenSM option; a value OpenSM cannot use (not a
  // number, 0, beyond VL0-14) leaves its default, 5, which no port's VLCap exceeds.
  void take_max_op_vls(std::string_view value, uint32_t line) {
    const std::string text(value);
    char* end = nullptr;
    errno = 0;
    const unsigned long parsed = std::strtoul(text.c_str(), &end, 0);
    if (text.empty() || *end != '\0' || errno == ERANGE || parsed < 1 || parsed > 5) {
      warn(line, "max_op_vls=" + text +
                     " is not 1-5 (1=VL0 2=VL0-1 3=VL0-3 4=VL0-7 5=VL0-14): "
                     "using the default (5)");
      conf_.max_op_vls.reset();
      return;
    }
    conf_.max_op_vls = static_cast<uint8_t>(parsed);
  }

  void warn(uint32_t line, std::string message) {
    conf_.warnings.push_back(OpensmWarning{SourceLoc{file_, line, 0}, std::move(message)});
  }

  Error error(uint32_t line, uint32_t column, std::string message, std::string key) const {
    return make_error(Errc::invalid_config, std::move(message), std::move(key),
                      SourceLoc{file_, line, column});
  }

  Status read_lines(std::string_view text) {
    return opensm_text::for_each_line(text, [&](uint32_t line_no, std::string_view line) {
      using opensm_text::is_blank;
      size_t key_begin = 0;
      while (key_begin < line.size() && is_blank(line[key_begin])) ++key_begin;
      if (key_begin == line.size()) return Status{};
      size_t key_end = key_begin;
      while (key_end < line.size() && !is_blank(line[key_end])) ++key_end;
      const std::string key(line.substr(key_begin, key_end - key_begin));
      // strtok_r consumes exactly one separator after the key.
      const size_t value_start = key_end < line.size() ? key_end + 1 : key_end;
      uint32_t offset = 0;
      const std::string_view value = clean_value(line.substr(value_start), offset);
      const auto column = static_cast<uint32_t>(value_start + offset + 1);
      return take(key, value, line_no, column, static_cast<uint32_t>(key_begin + 1));
    });
  }

  Status take(const std::string& key, std::string_view value, uint32_t line, uint32_t column,
              uint32_t key_column) {
    if (key == "qos") {
      conf_.qos_enabled = value == "TRUE";  // OpenSM: exactly "TRUE", anything else is FALSE
      return {};
    }
    if (key == "qos_policy_file") {
      conf_.qos_policy_file = std::string(value);
      return {};
    }
    if (key == "max_op_vls") {
      take_max_op_vls(value, line);
      return {};
    }
    if (key.rfind("qos_", 0) != 0) return {};  // not ours: the rest of opensm.conf
    if (!known_key(key)) {
      warn(line, "unrecognized token \"" + key + "\" (OpenSM ignores it)");
      return {};
    }
    if (value.empty()) {
      return error(line, key_column, "option has no value", key);
    }
    raw_[key] = RawValue{std::string(value), line, column};
    return {};
  }

  Status resolve() {
    std::array<OpensmQosSet*, 5> sets{&conf_.generic, &conf_.ca, &conf_.sw0, &conf_.swe,
                                      &conf_.rtr};
    for (size_t i = 0; i < kPrefixes.size(); ++i) {
      if (Status status = resolve_set(std::string(kPrefixes[i]), *sets[i]); !status) return status;
    }
    return {};
  }

 private:
  static bool known_key(const std::string& key) {
    for (auto prefix : kPrefixes) {
      for (auto suffix : kSuffixes) {
        if (key == std::string(prefix) + "_" + std::string(suffix)) return true;
      }
    }
    return false;
  }

  const RawValue* find(const std::string& key) const {
    const auto it = raw_.find(key);
    return it == raw_.end() ? nullptr : &it->second;
  }

  Status resolve_set(const std::string& prefix, OpensmQosSet& set) {
    if (const RawValue* raw = find(prefix + "_max_vls")) {
      // OpenSM: strtoul base 0, the whole value must convert, at most UINT32_MAX.
      errno = 0;
      char* end = nullptr;
      const unsigned long long parsed = std::strtoull(raw->value.c_str(), &end, 0);
      if (*end != '\0' || errno == ERANGE || parsed > UINT32_MAX) {
        return error(raw->line, raw->column,
                     "expected an unsigned number, got \"" + raw->value + "\"",
                     prefix + "_max_vls");
      }
      const auto max_vls = static_cast<uint32_t>(parsed);
      if (max_vls > 15) {
        warn(raw->line, prefix + "_max_vls=" + std::to_string(max_vls) +
                            " is invalid: using the default (" + std::to_string(kDefaultMaxVls) +
                            ")");
      } else if (max_vls > 0) {
        set.max_vls = max_vls;
      }
    }
    if (const RawValue* raw = find(prefix + "_high_limit")) {
      // OpenSM: strtol base 0 into an int32, trailing characters ignored; outside 0-255 it
      // falls back (and logs only above 255).
      char* end = nullptr;
      const long parsed = std::strtol(raw->value.c_str(), &end, 0);
      const auto high_limit = static_cast<int32_t>(parsed);
      if (*end != '\0') {
        warn(raw->line, prefix + "_high_limit=" + raw->value +
                            " improperly formatted: OpenSM reads it as " +
                            std::to_string(high_limit));
      }
      if (high_limit < 0 || high_limit > 255) {
        warn(raw->line, prefix + "_high_limit=" + std::to_string(high_limit) +
                            " is out of range 0-255: using the default");
      } else {
        set.high_limit = high_limit;
      }
    }
    set.vlarb_low = charp(prefix + "_vlarb_low");
    if (set.vlarb_low) verify_vlarb(*set.vlarb_low, prefix + "_vlarb_low");
    set.vlarb_high = charp(prefix + "_vlarb_high");
    if (set.vlarb_high) verify_vlarb(*set.vlarb_high, prefix + "_vlarb_high");
    set.sl2vl = charp(prefix + "_sl2vl");
    if (set.sl2vl) verify_sl2vl(*set.sl2vl, prefix + "_sl2vl");
    return {};
  }

  std::optional<std::string> charp(const std::string& key) {
    const RawValue* raw = find(key);
    if (raw == nullptr || raw->value == "(null)") return std::nullopt;  // OpenSM's unset marker
    current_line_ = raw->line;
    return raw->value;
  }

  // strtok(",\n"): empty tokens are skipped.
  static std::vector<std::string> tokens(const std::string& value) {
    std::vector<std::string> out;
    size_t pos = 0;
    while (pos <= value.size()) {
      size_t end = value.find_first_of(",\n", pos);
      if (end == std::string::npos) end = value.size();
      if (end > pos) out.push_back(value.substr(pos, end - pos));
      pos = end + 1;
    }
    return out;
  }

  // strtol base 0 over the whole token; nullopt when characters are left over.
  static std::optional<long> whole_long(const std::string& text) {
    char* end = nullptr;
    const long value = std::strtol(text.c_str(), &end, 0);
    if (*end != '\0') return std::nullopt;
    return value;
  }

  void verify_vlarb(const std::string& value, const std::string& key) {
    const auto list = tokens(value);
    for (const auto& token : list) {
      const size_t colon = token.find(':');
      if (colon == std::string::npos) {
        warn(current_line_, key + ": vl:weight=" + token + " improperly formatted");
        continue;
      }
      const std::string vl_text = token.substr(0, colon);
      const std::string weight_text = token.substr(colon + 1);
      if (const auto vl = whole_long(vl_text); !vl) {
        warn(current_line_, key + ": vl=" + vl_text + " improperly formatted");
      } else if (*vl < 0 || *vl > 14) {
        warn(current_line_, key + ": vl=" + std::to_string(*vl) +
                                " out of range 0-14 (OpenSM takes it modulo 15)");
      }
      if (const auto weight = whole_long(weight_text); !weight) {
        warn(current_line_, key + ": weight=" + weight_text + " improperly formatted");
      } else if (*weight < 0 || *weight > 255) {
        warn(current_line_, key + ": weight=" + std::to_string(*weight) +
                                " out of range 0-255 (OpenSM keeps its low 8 bits)");
      }
    }
    if (list.size() > kVlarbEntries) {
      warn(current_line_, key + ": " + std::to_string(list.size()) +
                              " entries listed, more than 64: the excess is dropped");
    }
  }

  void verify_sl2vl(const std::string& value, const std::string& key) {
    const auto list = tokens(value);
    for (const auto& token : list) {
      if (const auto vl = whole_long(token); !vl) {
        warn(current_line_, key + ": vl=" + token + " improperly formatted");
      } else if (*vl < 0 || *vl > 15) {
        warn(current_line_, key + ": vl=" + std::to_string(*vl) + " out of range 0-15");
      }
    }
    if (list.size() < 16) {
      warn(current_line_, key + ": fewer than 16 VLs listed (the missing SLs map to VL0)");
    } else if (list.size() > 16) {
      warn(current_line_, key + ": more than 16 VLs listed: the excess is dropped");
    }
  }

  std::string file_;
  OpensmConf& conf_;
  std::map<std::string, RawValue> raw_;
  uint32_t current_line_ = 0;
};

// OpenSM's table reader: read a number (strtoul base 0; nothing readable = 0 and no progress),
// then skip exactly one character whatever it is. Running off the end yields zeros.
unsigned next_unsigned(const char*& cursor) {
  char* end = nullptr;
  const auto value = static_cast<unsigned>(std::strtoul(cursor, &end, 0));
  if (*end != '\0') ++end;
  cursor = end;
  return value;
}

std::array<VlArbEntry, kVlarbEntries> parse_vlarb(const std::string& text) {
  std::array<VlArbEntry, kVlarbEntries> table{};
  const char* cursor = text.c_str();
  for (auto& entry : table) {
    entry.vl = static_cast<uint8_t>(next_unsigned(cursor) % 15);
    entry.weight = static_cast<uint8_t>(next_unsigned(cursor) & 0xffU);
  }
  return table;
}

std::array<uint8_t, 16> parse_sl2vl(const std::string& text) {
  std::array<uint8_t, 16> table{};
  const char* cursor = text.c_str();
  for (auto& vl : table) vl = static_cast<uint8_t>(next_unsigned(cursor) & 0xfU);  // a nibble
  return table;
}

// The programmed table: block 0 carries min(cap, 32) entries; block 1 carries cap % 32 entries
// when cap > 32 (so a 64-entry port gets an all-zero block 1, as OpenSM sends it).
std::vector<VlArbEntry> cut_to_port(const std::array<VlArbEntry, kVlarbEntries>& full, uint8_t cap,
                                    uint8_t mask) {
  std::vector<VlArbEntry> out(cap);
  const size_t block1_len = cap > kVlarbBlock ? cap % kVlarbBlock : 0;
  for (size_t i = 0; i < cap; ++i) {
    const bool sent = i < kVlarbBlock || i - kVlarbBlock < block1_len;
    if (!sent) continue;
    out[i] = full[i];
    out[i].vl = static_cast<uint8_t>(out[i].vl & mask);
  }
  return out;
}

template <class T>
const T& pick(const std::optional<T>& own, const std::optional<T>& generic, const T& dflt) {
  if (own) return *own;
  if (generic) return *generic;
  return dflt;
}

}  // namespace

std::string_view ib_port_type_name(IbPortType type) noexcept {
  switch (type) {
    case IbPortType::ca:
      return "ca";
    case IbPortType::swe:
      return "swe";
    case IbPortType::sw0:
      return "sw0";
    case IbPortType::rtr:
      return "rtr";
  }
  return "ca";
}

Result<IbPortType> parse_ib_port_type(std::string_view name) {
  for (IbPortType type : {IbPortType::ca, IbPortType::swe, IbPortType::sw0, IbPortType::rtr}) {
    if (name == ib_port_type_name(type)) return type;
  }
  return make_error(Errc::usage, "unknown port type \"" + std::string(name) +
                                     "\" (expected ca, swe, sw0 or rtr)");
}

const OpensmQosSet& OpensmConf::set_for(IbPortType type) const noexcept {
  switch (type) {
    case IbPortType::ca:
      return ca;
    case IbPortType::swe:
      return swe;
    case IbPortType::sw0:
      return sw0;
    case IbPortType::rtr:
      return rtr;
  }
  return ca;
}

Result<OpensmConf> parse_opensm_conf(std::string_view text, const std::string& file) {
  OpensmConf conf;
  Parser parser(file, conf);
  if (Status status = parser.read_lines(text); !status) return std::move(status).error();
  if (Status status = parser.resolve(); !status) return std::move(status).error();
  return conf;
}

Result<OpensmConf> load_opensm_conf(const std::string& path) {
  auto text = opensm_text::read_file(path, "opensm.conf");
  if (!text) return std::move(text).error();
  return parse_opensm_conf(*text, path);
}

Status validate_port_caps(const IbPortCaps& caps) {
  if (caps.op_vls < 1 || caps.op_vls > 5) {
    return make_error(Errc::usage,
                      "operational VLs must be 1-5 (1=VL0, 2=VL0-1, 3=VL0-3, 4=VL0-7, 5=VL0-14)",
                      "op-vls");
  }
  if (caps.vlarb_high_cap > kMaxCap) {
    return make_error(Errc::usage, "VLArb high capacity must be 0-64", "vlarb-high-cap");
  }
  if (caps.vlarb_low_cap > kMaxCap) {
    return make_error(Errc::usage, "VLArb low capacity must be 0-64", "vlarb-low-cap");
  }
  return {};
}

uint8_t operational_vls(uint8_t vl_cap, const OpensmConf& conf) noexcept {
  return conf.max_op_vls ? std::min(vl_cap, *conf.max_op_vls) : vl_cap;
}

uint8_t op_vls_mask(uint8_t op_vls) noexcept {
  if (op_vls < 1) return 0;
  if (op_vls > 5) op_vls = 5;
  return static_cast<uint8_t>((1U << (op_vls - 1U)) - 1U);
}

uint8_t max_data_vl(uint8_t op_vls) noexcept {
  const uint8_t mask = op_vls_mask(op_vls);
  return mask == 15 ? uint8_t{14} : mask;
}

IbPortQos program_port_qos(const OpensmConf& conf, IbPortType type, const IbPortCaps& caps) {
  const OpensmQosSet& own = conf.set_for(type);
  const OpensmQosSet& generic = conf.generic;
  const uint8_t mask = op_vls_mask(caps.op_vls);
  IbPortQos qos;
  qos.max_vls = pick(own.max_vls, generic.max_vls, kDefaultMaxVls);
  qos.high_limit =
      static_cast<uint8_t>(pick(own.high_limit, generic.high_limit, kDefaultHighLimit));
  const std::string high_default = kDefaultVlarbHigh;
  const std::string low_default = kDefaultVlarbLow;
  const std::string sl2vl_default = kDefaultSl2vl;
  qos.vlarb_high = cut_to_port(parse_vlarb(pick(own.vlarb_high, generic.vlarb_high, high_default)),
                               std::min(caps.vlarb_high_cap, kMaxCap), mask);
  qos.vlarb_low = cut_to_port(parse_vlarb(pick(own.vlarb_low, generic.vlarb_low, low_default)),
                              std::min(caps.vlarb_low_cap, kMaxCap), mask);
  qos.sl2vl = parse_sl2vl(pick(own.sl2vl, generic.sl2vl, sl2vl_default));
  for (auto& vl : qos.sl2vl) {
    if (vl != 15) vl = static_cast<uint8_t>(vl & mask);  // VL15 (drop) is never masked
  }
  return qos;
}

}  // namespace qb::policy
