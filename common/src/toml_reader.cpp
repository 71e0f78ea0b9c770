#include "qb/common/toml_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "qb/common/units.hpp"

namespace qb::config {
namespace {

char fold(char c) noexcept {
  if (c == '-') return '_';
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

// Levenshtein distance over case-folded characters ('-' counts as '_').
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> previous(b.size() + 1);
  std::vector<size_t> current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t substitute = previous[j - 1] + (fold(a[i - 1]) == fold(b[j - 1]) ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitute});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::string list_keys(std::initializer_list<std::string_view> known) {
  std::string out;
  for (auto key : known) {
    if (!out.empty()) out += ", ";
    out += key;
  }
  return out;
}

}  // namespace

void fail(std::string message, std::string where, SourceLoc loc) {
  throw ConfigError{
      make_error(Errc::invalid_config, std::move(message), std::move(where), std::move(loc))};
}

std::string join_path(std::string_view prefix, std::string_view key) {
  if (prefix.empty()) return std::string(key);
  return fmt::format("{}.{}", prefix, key);
}

std::string index_path(std::string_view prefix, std::string_view key, size_t index) {
  return fmt::format("{}[{}]", join_path(prefix, key), index);
}

std::string_view type_phrase(const toml::node& node) noexcept {
  switch (node.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

SourceLoc loc_of(const toml::source_region& source, const std::string& file) {
  return SourceLoc{file, source.begin.line, source.begin.column};
}

std::string_view closest_key(std::string_view key, std::initializer_list<std::string_view> known) {
  std::string_view best;
  size_t best_distance = std::numeric_limits<size_t>::max();
  for (auto candidate : known) {
    const size_t distance = edit_distance(key, candidate);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  // Close enough to be a typo: one edit for short keys, two for longer ones.
  const size_t allowed = best.size() <= 4 ? 1 : 2;
  return best_distance <= allowed ? best : std::string_view{};
}

void Located::fail_here(std::string message) const {
  fail(std::move(message), path, loc());
}

void Located::fail_type(std::string_view expected) const {
  fail_here(fmt::format("expected {}, got {}", expected, type_phrase(node)));
}

const toml::table& Located::table() const {
  const auto* table = node.as_table();
  if (table == nullptr) fail_type("a table");
  return *table;
}

void TableReader::allow_only(std::initializer_list<std::string_view> known) const {
  // Report the first unknown key as written, not in the table's (sorted) iteration order.
  const toml::key* first = nullptr;
  for (auto&& [key, value] : table_) {
    if (std::find(known.begin(), known.end(), key.str()) != known.end()) continue;
    const auto& here = key.source().begin;
    if (first == nullptr || here.line < first->source().begin.line ||
        (here.line == first->source().begin.line && here.column < first->source().begin.column)) {
      first = &key;
    }
  }
  if (first == nullptr) return;
  const std::string_view name = first->str();
  const std::string_view suggestion = closest_key(name, known);
  std::string message =
      suggestion.empty() ? fmt::format("unknown key '{}' (known keys: {})", name, list_keys(known))
                         : fmt::format("unknown key '{}'; did you mean '{}'?", name, suggestion);
  if (known.size() == 0) message = fmt::format("unknown key '{}'", name);
  fail(std::move(message), key_path(name), loc_of(first->source(), file_));
}

Located TableReader::at(std::string_view key) const {
  return Located{*find(key), key_path(key), file_};
}

SourceLoc TableReader::value_loc(std::string_view key) const {
  const auto* node = find(key);
  return node != nullptr ? loc_of(node->source(), file_) : loc();
}

void TableReader::fail_at(std::string_view key, std::string message) const {
  fail(std::move(message), key_path(key), value_loc(key));
}

void TableReader::fail_missing(std::string_view key, std::string_view why) const {
  fail(why.empty() ? fmt::format("missing required key '{}'", key)
                   : fmt::format("missing required key '{}' ({})", key, why),
       key_path(key), loc());
}

std::optional<std::string> TableReader::string(std::string_view key) const {
  const auto* node = find(key);
  if (node == nullptr) return std::nullopt;
  const auto* value = node->as_string();
  if (value == nullptr) at(key).fail_type("a string");
  return value->get();
}

std::string TableReader::required_string(std::string_view key) const {
  auto value = string(key);
  if (!value) fail_missing(key);
  if (value->empty()) fail_at(key, fmt::format("'{}' must not be empty", key));
  return std::move(*value);
}

std::optional<int64_t> TableReader::integer(std::string_view key, int64_t min, int64_t max) const {
  const auto* node = find(key);
  if (node == nullptr) return std::nullopt;
  const auto* value = node->as_integer();
  if (value == nullptr) at(key).fail_type("an integer");
  const int64_t number = value->get();
  if (number < min || number > max) {
    if (max == std::numeric_limits<int64_t>::max()) {
      fail_at(key, fmt::format("{} must be at least {}, got {}", key, min, number));
    }
    fail_at(key, fmt::format("{} must be in {}..{}, got {}", key, min, max, number));
  }
  return number;
}

std::optional<double> TableReader::number(std::string_view key, double min, double max) const {
  const auto* node = find(key);
  if (node == nullptr) return std::nullopt;
  double number = 0.0;
  if (const auto* integer_value = node->as_integer()) {
    number = static_cast<double>(integer_value->get());
  } else if (const auto* float_value = node->as_floating_point()) {
    number = float_value->get();
  } else {
    at(key).fail_type("a number");
  }
  if (!std::isfinite(number)) fail_at(key, fmt::format("{} must be a finite number", key));
  if (number < min || number > max) {
    if (std::isinf(max))
      fail_at(key, fmt::format("{} must be at least {}, got {}", key, min, number));
    fail_at(key, fmt::format("{} must be in {}..{}, got {}", key, min, max, number));
  }
  return number;
}

std::optional<bool> TableReader::boolean(std::string_view key) const {
  const auto* node = find(key);
  if (node == nullptr) return std::nullopt;
  const auto* value = node->as_boolean();
  if (value == nullptr) at(key).fail_type("a boolean (true or false)");
  return value->get();
}

std::optional<std::vector<std::string>> TableReader::string_list(std::string_view key) const {
  const auto* node = find(key);
  if (node == nullptr) return std::nullopt;
  const auto* array = node->as_array();
  if (array == nullptr) fail_at(key, "expected an array of strings");
  std::vector<std::string> out;
  for (const auto& item : *array) {
    const auto* text = item.as_string();
    if (text == nullptr) fail_at(key, "expected an array of strings");
    out.push_back(text->get());
  }
  return out;
}

std::optional<int64_t> TableReader::duration_ns(std::string_view key, bool allow_zero) const {
  const auto* node = find(key);
  if (node == nullptr) return std::nullopt;
  const auto* value = node->as_string();
  if (value == nullptr) at(key).fail_type("a string (a duration such as \"100ms\")");
  auto parsed = parse_duration_ns(value->get(), allow_zero);
  if (!parsed) fail_at(key, parsed.error().message);
  return *parsed;
}

std::optional<int64_t> TableReader::duration_ns(std::string_view key, int64_t min_ns,
                                                int64_t max_ns, std::string_view why) const {
  const auto* node = find(key);
  if (node == nullptr) return std::nullopt;
  const auto* text = node->as_string();
  if (text == nullptr) at(key).fail_type("a string (a duration such as \"100ms\")");
  // Unbounded first: however far out, the message gives this key's own range.
  auto ns = parse_duration_ns_unbounded(text->get());
  if (!ns) fail_at(key, ns.error().message);
  if (!(*ns >= static_cast<double>(min_ns) && *ns <= static_cast<double>(max_ns))) {
    fail_at(key, fmt::format("{} must be in {}..{}{}, got \"{}\"", key,
                             format_duration_ns(static_cast<double>(min_ns)),
                             format_duration_ns(static_cast<double>(max_ns)),
                             why.empty() ? std::string() : fmt::format(" ({})", why), text->get()));
  }
  return std::clamp<int64_t>(std::llround(*ns), min_ns, max_ns);
}

const toml::table* TableReader::subtable(std::string_view key) const {
  const auto* node = find(key);
  if (node == nullptr) return nullptr;
  return &at(key).table();
}

}  // namespace qb::config
