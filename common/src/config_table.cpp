#include "qb/common/config_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>

#include "qb/common/toml_reader.hpp"

namespace qb {

// The file's table is read where the loader parsed it (a copied toml::table loses its source
// positions, so `owner` keeps the whole parsed document alive); the command line's values live
// in `overrides`, read first, with errors that name the flag instead of a place in the file.
struct ConfigTable::Impl {
  std::shared_ptr<const void> owner;  // whatever owns *file_table
  const toml::table* file_table = nullptr;
  toml::table overrides;
  std::string path;
  std::string file;
  std::map<std::string, std::string, std::less<>> override_flags;  // key -> the flag that set it

  config::TableReader file_reader() const {
    static const toml::table kEmpty;
    return config::TableReader(file_table != nullptr ? *file_table : kEmpty, path, file);
  }

  template <class Read>
  auto read(std::string_view key, Read&& read_value) const {
    const auto flag = override_flags.find(key);
    if (flag == override_flags.end()) return read_value(file_reader());
    try {
      return read_value(config::TableReader(overrides, path, file));
    } catch (ConfigError& error) {
      error.error.code = Errc::usage;
      error.error.where = fmt::format("{} {}", flag->second, key);
      error.error.loc = {};
      throw;
    }
  }
};

struct ConfigTableFactory {
  static ConfigTable make(std::shared_ptr<const void> owner, const toml::table* table,
                          std::string path, std::string file) {
    ConfigTable out;
    auto impl = std::make_shared<ConfigTable::Impl>();
    impl->owner = std::move(owner);
    impl->file_table = table;
    impl->path = std::move(path);
    impl->file = std::move(file);
    out.impl_ = std::move(impl);
    return out;
  }
};

ConfigTable::ConfigTable(std::string path, std::string file) {
  auto impl = std::make_shared<Impl>();
  impl->path = std::move(path);
  impl->file = std::move(file);
  impl_ = std::move(impl);
}

Result<ConfigTable> ConfigTable::parse(std::string_view body, std::string path, std::string file) {
  try {
    auto document = std::make_shared<const toml::table>(toml::parse(body, std::string_view(file)));
    const toml::table* table = document.get();
    return ConfigTableFactory::make(std::move(document), table, std::move(path), std::move(file));
  } catch (const toml::parse_error& error) {
    return make_error(Errc::invalid_config, std::string(error.description()), path,
                      config::loc_of(error.source(), file));
  }
}

const std::string& ConfigTable::path() const noexcept {
  return impl_->path;
}
const std::string& ConfigTable::file() const noexcept {
  return impl_->file;
}
SourceLoc ConfigTable::loc() const {
  if (impl_->file_table == nullptr) return SourceLoc{impl_->file, 0, 0};
  return impl_->file_reader().loc();
}
bool ConfigTable::empty() const noexcept {
  return (impl_->file_table == nullptr || impl_->file_table->empty()) && impl_->overrides.empty();
}
bool ConfigTable::has(std::string_view key) const {
  return impl_->override_flags.contains(key) ||
         (impl_->file_table != nullptr && impl_->file_table->contains(key));
}
std::string ConfigTable::key_path(std::string_view key) const {
  return config::join_path(impl_->path, key);
}

Status ConfigTable::apply(const ConfigOverride& value) {
  auto impl = std::make_shared<Impl>(*impl_);
  if (value.words) {
    auto words = split_command_words(value.text);
    if (!words) return make_error(Errc::usage, words.error().message, value.flag);
    toml::array array;
    for (auto& word : *words) array.push_back(std::move(word));
    impl->overrides.insert_or_assign(value.key, std::move(array));
  } else {
    // `KEY=VALUE` as TOML gives booleans, numbers and arrays their types; anything that is not
    // a TOML value (a bare device name) is the string it reads as.
    bool parsed_as_toml = false;
    try {
      toml::table parsed = toml::parse("value = " + value.text);
      if (auto* node = parsed.get("value"); node != nullptr && parsed.size() == 1) {
        impl->overrides.insert_or_assign(value.key, *node);
        parsed_as_toml = true;
      }
    } catch (const toml::parse_error&) {
    }
    if (!parsed_as_toml) impl->overrides.insert_or_assign(value.key, value.text);
  }
  impl->override_flags.insert_or_assign(value.key, value.flag);
  impl_ = std::move(impl);
  return {};
}

void ConfigTable::allow_only(std::initializer_list<std::string_view> known) const {
  for (const auto& [key, flag] : impl_->override_flags) {
    if (std::find(known.begin(), known.end(), std::string_view(key)) != known.end()) continue;
    const std::string_view suggestion = config::closest_key(key, known);
    throw ConfigError{make_error(
        Errc::usage,
        suggestion.empty()
            ? fmt::format("unknown key '{}' for {}", key, impl_->path)
            : fmt::format("unknown key '{}' for {}; did you mean '{}'?", key, impl_->path,
                          suggestion),
        fmt::format("{} {}", flag, key))};
  }
  impl_->file_reader().allow_only(known);
}

std::optional<std::string> ConfigTable::string(std::string_view key) const {
  return impl_->read(key, [&](const config::TableReader& r) { return r.string(key); });
}
std::optional<bool> ConfigTable::boolean(std::string_view key) const {
  return impl_->read(key, [&](const config::TableReader& r) { return r.boolean(key); });
}
std::optional<int64_t> ConfigTable::integer(std::string_view key, int64_t min, int64_t max) const {
  return impl_->read(key, [&](const config::TableReader& r) { return r.integer(key, min, max); });
}
std::optional<double> ConfigTable::number(std::string_view key, double min, double max) const {
  return impl_->read(key, [&](const config::TableReader& r) { return r.number(key, min, max); });
}
std::optional<std::vector<std::string>> ConfigTable::string_list(std::string_view key) const {
  return impl_->read(key, [&](const config::TableReader& r) { return r.string_list(key); });
}
void ConfigTable::fail_at(std::string_view key, std::string message) const {
  impl_->read(key, [&](const config::TableReader& r) -> int { r.fail_at(key, message); });
  std::abort();  // unreachable: read() rethrows
}

Error ConfigTable::error_at(std::string_view key, std::string message) const {
  try {
    fail_at(key, std::move(message));
  } catch (ConfigError& error) {
    return std::move(error.error);
  }
}

Result<std::vector<std::string>> split_command_words(std::string_view text) {
  std::vector<std::string> out;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (const char c : text) {
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) out.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quote != 0) return make_error(Errc::usage, "unterminated quote");
  if (in_word) out.push_back(std::move(word));
  return out;
}

namespace config {

ConfigTable make_config_table(std::shared_ptr<const toml::table> document,
                              const toml::table& table, std::string path, std::string file) {
  return ConfigTableFactory::make(std::move(document), &table, std::move(path), std::move(file));
}

}  // namespace config

}  // namespace qb
