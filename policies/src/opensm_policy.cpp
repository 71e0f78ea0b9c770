// qos-policy.conf reader: a line-oriented recogniser of OpenSM's sections and keywords (each
// keyword first on its line, '#' comments, blanks ignored), then OpenSM's cross-checks AC10-AC13.
#include "qb/policies/opensm_policy.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <tuple>

#include "opensm_text.hpp"

namespace qb::policy {
namespace {

enum class State {
  top,
  port_groups,
  port_group,
  qos_setup,
  qos_levels,
  qos_level,
  match_rules,
  match_rule,
  ulps
};

using opensm_text::is_blank;
using opensm_text::trim;

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::optional<uint64_t> whole_number(std::string_view text) {
  const std::string copy(text);
  if (copy.empty() || copy.front() == '-' || copy.front() == '+') return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(copy.c_str(), &end, 0);
  if (*end != '\0' || errno == ERANGE) return std::nullopt;
  return value;
}

// One number as OpenSM's lexer and strtoull(..., 0) read it: decimal, 0x-hex, or octal after a
// leading 0 (strtoull stops at the first non-octal digit, so does OpenSM); too large saturates.
std::optional<uint64_t> policy_number(std::string_view token) {
  if (token.empty()) return std::nullopt;
  const bool hex = token.size() > 2 && token[0] == '0' && (token[1] == 'x' || token[1] == 'X');
  for (size_t i = hex ? 2 : 0; i < token.size(); ++i) {
    const auto c = static_cast<unsigned char>(token[i]);
    if (hex ? !std::isxdigit(c) : !std::isdigit(c)) return std::nullopt;
  }
  const std::string copy(token);
  return std::strtoull(copy.c_str(), nullptr, 0);  // ERANGE gives ULLONG_MAX, as in OpenSM
}

// Comma-separated names (port-group names may contain blanks; they are trimmed).
std::vector<std::string> split_names(std::string_view text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string_view::npos) end = text.size();
    size_t offset = 0;
    const std::string_view name = trim(text.substr(pos, end - pos), offset);
    if (!name.empty()) out.emplace_back(name);
    pos = end + 1;
  }
  return out;
}

constexpr std::string_view kPortGroupKeys[] = {"name",      "use",  "port-guid", "port-name",
                                               "partition", "pkey", "node-type"};
constexpr std::string_view kQosLevelKeys[] = {"name",       "use",  "sl",          "mtu-limit",
                                              "rate-limit", "pkey", "packet-life", "path-bits"};
constexpr std::string_view kMatchRuleKeys[] = {
    "use", "qos-class", "source", "destination", "service-id", "pkey", "qos-level-name"};

template <size_t N>
bool one_of(std::string_view key, const std::string_view (&keys)[N]) {
  return std::find(std::begin(keys), std::end(keys), key) != std::end(keys);
}

class PolicyParser {
 public:
  explicit PolicyParser(std::string file) : file_(std::move(file)) {}

  Result<OpensmPolicy> parse(std::string_view text) {
    Status lines = opensm_text::for_each_line(text, [&](uint32_t line_no, std::string_view line) {
      line_ = line_no;
      size_t offset = 0;
      const std::string_view content = trim(line, offset);
      if (content.empty()) return Status{};
      return take(content, static_cast<uint32_t>(offset + 1));
    });
    if (!lines) return std::move(lines).error();
    if (state_ != State::top) {
      return error(line_ + 1, 1, "unexpected end of file: missing " + closing_keyword());
    }
    if (Status status = cross_check(); !status) return std::move(status).error();
    return std::move(policy_);
  }

 private:
  SourceLoc loc(uint32_t line, uint32_t column) const { return SourceLoc{file_, line, column}; }

  Error error(uint32_t line, uint32_t column, std::string message, std::string where = {}) const {
    return make_error(Errc::invalid_config, std::move(message), std::move(where),
                      loc(line, column));
  }

  std::string closing_keyword() const {
    switch (state_) {
      case State::port_groups:
        return "end-port-groups";
      case State::port_group:
        return "end-port-group";
      case State::qos_setup:
        return "end-qos-setup";
      case State::qos_levels:
        return "end-qos-levels";
      case State::qos_level:
        return "end-qos-level";
      case State::match_rules:
        return "end-qos-match-rules";
      case State::match_rule:
        return "end-qos-match-rule";
      case State::ulps:
        return "end-qos-ulps";
      case State::top:
        break;
    }
    return "";
  }

