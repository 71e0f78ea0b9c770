#include "qb/suite/suite.hpp"

namespace qb::suite {

ConfigTable driver_table(const Suite& suite, std::string_view driver) {
  const std::string path = "driver." + std::string(driver);
  for (const ConfigTable& table : suite.driver_tables) {
    if (table.path() == path) return table;
  }
  return ConfigTable(path, suite.file);
}

}  // namespace qb::suite
