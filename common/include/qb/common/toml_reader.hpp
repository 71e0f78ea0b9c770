// Typed, located reads from a TOML++ table, for the parsers (the suite loader; ConfigTable, which
// gives drivers the same reads without TOML++ in their sources).
//
// Every read knows the key path of its table ("scenario[1].flow[0]") and the file name, so any
// failure becomes an Errc::invalid_config Error with `where` and `loc` filled in. Failures are
// thrown as ConfigError and caught at the parse boundary (load_suite_string(), the driver
// registry's option parsing): the first error ends the parse, so unwinding out of deeply nested
// tables is the simplest correct control flow.
#pragma once

#include <toml++/toml.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "qb/common/config_error.hpp"
#include "qb/common/config_table.hpp"
#include "qb/common/result.hpp"

namespace qb::config {

[[noreturn]] void fail(std::string message, std::string where, SourceLoc loc);

/// "prefix.key", or "key" when prefix is empty.
std::string join_path(std::string_view prefix, std::string_view key);
/// "prefix.key[index]".
std::string index_path(std::string_view prefix, std::string_view key, size_t index);

/// "a string", "an integer", ... for messages like "expected a string, got an integer".
std::string_view type_phrase(const toml::node& node) noexcept;

SourceLoc loc_of(const toml::source_region& source, const std::string& file);

/// The closest of `known` to `key` (case and '-'/'_' insensitive edit distance), or empty.
std::string_view closest_key(std::string_view key, std::initializer_list<std::string_view> known);

/// A node at a key path: for values that are not members of a table (array elements).
struct Located {
  const toml::node& node;
  std::string path;
  const std::string& file;

  SourceLoc loc() const { return loc_of(node.source(), file); }
  [[noreturn]] void fail_here(std::string message) const;
  [[noreturn]] void fail_type(std::string_view expected) const;
  const toml::table& table() const;  // or fails "expected a table, got ..."
};

/// One TOML table being read.
class TableReader {
 public:
  TableReader(const toml::table& table, std::string path, const std::string& file)
      : table_(table), path_(std::move(path)), file_(file) {}

  const toml::table& table() const noexcept { return table_; }
  const std::string& path() const noexcept { return path_; }
  const std::string& file() const noexcept { return file_; }
  SourceLoc loc() const { return loc_of(table_.source(), file_); }
  std::string key_path(std::string_view key) const { return join_path(path_, key); }

  /// Fails on the first key (in document order) that is not in `known`.
  void allow_only(std::initializer_list<std::string_view> known) const;

  const toml::node* find(std::string_view key) const { return table_.get(key); }
  bool has(std::string_view key) const { return find(key) != nullptr; }
  /// The value at `key` (which must exist) with its path.
  Located at(std::string_view key) const;
  SourceLoc value_loc(std::string_view key) const;

  /// Fails at the value of `key` (which must exist).
  [[noreturn]] void fail_at(std::string_view key, std::string message) const;
  /// Fails at this table: `key` is required (`why` adds context).
  [[noreturn]] void fail_missing(std::string_view key, std::string_view why = {}) const;

  std::optional<std::string> string(std::string_view key) const;
  /// A string that must be present and not empty.
  std::string required_string(std::string_view key) const;
  std::optional<int64_t> integer(std::string_view key, int64_t min, int64_t max) const;
  /// An integer or a float, finite and within [min, max].
  std::optional<double> number(std::string_view key, double min, double max) const;
  std::optional<bool> boolean(std::string_view key) const;
  std::optional<std::vector<std::string>> string_list(std::string_view key) const;
  /// A duration string such as "100ms" (at most kMaxDurationNs).
  std::optional<int64_t> duration_ns(std::string_view key, bool allow_zero) const;
  /// A duration within [min_ns, max_ns]; `why` (may be empty) says where a bound comes from.
  std::optional<int64_t> duration_ns(std::string_view key, int64_t min_ns, int64_t max_ns,
                                     std::string_view why) const;
  /// A sub-table (fails when the key holds something else).
  const toml::table* subtable(std::string_view key) const;

 private:
  const toml::table& table_;
  std::string path_;
  const std::string& file_;
};

/// A ConfigTable reading `table`, a table inside `document`, which it keeps alive (the suite
/// loader keeps [driver.<name>] tables so, with their source positions).
ConfigTable make_config_table(std::shared_ptr<const toml::table> document, const toml::table& table,
                              std::string path, std::string file);

}  // namespace qb::config
