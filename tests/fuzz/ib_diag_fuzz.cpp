// libFuzzer target: parse_dump_lfts() and parse_port_tables() (fabric/ib_diag.hpp) must never
// crash, hang or leak, and keep their promises: errors are invalid_config located in the file
// (line >= 1, column >= 1); what they accept has a switch table per block / an SL2VL row of 16
// VLs per port and VLArb entries with VLs and weights in range, each value with its location;
// check_port_vls against any operational VLs (the second byte) errs only at a value it read. The
// first byte picks the parser.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "qb/fabric/ib_diag.hpp"

namespace {

void check(bool condition) {
  if (!condition) __builtin_trap();
}

template <class R>
bool located_error(const R& result, const char* file) {
  if (result.ok()) return false;
  const auto& error = result.error();
  check(error.code == qb::Errc::invalid_config && !error.message.empty());
  check(error.loc.file == file && error.loc.line >= 1 && error.loc.column >= 1);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if ((data[0] & 1) == 0) {
    auto lfts = qb::fabric::parse_dump_lfts(text, "lfts.txt");
    if (located_error(lfts, "lfts.txt")) return 0;
    check(!lfts->empty());
    for (const auto& lft : *lfts) {
      for (const auto& entry : lft.entries) check(entry.port <= 255 && entry.lid <= 0xffff);
    }
    return 0;
  }
  const uint8_t max_data_vl = size > 1 ? static_cast<uint8_t>(data[1] % 15) : 7;
  auto ports = qb::fabric::parse_port_tables(text, "port-tables.txt");
  if (located_error(ports, "port-tables.txt")) return 0;
  check(!ports->empty());
  for (const auto& port : *ports) {
    check(!port.node.empty() && !port.sl2vl_rows.empty() && port.port <= 254);
    for (const auto& [in, row] : port.sl2vl_rows) {
      for (const uint8_t vl : row) check(vl <= 15);
    }
    for (const auto* table : {&port.vlarb_high, &port.vlarb_low}) {
      for (const auto& entry : *table) check(entry.vl <= 15);
    }
    check(port.sl2vl_locs.size() == port.sl2vl_rows.size());
    check(port.vlarb_high_locs.size() == port.vlarb_high.size());
    check(port.vlarb_low_locs.size() == port.vlarb_low.size());
    (void)qb::fabric::sl2vl_rows_problem(port);
    const auto vls = qb::fabric::check_port_vls(port, max_data_vl);
    if (located_error(vls, "port-tables.txt")) check(vls.error().loc.line > port.loc.line);
  }
  return 0;
}
