// libFuzzer target: load_suite_string() must never crash, hang or leak on any input, and what
// it returns must keep the loader's promises (located errors; loaded suites within range).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "qb/suite/suite_loader.hpp"

namespace {

void check(bool condition) {
  if (!condition) __builtin_trap();
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
      check(flow.size.smallest_bytes() >= scenario.port.wire.min_message_bytes());
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
