// libFuzzer target for a suite's [fabric] and [dpa] tables (issue 26): the input is appended to a
// fixed suite with a port and a flow, so the fuzzer spends its time in those tables (their keys
// are in congestion.dict). The loader must never crash, hang or leak, and what it returns must
// keep its promises: a suite that loads holds every fabric and DPA quantity within the range
// its key documents (so no later conversion to picoseconds or fixed point wraps), programs of
// the right role, parameters within their specs, and a DPA config the emulator takes; an error
// is located in the file and never quotes the reader's internal ranges.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "config_check.hpp"
#include "fuzz_check.hpp"
#include "qb/dpa/emulator.hpp"
#include "qb/suite/suite_loader.hpp"
#include "qb_dpa/programs.h"

using qb::fuzz::check;

namespace {

constexpr std::string_view kBase =
    "[port]\nrate = \"100Gbps\"\n"
    "[[flow]]\nname = \"a\"\nsize = 4096\nrate = \"saturate\"\n";

// The documented bounds (docs/suite-format.md, docs/dpa.md).
constexpr int64_t kMaxIntervalNs = 1'000'000'000'000;
constexpr int64_t kMaxHandlerCostNs = 1'000'000;
constexpr int64_t kMaxRetransmitTimeoutNs = int64_t{4096} << 31;
constexpr int64_t kMaxBufferBytes = int64_t{1} << 40;

void check_params(const qb_dpa_program& program, const std::vector<int64_t>& params) {
  check(params.size() == program.param_count);
  for (uint32_t i = 0; i < program.param_count; ++i) {
    check(params[i] >= program.params[i].min_value && params[i] <= program.params[i].max_value);
  }
}

void check_emulator_takes(const qb_dpa_program& program, const std::vector<int64_t>& params,
                          const qb::policy::DpaPlan& plan) {
  qb::dpa::EmulatorConfig config;
  config.program = &program;
  config.params = params;
  config.threads = plan.threads;
  config.handler_cost_ns = plan.handler_cost_ns;
  config.queue_events = plan.queue_events;
  config.line_rate_mbps = 100'000;
  try {
    (void)qb::dpa::check_config(config);
  } catch (const std::invalid_argument&) {
    check(false);
  }
}

void check_scenario(const qb::suite::Scenario& scenario) {
  const qb::suite::FabricSpec& fabric = scenario.fabric;
  check(fabric.hosts >= 1 && fabric.hosts <= 1024);
  check(fabric.switch_rate_bps >= 0.0 && fabric.switch_rate_bps <= qb::suite::kMaxPortRateBps);
  check(fabric.cnp_interval_ns >= 0 && fabric.cnp_interval_ns <= kMaxIntervalNs);
  check(fabric.retransmit_timeout_ns >= 1000 &&
        fabric.retransmit_timeout_ns <= kMaxRetransmitTimeoutNs);
  if (fabric.lossy) {
    check(fabric.switched);
    check(fabric.buffer_bytes >= 8192 && fabric.buffer_bytes <= kMaxBufferBytes);
  }
  if (fabric.ecn) {
    check(fabric.switched);
    check(fabric.ecn_marking.min_bytes >= 0 &&
          fabric.ecn_marking.min_bytes <= fabric.ecn_marking.max_bytes &&
          fabric.ecn_marking.max_bytes <= kMaxBufferBytes);
    check(fabric.ecn_marking.max_probability >= 0.0 && fabric.ecn_marking.max_probability <= 1.0);
    for (uint32_t ecn_class : fabric.ecn_classes) check(ecn_class <= 15);
  }
  if (!scenario.dpa.present) return;
  const qb::policy::DpaPlan& plan = scenario.dpa.plan;
  check(plan.threads >= 1 && plan.threads <= 256);
  check(plan.queue_events >= 1 && plan.queue_events <= (1u << 20));
  check(plan.handler_cost_ns >= 0 && plan.handler_cost_ns <= kMaxHandlerCostNs);
  check(plan.tx_sample_interval_ns >= 0 && plan.tx_sample_interval_ns <= kMaxIntervalNs);
  const qb_dpa_program* sender = qb_dpa_find_program(plan.program.c_str());
  check(sender != nullptr && sender->role == QB_DPA_ROLE_SENDER);
  check_params(*sender, plan.params);
  check_emulator_takes(*sender, plan.params, plan);
  if (!plan.receiver_program.empty()) {
    const qb_dpa_program* receiver = qb_dpa_find_program(plan.receiver_program.c_str());
    check(receiver != nullptr && receiver->role == QB_DPA_ROLE_RECEIVER);
    check_params(*receiver, plan.receiver_params);
    check_emulator_takes(*receiver, plan.receiver_params, plan);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(kBase);
  text.append(reinterpret_cast<const char*>(data), size);
  auto suite = qb::suite::load_suite_string(text, "fuzz.toml");
  if (suite.ok()) {
    for (const auto& scenario : suite->scenarios) check_scenario(scenario);
  } else {
    const auto& error = suite.error();
    check(error.code == qb::Errc::invalid_config);
    check(!error.message.empty());
    check(error.loc.file == "fuzz.toml");
    // The reader's own ranges (INT64_MIN / 2 .. INT64_MAX / 2, +-1e12) are no one's range (a
    // value the input wrote may be quoted; a range "a..b" of these never).
    for (const std::string_view internal : {"..4611686018427387903", "-1e+12.."}) {
      // Unless the input wrote it itself (an error quotes the value it refuses).
      check(text.find(internal) != std::string::npos ||
            error.message.find(internal) == std::string::npos);
    }
  }
  return 0;
}
