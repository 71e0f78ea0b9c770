// ConfigTable: one configuration table (a suite's [driver.dpdk]) as its reader sees it: typed
// getters that carry the key path and file:line:col into their errors, with the command line's
// overrides (--driver-option KEY=VALUE) merged in. Drivers parse their options through it and so
// never see the TOML library. Getters throw ConfigError; the caller's parse boundary (the driver
// registry) turns it into the returned Error.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "qb/common/config_error.hpp"
#include "qb/common/result.hpp"

namespace qb {

/// A value given on the command line for a key of the table.
struct ConfigOverride {
  std::string key;
  std::string text;  // a TOML value (`true`, `2`, `["a", "b"]`), else taken as a string
  std::string flag;  // how it was given, for errors: "--driver-option", "--eal"
  /// The text is a command line of words (split like a shell: blanks, '...' and "..." quoting)
  /// that becomes an array of strings.
  bool words = false;
};

class ConfigTable {
 public:
  /// An empty table at `path` (e.g. "driver.dpdk") of `file`.
  explicit ConfigTable(std::string path = {}, std::string file = {});
  /// Parses `body` as the contents of a table (tests, built-in option sets).
  static Result<ConfigTable> parse(std::string_view body, std::string path, std::string file);

  const std::string& path() const noexcept;
  const std::string& file() const noexcept;
  SourceLoc loc() const;
  bool empty() const noexcept;
  bool has(std::string_view key) const;
  /// "driver.dpdk.eal"
  std::string key_path(std::string_view key) const;

  /// Sets `key` from the command line (replacing the file's value). Errc::usage when the text
  /// cannot be split into words (an unterminated quote).
  Status apply(const ConfigOverride& value);

  /// Throws ConfigError at the first key (in document order) not in `known`.
  void allow_only(std::initializer_list<std::string_view> known) const;
  std::optional<std::string> string(std::string_view key) const;
  std::optional<bool> boolean(std::string_view key) const;
  std::optional<int64_t> integer(std::string_view key, int64_t min, int64_t max) const;
  std::optional<double> number(std::string_view key, double min, double max) const;
  std::optional<std::vector<std::string>> string_list(std::string_view key) const;
  /// Throws ConfigError located at `key`'s value (or the flag that set it).
  [[noreturn]] void fail_at(std::string_view key, std::string message) const;
  /// The error fail_at() throws, returned: for checks made after parsing (a driver's plan check)
  /// that still point at the key.
  Error error_at(std::string_view key, std::string message) const;

 private:
  friend struct ConfigTableFactory;  // config::make_config_table (toml_reader.hpp) builds one
  struct Impl;
  std::shared_ptr<const Impl> impl_;  // shared: copies are cheap; apply() copies on write
};

/// Splits a command line into words like a shell does for plain words: blanks separate, '...'
/// and "..." quote (a devarg list such as -a "0000:03:00.0,tx_pp=500" stays one word).
Result<std::vector<std::string>> split_command_words(std::string_view text);

}  // namespace qb
