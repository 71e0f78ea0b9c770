#include "qb/drivers/registry.hpp"

#include <fmt/format.h>

#include "driver_list.hpp"

namespace qb::drv {
namespace {

std::string known_names() {
  std::string known;
  for (const DriverEntry& entry : driver_registry()) {
    known += known.empty() ? entry.name : ", " + entry.name;
  }
  return known;
}

Result<std::shared_ptr<const DriverOptions>> parse_options(const DriverEntry& entry,
                                                           const ConfigTable& table) {
  try {
    return std::shared_ptr<const DriverOptions>(entry.parse_options(table));
  } catch (ConfigError& error) {
    return std::move(error.error);
  }
}

}  // namespace

const std::vector<DriverEntry>& driver_registry() {
  static const std::vector<DriverEntry> registry = detail::listed_drivers();
  return registry;
}

const DriverEntry* find_driver(std::string_view name) {
  for (const DriverEntry& entry : driver_registry()) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

Result<std::unique_ptr<Driver>> DriverFactory::create() const {
  auto backend = entry_->create(*options_);
  if (!backend) return std::move(backend).error();
  return std::make_unique<Driver>(entry_->name, std::move(*backend));
}

Result<double> DriverFactory::port_rate_bps() const {
  if (!entry_->port_rate_bps) {
    return make_error(Errc::invalid_config,
                      fmt::format("rate = \"auto\" takes the speed of the driver's port, and the "
                                  "{} driver has none to read: give a rate (\"100Gbps\"), or "
                                  "run on a driver that reads its port (verbs)",
                                  entry_->name),
                      "port.rate");
  }
  return entry_->port_rate_bps(*options_);
}

Result<DriverFactory> configure_driver(std::string_view name, ConfigTable table,
                                       const std::vector<ConfigOverride>& overrides) {
  const DriverEntry* entry = find_driver(name);
  if (entry == nullptr) {
    return make_error(Errc::usage,
                      fmt::format("unknown driver '{}' (known drivers: {})", name, known_names()));
  }
  if (!entry->available || !entry->create || !entry->parse_options) {
    return make_error(Errc::unavailable, fmt::format("driver '{}' is unavailable: {}", entry->name,
                                                     entry->unavailable_reason));
  }
  for (const ConfigOverride& value : overrides) {
    if (Status applied = table.apply(value); !applied) return std::move(applied).error();
  }
  auto options = parse_options(*entry, table);
  if (!options) return std::move(options).error();
  return DriverFactory(*entry, std::move(*options));
}

Status check_driver_tables(const std::vector<ConfigTable>& tables) {
  for (const ConfigTable& table : tables) {
    const std::string_view name = std::string_view(table.path()).substr(table.path().find('.') + 1);
    const DriverEntry* entry = find_driver(name);
    if (entry == nullptr) {
      return make_error(Errc::invalid_config,
                        fmt::format("unknown driver '{}' (known drivers: {})", name, known_names()),
                        table.path(), table.loc());
    }
    if (!entry->parse_options) continue;  // not built here: its keys cannot be checked
    if (auto options = parse_options(*entry, table); !options) return std::move(options).error();
  }
  return {};
}

Result<std::unique_ptr<Driver>> create_driver(std::string_view name, std::string_view toml_body) {
  auto table = ConfigTable::parse(toml_body, fmt::format("driver.{}", name), "driver options");
  if (!table) return std::move(table).error();
  auto factory = configure_driver(name, std::move(*table));
  if (!factory) return std::move(factory).error();
  return factory->create();
}

Result<ConfigOverride> parse_driver_option(std::string_view text) {
  const size_t equals = text.find('=');
  if (equals == std::string_view::npos || equals == 0) {
    return make_error(Errc::usage, fmt::format("expected KEY=VALUE, got '{}'", text),
                      "--driver-option");
  }
  return ConfigOverride{std::string(text.substr(0, equals)), std::string(text.substr(equals + 1)),
                        "--driver-option", false};
}

void release_driver_processes() {
  for (const DriverEntry& entry : driver_registry()) {
    if (entry.release_process) entry.release_process();
  }
}

}  // namespace qb::drv