  // A section keyword: opens or closes a block when it is legal in the current state.
  std::optional<State> transition(std::string_view word) const {
    struct Edge {
      State from;
      std::string_view keyword;
      State to;
    };
    static constexpr Edge kEdges[] = {
        {State::top, "port-groups", State::port_groups},
        {State::port_groups, "port-group", State::port_group},
        {State::port_group, "end-port-group", State::port_groups},
        {State::port_groups, "end-port-groups", State::top},
        {State::top, "qos-setup", State::qos_setup},
        {State::qos_setup, "end-qos-setup", State::top},
        {State::top, "qos-levels", State::qos_levels},
        {State::qos_levels, "qos-level", State::qos_level},
        {State::qos_level, "end-qos-level", State::qos_levels},
        {State::qos_levels, "end-qos-levels", State::top},
        {State::top, "qos-match-rules", State::match_rules},
        {State::match_rules, "qos-match-rule", State::match_rule},
        {State::match_rule, "end-qos-match-rule", State::match_rules},
        {State::match_rules, "end-qos-match-rules", State::top},
        {State::top, "qos-ulps", State::ulps},
        {State::ulps, "end-qos-ulps", State::top},
    };
    for (const Edge& edge : kEdges) {
      if (edge.from == state_ && edge.keyword == word) return edge.to;
    }
    return std::nullopt;
  }

  // A comma-separated list of numbers and `a-b` ranges (OpenSM's list_of_ranges); a reversed
  // range is swapped; with `pkey` both ends lose the membership bit first (and are re-ordered).
  Status parse_ranges(std::string_view text, uint32_t column, std::string_view key, bool pkey,
                      std::vector<NumberRange>& out) const {
    size_t pos = 0;
    while (pos <= text.size()) {
      size_t end = text.find(',', pos);
      if (end == std::string_view::npos) end = text.size();
      size_t offset = 0;
      const std::string_view item = trim(text.substr(pos, end - pos), offset);
      const uint32_t item_column = column + static_cast<uint32_t>(pos + offset);
      const size_t dash = item.find('-', 1);
      size_t first_offset = 0;
      size_t last_offset = 0;
      const std::string_view first_text = trim(item.substr(0, dash), first_offset);
      const std::string_view last_text =
          dash == std::string_view::npos ? first_text : trim(item.substr(dash + 1), last_offset);
      const auto first = policy_number(first_text);
      const auto last = policy_number(last_text);
      if (!first || !last) {
        return error(line_, item_column,
                     "syntax error: '" + std::string(item) + "' is not a number or a range a-b",
                     std::string(key));
      }
      NumberRange range{*first, *last};
      if (pkey) {
        range.first &= 0x7fff;
        range.last &= 0x7fff;
      }
      if (range.first > range.last) std::swap(range.first, range.last);
      out.push_back(range);
      pos = end + 1;
    }
    return {};
  }

  // OpenSM's checks when a block closes (its __parser_*_end): groups and levels need a name,
  // a level needs an SL.
  Status check_closing(std::string_view word, uint32_t column) const {
    if (word == "end-port-group" && policy_.port_groups.back().name.empty()) {
      return error(line_, column, "port-group validation failed - no port group name specified");
    }
    if (word == "end-qos-level") {
      const PolicyQosLevel& level = policy_.qos_levels.back();
      if (!level.sl) return error(line_, column, "qos-level validation failed - no 'sl' specified");
      if (level.name.empty()) {
        return error(line_, column, "qos-level validation failed - no 'name' specified");
      }
    }
    return {};
  }

