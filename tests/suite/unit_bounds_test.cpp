// Every duration, size and rate key of [suite], [port], [fabric], [fabric.ecn] and [dpa] swept to
// its largest accepted value (issue 26, item 3): that value loads and lands in the plan as
// written (no conversion wrapped or saturated on the way), and the next one up is refused at
// the key with the key's own range. tests/integration/unit_bounds_run_test.cpp runs the keys the
// simulator converts at these values.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "qb/suite/suite_loader.hpp"
#include "qb_dpa/programs.h"

namespace qb::suite {
namespace {

constexpr std::string_view kFlow = "[[flow]]\nname = \"f\"\nsize = 4096\nrate = \"saturate\"\n";

struct KeyBound {
  std::string key;     // the path an error names
  std::string before;  // the suite up to the key's table (which it ends with)
  std::string name;    // the key in its table
  std::string largest;
  std::string above;
  std::string after;                            // the rest of its table
  std::function<double(const Scenario&)> read;  // what the plan holds
  double expected;                              // ... for `largest`
};

std::vector<KeyBound> bounds() {
  const std::string lossy = "[fabric]\nhosts = 2\nmode = \"lossy\"\nbuffer = 100000\n";
  const std::string dpa = "[dpa]\nprogram = \"dcqcn\"\n";
  return {
      {"suite.warmup", "[suite]\n", "warmup", "\"2562h\"", "\"2563h\"", "",
       [](const Scenario& s) { return static_cast<double>(s.warmup_ns); }, 2562 * 3600e9},
      {"suite.duration", "[suite]\n", "duration", "\"2562h\"", "\"2563h\"", "",
       [](const Scenario& s) { return static_cast<double>(s.duration_ns); }, 2562 * 3600e9},
      {"port.rate", "[port]\n", "rate", "\"4294967295Mbps\"", "\"4294967296Mbps\"", "",
       [](const Scenario& s) { return s.port.rate_bps; }, 4294967295e6},
      {"port.propagation_delay", "[port]\n", "propagation_delay", "\"1ms\"", "\"1000001ns\"", "",
       [](const Scenario& s) { return static_cast<double>(s.port.propagation_delay_ns); }, 1e6},
      {"fabric.switch_rate", "[fabric]\nhosts = 2\n", "switch_rate", "\"4294967295Mbps\"",
       "\"4294967296Mbps\"", "", [](const Scenario& s) { return s.fabric.switch_rate_bps; },
       4294967295e6},
      {"fabric.cnp_interval", "[fabric]\nhosts = 2\n", "cnp_interval", "\"1000s\"",
       "\"1000000000001ns\"", "",
       [](const Scenario& s) { return static_cast<double>(s.fabric.cnp_interval_ns); }, 1e12},
      {"fabric.buffer", "[fabric]\nhosts = 2\nmode = \"lossy\"\n", "buffer", "\"1024GiB\"",
       "1099511627777", "",
       [](const Scenario& s) { return static_cast<double>(s.fabric.buffer_bytes); },
       1099511627776.0},
      {"fabric.retransmit_timeout", lossy, "retransmit_timeout", "\"8796093022208ns\"",
       "\"8796093022209ns\"", "",
       [](const Scenario& s) { return static_cast<double>(s.fabric.retransmit_timeout_ns); },
       8796093022208.0},
      {"fabric.ecn.min_threshold", "[fabric]\nhosts = 2\n[fabric.ecn]\n", "min_threshold",
       "\"1024GiB\"", "\"1099511627777B\"", "",
       [](const Scenario& s) { return static_cast<double>(s.fabric.ecn_marking.min_bytes); },
       1099511627776.0},
      {"fabric.ecn.max_threshold", "[fabric]\nhosts = 2\n[fabric.ecn]\nmin_threshold = 0\n",
       "max_threshold", "1099511627776", "\"1100GiB\"", "",
       [](const Scenario& s) { return static_cast<double>(s.fabric.ecn_marking.max_bytes); },
       1099511627776.0},
      {"dpa.handler_cost", dpa, "handler_cost", "\"1ms\"", "\"1.000001ms\"", "",
       [](const Scenario& s) { return static_cast<double>(s.dpa.plan.handler_cost_ns); }, 1e6},
      {"dpa.tx_sample_interval", dpa, "tx_sample_interval", "\"1000s\"", "\"1001s\"", "",
       [](const Scenario& s) { return static_cast<double>(s.dpa.plan.tx_sample_interval_ns); },
       1e12},
      {"flow[0].start", "[[flow]]\nname = \"g\"\nsize = 4096\nrate = \"saturate\"\n", "start",
       "\"1000s\"", "\"1000000000001ns\"", "",
       [](const Scenario& s) { return static_cast<double>(s.flows[0].start_ns); }, 1e12},
      {"flow[0].size", "[[flow]]\nname = \"g\"\nrate = \"saturate\"\n", "size", "\"2GiB\"",
       "2147483649", "",
       [](const Scenario& s) { return static_cast<double>(s.flows[0].size.largest_bytes()); },
       2147483648.0},
      // Parameters: one of each kind with a unit, at its spec's maximum (every parameter of
      // every program: EveryDpaParameterTakesItsMaximumAndRefusesTheNextUnit below).
      {"dpa.params.rpg_time_reset", dpa + "[dpa.params]\n", "rpg_time_reset", "\"1s\"",
       "\"1000000001ns\"", "",
       [](const Scenario& s) { return static_cast<double>(s.dpa.plan.params[0]); }, 1e9},
      {"dpa.params.rpg_byte_reset", dpa + "[dpa.params]\n", "rpg_byte_reset", "2147483647",
       "\"2GiB\"", "", [](const Scenario& s) { return static_cast<double>(s.dpa.plan.params[1]); },
       2147483647.0},
      {"dpa.params.rpg_ai_rate", dpa + "[dpa.params]\n", "rpg_ai_rate", "\"10Tbps\"",
       "\"10000001Mbps\"", "",
       [](const Scenario& s) { return static_cast<double>(s.dpa.plan.params[3]); }, 1e7},
      {"dpa.params.dce_tcp_rtt", dpa + "[dpa.params]\n", "dce_tcp_rtt", "\"131071us\"",
       "\"131072us\"", "",
       [](const Scenario& s) { return static_cast<double>(s.dpa.plan.params[10]); }, 131071e3},
  };
}

TEST(UnitBounds, EveryKeyTakesItsLargestValueAsWritten) {
  for (const KeyBound& bound : bounds()) {
    SCOPED_TRACE(bound.key);
    const std::string text =
        bound.before + bound.name + " = " + bound.largest + "\n" + bound.after + std::string(kFlow);
    auto suite = load_suite_string(text, "bounds.toml");
    ASSERT_TRUE(suite) << suite.error().to_string();
    EXPECT_EQ(bound.read(suite->scenarios.front()), bound.expected);
  }
}

TEST(UnitBounds, TheNextValueUpIsRefusedAtTheKey) {
  for (const KeyBound& bound : bounds()) {
    SCOPED_TRACE(bound.key);
    const std::string text =
        bound.before + bound.name + " = " + bound.above + "\n" + bound.after + std::string(kFlow);
    auto suite = load_suite_string(text, "bounds.toml");
    ASSERT_FALSE(suite) << "loaded";
    EXPECT_EQ(suite.error().code, Errc::invalid_config);
    EXPECT_EQ(suite.error().where, bound.key) << suite.error().to_string();
    // The key's own range, or the longest duration there is: never a wrapped or internal one.
    const std::string& message = suite.error().message;
    EXPECT_TRUE(message.find(" must ") != std::string::npos ||
                message.find(" is outside ") != std::string::npos ||
                message.find(" is above ") != std::string::npos ||
                message.find("longer than 2562 h") != std::string::npos)
        << message;
  }
}

// Every parameter of every shipped program, written in its own unit at its spec's maximum,
// lands in the plan as that maximum; one unit more is refused with the parameter's own range.
TEST(UnitBounds, EveryDpaParameterTakesItsMaximumAndRefusesTheNextUnit) {
  for (uint32_t p = 0; p < qb_dpa_program_count(); ++p) {
    const qb_dpa_program& program = *qb_dpa_program_at(p);
    const bool receiver = program.role == QB_DPA_ROLE_RECEIVER;
    const std::string head =
        receiver ? "[dpa]\nprogram = \"pcc_rtt\"\nreceiver_program = \"" +
                       std::string(program.name) + "\"\n[dpa.receiver_params]\n"
                 : "[dpa]\nprogram = \"" + std::string(program.name) + "\"\n[dpa.params]\n";
    for (uint32_t i = 0; i < program.param_count; ++i) {
      const qb_dpa_param_spec& spec = program.params[i];
      SCOPED_TRACE(std::string(program.name) + "." + spec.name);
      std::string largest;
      std::string above;
      switch (spec.kind) {
        case QB_DPA_PARAM_FRACTION:  // written as the fraction, read back in 2^-20 steps
          largest = fmt::format("{:.17g}", static_cast<double>(spec.max_value) / (1 << 20));
          above = fmt::format("{:.17g}", static_cast<double>(spec.max_value + 1) / (1 << 20));
          break;
        case QB_DPA_PARAM_TIME_NS:
          largest = fmt::format("\"{}ns\"", spec.max_value);
          above = fmt::format("\"{}ns\"", spec.max_value + 1);
          break;
        case QB_DPA_PARAM_BYTES:
          largest = fmt::format("\"{}B\"", spec.max_value);
          above = fmt::format("\"{}B\"", spec.max_value + 1);
          break;
        case QB_DPA_PARAM_RATE_MBPS:
          largest = fmt::format("\"{}Mbps\"", spec.max_value);
          above = fmt::format("\"{}Mbps\"", spec.max_value + 1);
          break;
        default:
          largest = fmt::format("{}", spec.max_value);
          above = fmt::format("{}", spec.max_value + 1);
          break;
      }
      const std::string key = std::string(spec.name) + " = ";
      auto suite = load_suite_string(head + key + largest + "\n" + std::string(kFlow), "p.toml");
      ASSERT_TRUE(suite) << suite.error().to_string();
      const policy::DpaPlan& plan = suite->scenarios.front().dpa.plan;
      EXPECT_EQ((receiver ? plan.receiver_params : plan.params).at(i), spec.max_value);
      auto refused = load_suite_string(head + key + above + "\n" + std::string(kFlow), "p.toml");
      ASSERT_FALSE(refused) << "loaded " << above;
      EXPECT_NE(refused.error().message.find(std::string(spec.name) + " must be in "),
                std::string::npos)
          << refused.error().message;
    }
  }
}

}  // namespace
}  // namespace qb::suite
