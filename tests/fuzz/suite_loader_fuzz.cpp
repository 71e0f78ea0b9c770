// libFuzzer target: load_suite_string() must never crash, hang or leak on any input, and what
// it returns must keep the loader's promises (located errors; loaded suites within range).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.hpp"
#include "qb/suite/suite_loader.hpp"

using qb::fuzz::check;

namespace {

// The smallest size a flow can draw (a table's zero-weight entries never are); 0: none.
uint32_t smallest_bytes(const qb::gen::SizeSpec& size) {
  using Kind = qb::gen::SizeSpec::Kind;
  if (size.kind == Kind::fixed) return size.fixed_bytes;
  if (size.kind == Kind::uniform) return std::min(size.min_bytes, size.max_bytes);
  uint32_t smallest = UINT32_MAX;
  for (const auto& entry : size.table) {
    if (entry.weight != 0) smallest = std::min(smallest, entry.size_bytes);
  }
  return smallest;
}

void check_suite(const qb::suite::Suite& suite) {
  check(!suite.scenarios.empty());
  check(suite.config_hash.size() == 16);
  for (const auto& scenario : suite.scenarios) {
    check(!scenario.name.empty());
    check(scenario.repetitions >= 1 && scenario.repetitions <= 1000);
    check(scenario.duration_ns > 0 && scenario.warmup_ns >= 0);
    check(scenario.bin_ns > 0 && scenario.bin_ns <= scenario.duration_ns);
    check(scenario.port.rate_bps > 0);
    for (const auto& element : scenario.sched)
      check(!element.name.empty() && !element.where.empty());
    for (const auto& flow : scenario.flows) {
      check(!flow.name.empty() && flow.count >= 1 && flow.count <= 65536);
      check(flow.size.validate().ok());
      check(smallest_bytes(flow.size) >= scenario.port.wire.min_message_bytes());
      check(flow.size.largest_bytes() <= scenario.port.wire.max_message_bytes());
      check(flow.arrival.saturating() || flow.arrival.rate_bps > 0 || flow.arrival.rate_pps > 0);
    }
    for (const auto& gate : scenario.gates.latency) check(!gate.flow.empty());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto suite = qb::suite::load_suite_string(text, "fuzz.toml");
  if (suite.ok()) {
    check_suite(*suite);
  } else {
    const auto& error = suite.error();
    check(error.code == qb::Errc::invalid_config);
    check(!error.message.empty());
    check(error.loc.file == "fuzz.toml");
    check(!error.to_string().empty());
  }
  return 0;
}