  Status take_group_value(PolicyPortGroup& group, const PolicyField& field) {
    const std::string_view value = field.value;
    const uint32_t column = field.loc.column;
    if (field.key == "port-guid")
      return parse_ranges(value, column, field.key, false, group.port_guids);
    if (field.key == "pkey") return parse_ranges(value, column, field.key, true, group.pkeys);
    if (field.key == "partition") {
      for (auto& name : split_names(value)) group.partitions.push_back(std::move(name));
      return {};
    }
    if (field.key == "port-name") {
      for (auto& name : split_names(value)) {
        // OpenSM rejects a name without "/P<non-zero number>" even when no node has it.
        const size_t slash = name.rfind('/');
        const bool ok = slash != std::string::npos && slash + 2 < name.size() &&
                        (name[slash + 1] == 'p' || name[slash + 1] == 'P') &&
                        std::strtoul(name.c_str() + slash + 2, nullptr, 0) != 0;
        if (!ok) return error(line_, column, "'" + name + "' - illegal port name", field.key);
        group.port_names.push_back(std::move(name));
      }
      return {};
    }
    if (field.key == "node-type") {
      for (const auto& type : split_names(value)) {
        if (iequals(type, "CA")) {
          group.node_types |= kNodeTypeCa;
        } else if (iequals(type, "SWITCH")) {
          group.node_types |= kNodeTypeSwitch;
        } else if (iequals(type, "ROUTER")) {
          group.node_types |= kNodeTypeRouter;
        } else if (iequals(type, "ALL")) {
          group.node_types |= kNodeTypeCa | kNodeTypeSwitch | kNodeTypeRouter;
        } else if (iequals(type, "SELF")) {
          group.self = true;
        } else {
          return error(
              line_, column,
              "syntax error: unknown node-type '" + type + "' (CA, SWITCH, ROUTER, ALL or SELF)",
              field.key);
        }
      }
    }
    return {};
  }

  Status take(std::string_view content, uint32_t column) {
    size_t word_end = 0;
    while (word_end < content.size() && !is_blank(content[word_end]) && content[word_end] != ':' &&
           content[word_end] != ',') {
      ++word_end;
    }
    const std::string_view word = content.substr(0, word_end);
    if (const auto next = transition(word); next && word_end == content.size()) {
      if (Status status = check_closing(word, column); !status) return status;
      open(*next, column);
      state_ = *next;
      return {};
    }
    if (state_ == State::qos_setup) return {};  // parsed and ignored by OpenSM
    if (state_ == State::ulps) return take_ulp(content, column);
    if (state_ == State::port_group || state_ == State::qos_level || state_ == State::match_rule) {
      return take_field(content, column);
    }
    return error(line_, column, "syntax error: unexpected '" + std::string(word) + "'");
  }

  void open(State next, uint32_t column) {
    if (next == State::port_group) {
      policy_.port_groups.emplace_back();
      policy_.port_groups.back().loc = loc(line_, column);
    }
    if (next == State::qos_level) policy_.qos_levels.push_back({{}, {}, {}, loc(line_, column)});
    if (next == State::match_rule) {
      policy_.match_rules.emplace_back();
      policy_.match_rules.back().loc = loc(line_, column);
    }
    if (next == State::qos_levels && !levels_loc_) levels_loc_ = loc(line_, column);
    if (next == State::ulps && !ulps_loc_) ulps_loc_ = loc(line_, column);
  }

  Status take_field(std::string_view content, uint32_t column) {
    const size_t colon = content.find(':');
    const std::string key(content.substr(0, colon == std::string_view::npos ? 0 : colon));
    const bool known = state_ == State::port_group  ? one_of(key, kPortGroupKeys)
                       : state_ == State::qos_level ? one_of(key, kQosLevelKeys)
                                                    : one_of(key, kMatchRuleKeys);
    if (colon == std::string_view::npos || !known) {
      size_t end = 0;
      while (end < content.size() && !is_blank(content[end]) && content[end] != ':') ++end;
      return error(line_, column,
                   "syntax error: unexpected '" + std::string(content.substr(0, end)) + "'");
    }
    size_t offset = 0;
    const std::string_view value = trim(content.substr(colon + 1), offset);
    const uint32_t value_column = column + static_cast<uint32_t>(colon + 1 + offset);
    if (value.empty()) return error(line_, value_column, "missing value", key);
    PolicyField field{key, std::string(value), loc(line_, value_column)};
    if (state_ == State::port_group) {
      auto& group = policy_.port_groups.back();
      if (key == "name") {
        if (!group.name.empty()) return error(line_, column, "port-group has multiple 'name' tags");
        group.name = field.value;
      } else {
        if (Status status = take_group_value(group, field); !status) return status;
        group.fields.push_back(std::move(field));
      }
    } else if (state_ == State::qos_level) {
      auto& level = policy_.qos_levels.back();
      if (key == "name") {
        if (!level.name.empty()) return error(line_, column, "qos-level has multiple 'name' tags");
        level.name = field.value;
      } else if (key == "sl") {
        if (level.sl) return error(line_, column, "'qos-level' has multiple 'sl' tags");
        const auto sl = whole_number(value);
        if (!sl || *sl > 15) return error(line_, value_column, "illegal SL value", key);
        level.sl = static_cast<uint8_t>(*sl);
      } else {
        level.fields.push_back(std::move(field));
      }
    } else {
      auto& rule = policy_.match_rules.back();
      if (key == "qos-level-name") {
        if (!rule.qos_level_name.empty()) {
          return error(line_, column, "qos-match-rule has multiple 'qos-level-name' tags");
        }
        rule.qos_level_name = field.value;
        rule.fields.push_back(std::move(field));  // keeps its location for AC11
      } else if (key == "source") {
        auto names = split_names(value);
        rule.source_groups.insert(rule.source_groups.end(), names.begin(), names.end());
        rule.fields.push_back(std::move(field));
      } else if (key == "destination") {
        auto names = split_names(value);
        rule.destination_groups.insert(rule.destination_groups.end(), names.begin(), names.end());
        rule.fields.push_back(std::move(field));
      } else {
        std::vector<NumberRange>* ranges = key == "qos-class"    ? &rule.qos_classes
                                           : key == "service-id" ? &rule.service_ids
                                           : key == "pkey"       ? &rule.pkeys
                                                                 : nullptr;
        if (ranges != nullptr) {
          if (Status status = parse_ranges(value, value_column, key, key == "pkey", *ranges);
              !status) {
            return status;
          }
        }
        rule.fields.push_back(std::move(field));
      }
    }
    return {};
  }

