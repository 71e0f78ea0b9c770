// A cheap pass over TOML text before it is parsed: bounds the parts of a dotted key or table
// header and the nesting of arrays and inline tables. The parser recurses per part and per
// level, so 50,000 of them (a 100 KB file) overflow the stack.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace qb::suite::detail {

constexpr uint32_t kMaxTomlKeyParts = 256;
constexpr uint32_t kMaxTomlNesting = 256;

struct TomlDepthError {
  std::string message;
  uint32_t line = 0;    // 1-based
  uint32_t column = 0;  // 1-based, in bytes
};

/// The first place where a key has more than kMaxTomlKeyParts parts or arrays/inline tables
/// nest deeper than kMaxTomlNesting; nothing when the text stays within both.
std::optional<TomlDepthError> check_toml_depth(std::string_view text);

}  // namespace qb::suite::detail
