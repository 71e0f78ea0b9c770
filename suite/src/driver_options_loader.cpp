#include "driver_options_loader.hpp"

namespace qb::suite::detail {
namespace {

std::vector<std::string> string_list(const TableReader& reader, std::string_view key) {
  const auto* array = reader.find(key)->as_array();
  if (array == nullptr) reader.fail_at(key, "expected an array of strings");
  std::vector<std::string> out;
  for (const auto& item : *array) {
    const auto* text = item.as_string();
    if (text == nullptr) reader.fail_at(key, "expected an array of strings");
    out.push_back(text->get());
  }
  return out;
}

void read_dpdk(const TableReader& reader, DpdkOptions& dpdk) {
  reader.allow_only({"eal", "tx_port", "rx_port", "software_shaper", "hw_pacing"});
  dpdk.loc = reader.loc();
  if (reader.has("eal")) dpdk.eal = string_list(reader, "eal");
  dpdk.tx_port = reader.string("tx_port").value_or("");
  dpdk.rx_port = reader.string("rx_port").value_or("");
  dpdk.software_shaper = reader.boolean("software_shaper");
  dpdk.hw_pacing = reader.boolean("hw_pacing");
}

}  // namespace

void read_driver_options(const TableReader& driver, DriverOptions& options) {
  if (const auto* table = driver.subtable("dpdk")) {
    read_dpdk(TableReader(*table, driver.key_path("dpdk"), driver.file()), options.dpdk);
  }
}

}  // namespace qb::suite::detail