  Status take_ulp(std::string_view content, uint32_t column) {
    const size_t colon = content.find(':');
    if (colon == std::string_view::npos) {
      return error(line_, column, "syntax error: a qos-ulps rule is 'ulp[, criterion] : SL'");
    }
    size_t offset = 0;
    const std::string_view sl_text = trim(content.substr(colon + 1), offset);
    const uint32_t sl_column = column + static_cast<uint32_t>(colon + 1 + offset);
    const auto sl = whole_number(sl_text);
    if (!sl || *sl > 15) return error(line_, sl_column, "illegal SL value", "qos-ulps");
    const std::string_view left = content.substr(0, colon);
    const size_t comma = left.find(',');
    PolicyUlpRule rule;
    rule.sl = static_cast<uint8_t>(*sl);
    rule.loc = loc(line_, column);
    rule.ulp = std::string(trim(left.substr(0, comma), offset));
    std::string ulp_lower = rule.ulp;
    std::transform(ulp_lower.begin(), ulp_lower.end(), ulp_lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (comma != std::string_view::npos) {
      size_t crit_offset = 0;
      const std::string_view rest = trim(left.substr(comma + 1), crit_offset);
      size_t word_end = 0;
      while (word_end < rest.size() && !is_blank(rest[word_end])) ++word_end;
      rule.criterion = std::string(rest.substr(0, word_end));
      rule.values = std::string(trim(rest.substr(word_end), offset));
      const uint32_t crit_column = column + static_cast<uint32_t>(comma + 1 + crit_offset);
      if (Status status = check_criterion(ulp_lower, rule, crit_column); !status) return status;
      const uint32_t values_column = crit_column + static_cast<uint32_t>(word_end + offset);
      if (ulp_lower == "default") {
        return error(line_, column, "the default ULP rule takes no criterion", "qos-ulps");
      }
      if (Status status = parse_ranges(rule.values, values_column, rule.criterion,
                                       rule.criterion == "pkey", rule.ranges);
          !status) {
        return status;
      }
      if (rule.criterion == "port-num") {
        for (const NumberRange& range : rule.ranges) {
          if (range.last > 0xFFFF) {
            return error(line_, values_column, "port number out of range (0-65535)", "qos-ulps");
          }
        }
      }
    } else if (ulp_lower == "srp") {
      return error(line_, column, "SRP ULP rule doesn't have port guids", "qos-ulps");
    } else if (ulp_lower == "any") {
      return error(line_, column, "'any' ULP rule needs a criterion", "qos-ulps");
    }
    if (ulp_lower == "default") {
      if (!rule.criterion.empty()) {
        return error(line_, column, "the default ULP rule takes no criterion", "qos-ulps");
      }
      simple_default_ = rule.sl;
    } else if (ulp_lower != "sdp" && ulp_lower != "rds" && ulp_lower != "iser" &&
               ulp_lower != "ipoib" && ulp_lower != "srp" && ulp_lower != "any") {
      return error(line_, column, "syntax error: unknown ULP '" + rule.ulp + "'", "qos-ulps");
    }
    rule.ulp = ulp_lower;
    policy_.ulp_rules.push_back(std::move(rule));
    return {};
  }

  Status check_criterion(const std::string& ulp, const PolicyUlpRule& rule, uint32_t column) {
    const std::string& c = rule.criterion;
    bool ok = false;
    if (ulp == "sdp" || ulp == "rds" || ulp == "iser") ok = c == "port-num";
    if (ulp == "ipoib") ok = c == "pkey";
    if (ulp == "srp") ok = c == "target-port-guid";
    if (ulp == "any") {
      ok = c == "service-id" || c == "pkey" || c == "target-port-guid" || c == "source-port-guid" ||
           c == "source-target-port-guid";
    }
    if (ulp == "default") ok = true;  // reported by the caller
    if (!ok) {
      return error(line_, column, "syntax error: '" + c + "' is not a criterion of " + ulp,
                   "qos-ulps");
    }
    if (rule.values.empty() && ulp != "default") {
      return error(line_, column, "criterion '" + c + "' has no values", "qos-ulps");
    }
    return {};
  }

  const PolicyQosLevel* level_named(std::string_view name) const {
    for (const auto& level : policy_.qos_levels) {
      if (iequals(level.name, name)) return &level;  // OpenSM compares names case-insensitively
    }
    return nullptr;
  }

  bool group_exists(std::string_view name) const {
    return std::any_of(policy_.port_groups.begin(), policy_.port_groups.end(),
                       [&](const PolicyPortGroup& group) { return iequals(group.name, name); });
  }

  const PolicyField* field_of(const PolicyMatchRule& rule, std::string_view key) const {
    for (const auto& field : rule.fields) {
      if (field.key == key) return &field;
    }
    return nullptr;
  }

  Status cross_check() {
    if (const PolicyQosLevel* level = level_named("default")) {
      policy_.default_sl = level->sl.value_or(0);
      policy_.default_level_name = level->name;
    } else if (simple_default_) {
      policy_.default_sl = *simple_default_;
    } else {
      const SourceLoc where = levels_loc_ ? *levels_loc_ : ulps_loc_ ? *ulps_loc_ : loc(1, 1);
      return make_error(Errc::invalid_config,
                        "AC10: default qos-level (DEFAULT) not defined: add a qos-level named "
                        "DEFAULT or a 'default : SL' rule in qos-ulps",
                        {}, where);
    }
    for (size_t i = 0; i < policy_.match_rules.size(); ++i) {
      const PolicyMatchRule& rule = policy_.match_rules[i];
      const std::string number = std::to_string(i + 1);
      const PolicyField* level_field = field_of(rule, "qos-level-name");
      if (level_field == nullptr || level_named(rule.qos_level_name) == nullptr) {
        const SourceLoc where = level_field ? level_field->loc : rule.loc;
        return make_error(Errc::invalid_config,
                          "AC11: qos-match-rule " + number + ": qos-level '" + rule.qos_level_name +
                              "' not found",
                          "qos-level-name", where);
      }
      for (const auto& [key, groups, code] :
           {std::tuple{"source", &rule.source_groups, "AC12"},
            std::tuple{"destination", &rule.destination_groups, "AC13"}}) {
        for (const auto& group : *groups) {
          if (group_exists(group)) continue;
          const PolicyField* field = field_of(rule, key);
          return make_error(Errc::invalid_config,
                            std::string(code) + ": qos-match-rule " + number + ": " + key +
                                " port-group '" + group + "' not found",
                            key, field ? field->loc : rule.loc);
        }
      }
    }
    return {};
  }

  std::string file_;
  uint32_t line_ = 0;
  State state_ = State::top;
  OpensmPolicy policy_;
  std::optional<uint8_t> simple_default_;
  std::optional<SourceLoc> levels_loc_;
  std::optional<SourceLoc> ulps_loc_;
};

}  // namespace

Result<OpensmPolicy> parse_opensm_policy(std::string_view text, const std::string& file) {
  return PolicyParser(file).parse(text);
}

Result<OpensmPolicy> load_opensm_policy(const std::string& path) {
  auto text = opensm_text::read_file(path, "qos-policy.conf");
  if (!text) return std::move(text).error();
  return parse_opensm_policy(*text, path);
}

}  // namespace qb::policy
