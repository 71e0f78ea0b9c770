// The congestion keys of a suite (suite/src/congestion_loader.cpp, suite_loader.cpp): [dpa] with
// its program parameters converted to the program's units, [fabric.ecn] / cnp_interval / mode,
// the ranks of a multi-host job ([[fabric.host]], [fabric.receiver]),
// the flow keys start / start_step, and what compile_scenario() makes of them (the congestion
// plan, FlowPlan::start_ns, the oracle per set of active flows). Errors at their exact key path
// and line:column.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "qb/suite/compile.hpp"
#include "qb/suite/suite_loader.hpp"

namespace qb::suite {
namespace {

Result<Suite> load(std::string_view text) {
  return load_suite_string(text, "cc.toml");
}

struct Expected {
  std::string_view where;
  uint32_t line;
  uint32_t column;
  std::string_view message_part;
};

void expect_load_error(std::string_view text, const Expected& expected) {
  SCOPED_TRACE(std::string(text));
  auto suite = load(text);
  ASSERT_FALSE(suite) << "loaded";
  const Error& error = suite.error();
  EXPECT_EQ(error.code, Errc::invalid_config);
  EXPECT_EQ(error.where, expected.where) << error.to_string();
  EXPECT_EQ(error.loc.file, "cc.toml") << error.to_string();
  EXPECT_EQ(error.loc.line, expected.line) << error.to_string();
  EXPECT_EQ(error.loc.column, expected.column) << error.to_string();
  EXPECT_NE(error.message.find(expected.message_part), std::string::npos) << error.to_string();
}

const Scenario& only_scenario(const Result<Suite>& suite) {
  return suite->scenarios.front();
}

struct Compiled {
  Suite suite;
  CompiledScenario scenario;
};

std::unique_ptr<Compiled> compile(std::string_view text) {
  auto suite = load(text);
  EXPECT_TRUE(suite) << suite.error().to_string();
  if (!suite) return nullptr;
  auto out = std::make_unique<Compiled>();
  out->suite = std::move(*suite);
  std::vector<Warning> warnings;
  auto compiled = compile_scenario(out->suite.scenarios.front(), warnings);
  EXPECT_TRUE(compiled) << compiled.error().to_string();
  if (!compiled) return nullptr;
  out->scenario = std::move(*compiled);
  return out;
}

constexpr std::string_view kPort =
    "[port]\nrate = \"100Gbps\"\ntransport = \"rocev2\"\nmtu = 4096\n";
// Flows that join during the warm-up fold into the epoch the measurement opens with: the epoch
// tests measure from time zero.
constexpr std::string_view kNoWarmup = "[suite]\nwarmup = \"0s\"\n";
constexpr std::string_view kFlow = "[[flow]]\nname = \"f\"\nsize = 4096\nrate = \"saturate\"\n";

// 20-bit fixed point, as the programs read fractions (QB_DPA_FRACTION_ONE is 2^20).
constexpr int64_t fixed(double fraction) {
  return static_cast<int64_t>(fraction * static_cast<double>(int64_t{1} << 20) + 0.5);
}

// ---- [dpa]: good ------------------------------------------------------------------------------

TEST(DpaSection, AbsentMeansNoProgram) {
  auto suite = load(kFlow);
  ASSERT_TRUE(suite) << suite.error().to_string();
  EXPECT_FALSE(only_scenario(suite).dpa.present);
  EXPECT_TRUE(only_scenario(suite).dpa.plan.program.empty());
}

TEST(DpaSection, PccRttDefaultsFilledAndWrittenValuesConverted) {
  auto suite = load(
      "[dpa]\n"
      "program = \"pcc_rtt\"\n"
      "threads = 4\n"
      "handler_cost = \"250ns\"\n"
      "queue_events = 8\n"
      "tx_sample_interval = \"10us\"\n"
      "[dpa.params]\n"
      "update_factor = 0.25\n"
      "base_rtt = \"20us\"\n"
      "min_rate = 0.5\n" +
      std::string(kFlow));
  ASSERT_TRUE(suite) << suite.error().to_string();
  const DpaSpec& dpa = only_scenario(suite).dpa;
  EXPECT_TRUE(dpa.present);
  EXPECT_EQ(dpa.where, "dpa");
  EXPECT_EQ(dpa.loc.line, 1u);
  const policy::DpaPlan& plan = dpa.plan;
  EXPECT_EQ(plan.program, "pcc_rtt");
  // In the program's order: update_factor, additive_increase, base_rtt, max_delay, min_rate,
  // high_utilisation, probe_timeout.
  const std::vector<int64_t> params{262144, 52429, 20000, 150000, 524288, 891290, 300000};
  EXPECT_EQ(plan.params, params);
  EXPECT_EQ(fixed(0.25), 262144);
  EXPECT_EQ(plan.threads, 4u);
  EXPECT_EQ(plan.handler_cost_ns, 250);
  EXPECT_EQ(plan.queue_events, 8u);
  EXPECT_EQ(plan.tx_sample_interval_ns, 10000);
  EXPECT_TRUE(plan.receiver_program.empty());
  EXPECT_TRUE(plan.receiver_params.empty());
}

TEST(DpaSection, RuntimeDefaultsWhenOnlyTheProgramIsWritten) {
  auto suite = load("[dpa]\nprogram = \"pcc_rtt\"\n" + std::string(kFlow));
  ASSERT_TRUE(suite) << suite.error().to_string();
  const policy::DpaPlan& plan = only_scenario(suite).dpa.plan;
  // pcc_rtt's defaults (dpa/programs/pcc_rtt.c): 0.1, 0.05, 13us, 150us, 2^-14, 0.85, 300us.
  const std::vector<int64_t> defaults{fixed(0.1), fixed(0.05), 13000, 150000,
                                      64,         fixed(0.85), 300000};
  EXPECT_EQ(plan.params, defaults);
  EXPECT_EQ(plan.params[0], 104858);  // update_factor 0.1
  EXPECT_EQ(plan.threads, 1u);
  EXPECT_EQ(plan.handler_cost_ns, 0);
  EXPECT_EQ(plan.queue_events, 64u);
  EXPECT_EQ(plan.tx_sample_interval_ns, 0);
}

TEST(DpaSection, DcqcnRateTimeAndByteParametersInTheProgramsUnits) {
  auto suite = load(
      "[dpa]\n"
      "program = \"dcqcn\"\n"
      "[dpa.params]\n"
      "rpg_time_reset = \"900us\"\n"
      "rpg_byte_reset = \"64KiB\"\n"
      "rpg_ai_rate = \"40Mbps\"\n"
      "rpg_hai_rate = 200\n"
      "rpg_min_rate = \"1Gbps\"\n"
      "dce_tcp_rtt = \"2us\"\n" +
      std::string(kFlow));
  ASSERT_TRUE(suite) << suite.error().to_string();
  const policy::DpaPlan& plan = only_scenario(suite).dpa.plan;
  EXPECT_EQ(plan.program, "dcqcn");
  ASSERT_EQ(plan.params.size(), 15u);
  EXPECT_EQ(plan.params[0], 900000);  // rpg_time_reset, ns
  EXPECT_EQ(plan.params[1], 65536);   // rpg_byte_reset, bytes
  EXPECT_EQ(plan.params[2], 1);       // rpg_threshold: default
  EXPECT_EQ(plan.params[3], 40);      // rpg_ai_rate, Mbit/s
  EXPECT_EQ(plan.params[4], 200);     // rpg_hai_rate: an integer is already Mbit/s
  EXPECT_EQ(plan.params[5], 11);      // rpg_gd: default
  EXPECT_EQ(plan.params[7], 1000);    // rpg_min_rate "1Gbps"
  EXPECT_EQ(plan.params[10], 2000);   // dce_tcp_rtt
  EXPECT_EQ(plan.params[14], 4000);   // rate_reduce_monitor_period: default
}

TEST(DpaSection, ReceiverProgramAndItsParameters) {
  auto suite =
      load("[dpa]\nprogram = \"pcc_rtt\"\nreceiver_program = \"reflector\"\n" + std::string(kFlow));
  ASSERT_TRUE(suite) << suite.error().to_string();
  const policy::DpaPlan& plan = only_scenario(suite).dpa.plan;
  EXPECT_EQ(plan.receiver_program, "reflector");
  EXPECT_TRUE(plan.receiver_params.empty());  // the reflector has none

  // The receiver's parameters are its program's own (the reflector has none); a sender
  // program there is refused (DpaProgramRoles below).
  expect_load_error(
      "[dpa]\nprogram = \"pcc_rtt\"\nreceiver_program = \"reflector\"\n"
      "[dpa.receiver_params]\nrpg_gd = 12\n",
      {"dpa.receiver_params.rpg_gd", 5, 10,
       "program 'reflector' has no parameter 'rpg_gd' (its parameters: none)"});
}

TEST(DpaSection, AScenarioTakesItsOwnDpaOrTheTopLevelOne) {
  auto suite = load("[dpa]\nprogram = \"pcc_rtt\"\n" + std::string(kFlow) +
                    "[[scenario]]\nname = \"top\"\n"
                    "[[scenario]]\nname = \"own\"\n[scenario.dpa]\nprogram = \"dcqcn\"\n");
  ASSERT_TRUE(suite) << suite.error().to_string();
  ASSERT_EQ(suite->scenarios.size(), 2u);
  EXPECT_EQ(suite->scenarios[0].dpa.plan.program, "pcc_rtt");
  EXPECT_EQ(suite->scenarios[1].dpa.plan.program, "dcqcn");
  EXPECT_EQ(suite->scenarios[1].dpa.where, "scenario[1].dpa");
}

// ---- [dpa]: errors ---------------------------------------------------------------------------

TEST(DpaSectionErrors, UnknownProgramListsTheShippedOnes) {
  expect_load_error(
      "[dpa]\nprogram = \"timely\"\n",
      {"dpa.program", 2, 11, "unknown DPA program 'timely' (shipped: pcc_rtt, dcqcn, reflector)"});
  expect_load_error("[dpa]\nprogram = \"pcc_rtt\"\nreceiver_program = \"echo\"\n",
                    {"dpa.receiver_program", 3, 20,
                     "unknown DPA program 'echo' (shipped: pcc_rtt, dcqcn, reflector)"});
}

TEST(DpaSectionErrors, MissingProgram) {
  expect_load_error("[dpa]\nthreads = 2\n",
                    {"dpa.program", 1, 1, "missing required key 'program'"});
}

TEST(DpaSectionErrors, UnknownKey) {
  expect_load_error("[dpa]\nprogram = \"pcc_rtt\"\nthread = 2\n",
                    {"dpa.thread", 3, 1, "did you mean 'threads'?"});
}

TEST(DpaSectionErrors, UnknownParameterListsTheProgramsParameters) {
  expect_load_error(
      "[dpa]\nprogram = \"pcc_rtt\"\n[dpa.params]\nbase_rtt = \"10us\"\ngain = 0.5\n",
      {"dpa.params.gain", 5, 8,
       "program 'pcc_rtt' has no parameter 'gain' (its parameters: update_factor, "
       "additive_increase, base_rtt, max_delay, min_rate, high_utilisation, probe_timeout)"});
  expect_load_error(
      "[dpa]\nprogram = \"pcc_rtt\"\nreceiver_program = \"reflector\"\n"
      "[dpa.receiver_params]\nrate = 1\n",
      {"dpa.receiver_params.rate", 5, 8,
       "program 'reflector' has no parameter 'rate' (its parameters: none)"});
}

TEST(DpaSectionErrors, ParameterOutOfItsRange) {
  // A fraction: 0 < update_factor <= 1.
  expect_load_error("[dpa]\nprogram = \"pcc_rtt\"\n[dpa.params]\nupdate_factor = 1.5\n",
                    {"dpa.params.update_factor", 4, 17, "update_factor must be in "});
  expect_load_error("[dpa]\nprogram = \"pcc_rtt\"\n[dpa.params]\nupdate_factor = 0\n",
                    {"dpa.params.update_factor", 4, 17, "update_factor must be in "});
  // A time: probe_timeout >= 1us.
  expect_load_error("[dpa]\nprogram = \"pcc_rtt\"\n[dpa.params]\nprobe_timeout = \"500ns\"\n",
                    {"dpa.params.probe_timeout", 4, 17, "probe_timeout must be in "});
  // An integer: rpg_gd in 10..30, the range as written.
  expect_load_error("[dpa]\nprogram = \"dcqcn\"\n[dpa.params]\nrpg_gd = 31\n",
                    {"dpa.params.rpg_gd", 4, 10, "rpg_gd must be in 10..30"});
  // A rate beyond 10 Tbit/s.
  expect_load_error("[dpa]\nprogram = \"dcqcn\"\n[dpa.params]\nrpg_ai_rate = \"20Tbps\"\n",
                    {"dpa.params.rpg_ai_rate", 4, 15, "rpg_ai_rate must be in 0..10000000 Mbit/s"});
  // A rate must be a bit rate.
  expect_load_error("[dpa]\nprogram = \"dcqcn\"\n[dpa.params]\nrpg_ai_rate = \"5Mpps\"\n",
                    {"dpa.params.rpg_ai_rate", 4, 15, "must be a bit rate"});
  // The wrong type for a fraction.
  expect_load_error("[dpa]\nprogram = \"pcc_rtt\"\n[dpa.params]\nmin_rate = \"half\"\n",
                    {"dpa.params.min_rate", 4, 12, "expected a number"});
}

TEST(DpaSectionErrors, ReceiverParamsWithoutReceiverProgram) {
  expect_load_error("[dpa]\nprogram = \"pcc_rtt\"\n[dpa.receiver_params]\nrpg_gd = 12\n",
                    {"dpa.receiver_params", 3, 1, "receiver_params needs a receiver_program"});
}

TEST(DpaSectionErrors, RuntimeKeysOutOfRange) {
  expect_load_error("[dpa]\nprogram = \"pcc_rtt\"\nthreads = 257\n",
                    {"dpa.threads", 3, 11, "threads must be in 1..256, got 257"});
  expect_load_error("[dpa]\nprogram = \"pcc_rtt\"\nqueue_events = 0\n",
                    {"dpa.queue_events", 3, 16, "queue_events must be in 1..1048576, got 0"});
}

// ---- [fabric]: ECN, CNPs, mode -----------------------------------------------------------------

TEST(FabricEcn, RedMarkingAndCnpIntervalLoadAndCompile) {
  auto compiled = compile(std::string(kPort) +
                          "[fabric]\nhosts = 2\ncnp_interval = \"8us\"\nmode = \"lossless\"\n"
                          "[fabric.ecn]\nmin_threshold = \"100KB\"\nmax_threshold = 400000\n"
                          "max_probability = 0.25\nclasses = [0]\n" +
                          std::string(kFlow) + "host = 1\n");
  ASSERT_TRUE(compiled);
  const FabricSpec& fabric = compiled->suite.scenarios.front().fabric;
  EXPECT_TRUE(fabric.ecn);
  EXPECT_EQ(fabric.ecn_marking.min_bytes, 100000);
  EXPECT_EQ(fabric.ecn_marking.max_bytes, 400000);
  EXPECT_DOUBLE_EQ(fabric.ecn_marking.max_probability, 0.25);
  EXPECT_EQ(fabric.ecn_classes, (std::vector<uint32_t>{0}));
  EXPECT_EQ(fabric.cnp_interval_ns, 8000);

  const policy::CongestionPlan& plan = compiled->scenario.plan.congestion;
  EXPECT_TRUE(plan.any_ecn());
  for (uint32_t c = 0; c < policy::kMaxArbClasses; ++c) {
    const bool listed = c == 0;  // the switch has one class without [eth] or [ib]
    EXPECT_EQ(plan.ecn[c].enabled, listed) << "class " << c;
    if (listed) {
      EXPECT_EQ(plan.ecn[c].min_bytes, 100000) << "class " << c;
      EXPECT_EQ(plan.ecn[c].max_bytes, 400000) << "class " << c;
      EXPECT_DOUBLE_EQ(plan.ecn[c].max_probability, 0.25) << "class " << c;
    }
  }
  EXPECT_EQ(plan.cnp_interval_ns, 8000);
  EXPECT_TRUE(plan.dpa.program.empty());
}

TEST(FabricEcn, DefaultsMarkEveryClassAtAPlainThreshold) {
  auto compiled = compile("[suite]\nseed = 77\n" + std::string(kPort) +
                          "[fabric]\nhosts = 2\n[fabric.ecn]\nmin_threshold = \"64KiB\"\n"
                          "[dpa]\nprogram = \"dcqcn\"\n" +
                          std::string(kFlow));
  ASSERT_TRUE(compiled);
  const policy::CongestionPlan& plan = compiled->scenario.plan.congestion;
  for (uint32_t c = 0; c < policy::kMaxArbClasses; ++c) {
    EXPECT_TRUE(plan.ecn[c].enabled) << "class " << c;
    EXPECT_EQ(plan.ecn[c].min_bytes, 65536) << "class " << c;
    EXPECT_EQ(plan.ecn[c].max_bytes, 65536) << "class " << c;  // max defaults to min
    EXPECT_DOUBLE_EQ(plan.ecn[c].max_probability, 1.0) << "class " << c;
  }
  EXPECT_EQ(plan.cnp_interval_ns, 4000);  // mlx5's 4 us
  EXPECT_EQ(plan.seed, 77u);
  EXPECT_EQ(plan.dpa.program, "dcqcn");
  EXPECT_EQ(plan.dpa.params.size(), 15u);
}

TEST(FabricEcn, NoEcnNoMarking) {
  auto compiled = compile(std::string(kPort) + "[fabric]\nhosts = 2\n" + std::string(kFlow));
  ASSERT_TRUE(compiled);
  EXPECT_FALSE(compiled->scenario.plan.congestion.any_ecn());
  EXPECT_EQ(compiled->scenario.plan.congestion.cnp_interval_ns, 4000);
}

TEST(FabricEcnErrors, MinThresholdMissing) {
  expect_load_error("[fabric]\nhosts = 2\n[fabric.ecn]\nmax_threshold = \"100KB\"\n",
                    {"fabric.ecn.min_threshold", 3, 1,
                     "missing required key 'min_threshold' (ECN marking needs it)"});
}

TEST(FabricEcnErrors, MaxBelowMin) {
  expect_load_error(
      "[fabric]\nhosts = 2\n[fabric.ecn]\nmin_threshold = \"200KB\"\nmax_threshold = \"100KB\"\n",
      {"fabric.ecn.max_threshold", 5, 17, "max_threshold must not be below min_threshold"});
}

TEST(FabricEcnErrors, MaxProbabilityAboveOne) {
  expect_load_error(
      "[fabric]\nhosts = 2\n[fabric.ecn]\nmin_threshold = 1000\nmax_probability = 1.5\n",
      {"fabric.ecn.max_probability", 5, 19, "max_probability must be in 0..1, got 1.5"});
}

TEST(FabricEcnErrors, BadThresholdAndClass) {
  expect_load_error("[fabric]\nhosts = 2\n[fabric.ecn]\nmin_threshold = -1\n",
                    {"fabric.ecn.min_threshold", 4, 17,
                     "min_threshold must be in 0..1099511627776 bytes, got -1"});
  expect_load_error("[fabric]\nhosts = 2\n[fabric.ecn]\nmin_threshold = 1000\nclasses = [0, 16]\n",
                    {"fabric.ecn.classes[1]", 5, 15, "a switch egress class is 0..15"});
  expect_load_error("[fabric]\nhosts = 2\n[fabric.ecn]\nmin_threshold = 1000\nclasses = []\n",
                    {"fabric.ecn.classes", 5, 11, "a non-empty array of class numbers"});
  expect_load_error(
      "[fabric]\nhosts = 2\n[fabric.ecn]\nmin_threshold = 1000\nmin_probability = 0\n",
      {"fabric.ecn.min_probability", 5, 1, "unknown key 'min_probability'"});
}

TEST(FabricEcnErrors, EcnNeedsASwitch) {
  // One host: no switch by default.
  expect_load_error("[fabric]\nhosts = 1\n[fabric.ecn]\nmin_threshold = 1000\n",
                    {"fabric.ecn", 1, 1, "[fabric.ecn] needs switch = true"});
  expect_load_error("[fabric]\nhosts = 2\nswitch = false\n[fabric.ecn]\nmin_threshold = 1000\n",
                    {"fabric.ecn", 1, 1, "[fabric.ecn] needs switch = true"});
}

TEST(FabricEcnErrors, ClassesMustExistAtTheSwitch) {
  // No QoS at the switch: one egress class (0).
  expect_load_error("[fabric]\nhosts = 2\n[fabric.ecn]\nmin_threshold = 1000\nclasses = [7]\n" +
                        std::string(kFlow),
                    {"fabric.ecn.classes[0]", 5, 12, ""});
}

TEST(FabricLossy, LossyLoadsIntoThePlan) {
  const auto compiled = compile(
      "[fabric]\nhosts = 2\nmode = \"lossy\"\nbuffer = \"200KB\"\nretransmit_timeout = "
      "\"100us\"\n" +
      std::string(kFlow));
  ASSERT_NE(compiled, nullptr);
  const policy::CongestionPlan& plan = compiled->scenario.plan.congestion;
  EXPECT_TRUE(plan.lossy);
  EXPECT_EQ(plan.buffer_bytes, 200'000);
  EXPECT_EQ(plan.retransmit_timeout_ns, 100'000);
}

TEST(FabricLossy, LosslessByDefault) {
  const auto compiled = compile("[fabric]\nhosts = 2\n" + std::string(kFlow));
  ASSERT_NE(compiled, nullptr);
  EXPECT_FALSE(compiled->scenario.plan.congestion.lossy);
  EXPECT_EQ(compiled->scenario.plan.congestion.retransmit_timeout_ns, 1'048'576);
}

TEST(FabricLossy, LossyNeedsABuffer) {
  expect_load_error("[fabric]\nhosts = 2\nmode = \"lossy\"\n",
                    {"fabric.mode", 3, 8, "mode = \"lossy\" needs buffer"});
}

TEST(FabricLossy, LossyNeedsASwitch) {
  expect_load_error("[fabric]\nhosts = 2\nswitch = false\nmode = \"lossy\"\nbuffer = 100000\n",
                    {"fabric.mode", 4, 8, "needs switch = true"});
}

TEST(FabricLossy, BufferNeedsLossy) {
  expect_load_error("[fabric]\nhosts = 2\nbuffer = \"100KB\"\n",
                    {"fabric.buffer", 3, 10, "needs mode = \"lossy\""});
}

TEST(FabricLossy, BufferMustHoldAPacket) {
  expect_load_error("[fabric]\nhosts = 2\nmode = \"lossy\"\nbuffer = 4000\n",
                    {"fabric.buffer", 4, 10, "at least 8192 bytes, got 4000"});
}

TEST(FabricLossy, BufferMustBeASize) {
  expect_load_error("[fabric]\nhosts = 2\nmode = \"lossy\"\nbuffer = \"lots\"\n",
                    {"fabric.buffer", 4, 10, ""});
}

TEST(FabricLossy, RetransmitTimeoutNeedsLossyAndAMicrosecond) {
  expect_load_error("[fabric]\nhosts = 2\nretransmit_timeout = \"1ms\"\n",
                    {"fabric.retransmit_timeout", 3, 22, "needs mode = \"lossy\""});
  expect_load_error(
      "[fabric]\nhosts = 2\nmode = \"lossy\"\nbuffer = 100000\nretransmit_timeout = \"10ns\"\n",
      {"fabric.retransmit_timeout", 5, 22, "at least"});
}

TEST(FabricModeErrors, UnknownMode) {
  expect_load_error("[fabric]\nmode = \"pfc\"\n",
                    {"fabric.mode", 2, 8, "unknown mode 'pfc' (use lossless or lossy)"});
}

TEST(FabricModeErrors, BadCnpInterval) {
  expect_load_error("[fabric]\ncnp_interval = 4\n",
                    {"fabric.cnp_interval", 2, 16, "a duration such as"});
}

// ---- flows that join later ------------------------------------------------------------------

TEST(FlowStart, StartAndStartStepGiveEachInstanceItsStart) {
  auto compiled = compile(std::string(kPort) +
                          "[[flow]]\nname = \"early\"\nsize = 4096\nrate = \"saturate\"\n"
                          "[[flow]]\nname = \"late\"\ncount = 3\nsize = 4096\nrate = \"saturate\"\n"
                          "start = \"1ms\"\nstart_step = \"500us\"\n");
  ASSERT_TRUE(compiled);
  const Scenario& scenario = compiled->suite.scenarios.front();
  EXPECT_EQ(scenario.flows[0].start_ns, 0);
  EXPECT_EQ(scenario.flows[1].start_ns, 1'000'000);
  EXPECT_EQ(scenario.flows[1].start_step_ns, 500'000);
  const auto& flows = compiled->scenario.plan.flows;
  ASSERT_EQ(flows.size(), 4u);
  EXPECT_EQ(flows[0].start_ns, 0);
  EXPECT_EQ(flows[1].start_ns, 1'000'000);
  EXPECT_EQ(flows[2].start_ns, 1'500'000);
  EXPECT_EQ(flows[3].start_ns, 2'000'000);
}

TEST(FlowStart, StartStepAloneStaggersFromZero) {
  auto compiled = compile(std::string(kPort) +
                          "[[flow]]\nname = \"f\"\ncount = 2\nsize = 4096\nrate = \"saturate\"\n"
                          "start_step = \"2us\"\n");
  ASSERT_TRUE(compiled);
  const auto& flows = compiled->scenario.plan.flows;
  ASSERT_EQ(flows.size(), 2u);
  EXPECT_EQ(flows[0].start_ns, 0);
  EXPECT_EQ(flows[1].start_ns, 2000);
}

TEST(FlowStartErrors, BeyondAThousandSeconds) {
  expect_load_error(std::string(kFlow) + "start = \"1001s\"\n",
                    {"flow[0].start", 5, 9, "a flow must start within 1000 s"});
  // The last of 4 instances would start at 3 x 334 s = 1002 s (3 x 300 s = 900 s is within).
  expect_load_error(std::string(kFlow) + "count = 4\nstart_step = \"334s\"\n",
                    {"flow[0].start_step", 6, 14, "a flow must start within 1000 s"});
  EXPECT_TRUE(load(std::string(kFlow) + "count = 4\nstart_step = \"300s\"\n"));
  expect_load_error(std::string(kFlow) + "start = 5\n",
                    {"flow[0].start", 5, 9, "a duration such as"});
  // Exactly 1000 s is within.
  auto at_limit = load(std::string(kFlow) + "start = \"1000s\"\n");
  EXPECT_TRUE(at_limit) << at_limit.error().to_string();
}

TEST(FlowStartErrors, StartPlusStepsBeyondAThousandSeconds) {
  expect_load_error(std::string(kFlow) + "count = 2\nstart = \"999s\"\nstart_step = \"500s\"\n",
                    {"flow[0].start_step", 7, 14, "a flow must start within 1000 s"});
}

// ---- the oracle per set of active flows --------------------------------------------------------

TEST(ExpectationEpochs, SecondHostJoinsLaterFirstEpochGivesTheFirstFlowTheWholePort) {
  auto compiled = compile(std::string(kNoWarmup) + std::string(kPort) +
                          "[fabric]\nhosts = 2\n"
                          "[[flow]]\nname = \"a\"\nhost = 0\nsize = 65536\nrate = \"saturate\"\n"
                          "[[flow]]\nname = \"b\"\nhost = 1\nsize = 65536\nrate = \"saturate\"\n"
                          "start = \"1ms\"\n");
  ASSERT_TRUE(compiled);
  const CompiledScenario& c = compiled->scenario;
  ASSERT_EQ(c.epochs.size(), 2u);
  EXPECT_EQ(c.epochs[0].start_ns, 0);
  EXPECT_EQ(c.epochs[1].start_ns, 1'000'000);
  ASSERT_EQ(c.epochs[0].flow_bps.size(), 2u);
  ASSERT_EQ(c.epochs[1].flow_bps.size(), 2u);
  EXPECT_DOUBLE_EQ(c.epochs[0].flow_bps[0], 100e9);
  EXPECT_DOUBLE_EQ(c.epochs[0].flow_bps[1], 0.0);  // not started: offers nothing
  EXPECT_DOUBLE_EQ(c.epochs[1].flow_bps[0], 50e9);
  EXPECT_DOUBLE_EQ(c.epochs[1].flow_bps[1], 50e9);
  // The last epoch's shares are the scenario's expectation.
  EXPECT_EQ(c.epochs.back().flow_bps, c.expected.flow_bps);
}

TEST(ExpectationEpochs, OneEpochPerDistinctStartInTimeOrder) {
  auto compiled = compile(std::string(kNoWarmup) + std::string(kPort) +
                          "[[flow]]\nname = \"late\"\ncount = 2\nsize = 4096\nrate = \"saturate\"\n"
                          "start = \"2ms\"\nstart_step = \"1ms\"\n"
                          "[[flow]]\nname = \"first\"\ncount = 2\nsize = 4096\n"
                          "rate = \"saturate\"\n");
  ASSERT_TRUE(compiled);
  const CompiledScenario& c = compiled->scenario;
  // Flows: late#0 (2 ms), late#1 (3 ms), first#0 and first#1 (0): three distinct starts.
  ASSERT_EQ(c.epochs.size(), 3u);
  EXPECT_EQ(c.epochs[0].start_ns, 0);
  EXPECT_EQ(c.epochs[1].start_ns, 2'000'000);
  EXPECT_EQ(c.epochs[2].start_ns, 3'000'000);
  const std::vector<std::vector<double>> expected{
      {0.0, 0.0, 50e9, 50e9}, {100e9 / 3, 0.0, 100e9 / 3, 100e9 / 3}, {25e9, 25e9, 25e9, 25e9}};
  for (size_t e = 0; e < 3; ++e) {
    ASSERT_EQ(c.epochs[e].flow_bps.size(), 4u);
    for (size_t f = 0; f < 4; ++f) {
      EXPECT_NEAR(c.epochs[e].flow_bps[f], expected[e][f], 1.0) << "epoch " << e << " flow " << f;
    }
  }
}

TEST(ExpectationEpochs, AScheduledFlowKeepsItsRateAndTheLateOneTakesTheRest) {
  auto compiled = compile(std::string(kNoWarmup) + std::string(kPort) +
                          "[[flow]]\nname = \"cbr\"\nsize = 4096\nrate = \"30Gbps\"\n"
                          "[[flow]]\nname = \"bulk\"\nsize = 4096\nrate = \"saturate\"\n"
                          "start = \"500us\"\n");
  ASSERT_TRUE(compiled);
  const CompiledScenario& c = compiled->scenario;
  ASSERT_EQ(c.epochs.size(), 2u);
  const double cbr = c.offered_bps[0];
  EXPECT_GT(cbr, 30e9);  // wire bit/s: headers on top of the payload rate
  EXPECT_LT(cbr, 31e9);
  EXPECT_DOUBLE_EQ(c.epochs[0].flow_bps[0], cbr);
  EXPECT_DOUBLE_EQ(c.epochs[0].flow_bps[1], 0.0);
  EXPECT_DOUBLE_EQ(c.epochs[1].flow_bps[0], cbr);
  EXPECT_NEAR(c.epochs[1].flow_bps[1], 100e9 - cbr, 1.0);
}

TEST(ExpectationEpochs, NoEpochsWhenEveryFlowStartsAtOnce) {
  // Everyone at 0, or everyone at 1 ms: one set of flows, `expected` holds all along.
  for (const std::string start : {"", "start = \"1ms\"\n"}) {
    auto compiled =
        compile(std::string(kNoWarmup) + std::string(kPort) +
                "[[flow]]\nname = \"f\"\ncount = 3\nsize = 4096\nrate = \"saturate\"\n" + start);
    ASSERT_TRUE(compiled);
    EXPECT_TRUE(compiled->scenario.epochs.empty()) << start;
  }
}

// ---- what the epochs cost ------------------------------------------------------------------

TEST(ExpectationEpochs, StartsWithinTheWarmUpFoldIntoTheEpochTheWindowOpensWith) {
  // Warm-up 10 ms: the joins at 1, 2 and 3 ms are over before anything is measured; the one at
  // 20 ms is seen. Two epochs: the set at the window's start (from 3 ms) and the one from 20 ms.
  auto compiled = compile(std::string("[suite]\nwarmup = \"10ms\"\nduration = \"50ms\"\n") +
                          std::string(kPort) +
                          "[[flow]]\nname = \"a\"\ncount = 3\nsize = 4096\nrate = \"saturate\"\n"
                          "start = \"1ms\"\nstart_step = \"1ms\"\n"
                          "[[flow]]\nname = \"b\"\nsize = 4096\nrate = \"saturate\"\n"
                          "start = \"20ms\"\n");
  ASSERT_TRUE(compiled);
  const CompiledScenario& c = compiled->scenario;
  ASSERT_EQ(c.epochs.size(), 2u);
  EXPECT_EQ(c.epochs[0].start_ns, 3'000'000);
  EXPECT_EQ(c.epochs[1].start_ns, 20'000'000);
  EXPECT_NEAR(c.epochs[0].flow_bps[0], 100e9 / 3, 1.0);
  EXPECT_DOUBLE_EQ(c.epochs[0].flow_bps[3], 0.0);
  EXPECT_NEAR(c.epochs[1].flow_bps[3], 25e9, 1.0);
  EXPECT_EQ(expectation_epoch_count(compiled->suite.scenarios.front()), c.epochs.size());
}

TEST(ExpectationEpochs, AllJoinsWithinTheWarmUpLeaveOneSetOfShares) {
  // The 65536 instances one nanosecond apart, all inside the default 10 ms warm-up.
  auto compiled = compile(std::string(kPort) +
                          "[[flow]]\nname = \"f\"\ncount = 65536\nsize = 4096\n"
                          "rate = \"saturate\"\nstart_step = \"1ns\"\n");
  ASSERT_TRUE(compiled);
  EXPECT_TRUE(compiled->scenario.epochs.empty());
  EXPECT_EQ(expectation_epoch_count(compiled->suite.scenarios.front()), 0u);
}

TEST(ExpectationEpochs, TooManyEpochsTimesFlowsIsRefusedAtTheStepBeforeTheOracleRuns) {
  // 65536 instances one nanosecond apart after a zero warm-up: 65536 epochs x 65536 flows.
  auto suite = load(std::string(kNoWarmup) + std::string(kPort) + std::string(kFlow) +
                    "count = 65536\nstart_step = \"1ns\"\n");
  ASSERT_TRUE(suite) << suite.error().to_string();
  EXPECT_EQ(expectation_epoch_count(suite->scenarios.front()), 65536u);
  std::vector<Warning> warnings;
  const auto compiled = compile_scenario(suite->scenarios.front(), warnings);
  ASSERT_FALSE(compiled);
  EXPECT_EQ(compiled.error().code, Errc::invalid_config);
  EXPECT_EQ(compiled.error().where, "flow[0].start_step");
  EXPECT_EQ(compiled.error().loc.line, 12u);
  EXPECT_EQ(compiled.error().loc.column, 14u);
  EXPECT_NE(compiled.error().message.find("65536 x 65536 flow-epochs"), std::string::npos)
      << compiled.error().to_string();
}

TEST(ExpectationEpochs, TheBudgetIsEpochsTimesFlows) {
  // Just within and just beyond kMaxEpochFlowProducts: 2048 flows joining one by one is
  // 2048 x 2048 = 2^22 (within); 4096 of them is 2^24 (beyond).
  const auto ramp = [](int count) {
    return std::string(kNoWarmup) + std::string(kPort) + std::string(kFlow) +
           "count = " + std::to_string(count) + "\nstart_step = \"1us\"\n";
  };
  auto within = load(ramp(2048));
  ASSERT_TRUE(within);
  std::vector<Warning> warnings;
  EXPECT_TRUE(compile_scenario(within->scenarios.front(), warnings));
  auto beyond = load(ramp(4096));
  ASSERT_TRUE(beyond);
  EXPECT_FALSE(compile_scenario(beyond->scenarios.front(), warnings));
}

// ---- [fabric]: which rank plays which part of a multi-host job --------------------------------

TEST(FabricPlacement, RanksAndHostnamesLoadInHostOrder) {
  auto suite = load(std::string(kPort) +
                    "[fabric]\nhosts = 2\n[[fabric.host]]\nrank = 3\n[[fabric.host]]\n"
                    "hostname = \"node-b\"\n[fabric.receiver]\nrank = 0\n" +
                    std::string(kFlow));
  ASSERT_TRUE(suite) << suite.error().to_string();
  const FabricSpec& fabric = only_scenario(suite).fabric;
  ASSERT_EQ(fabric.host_ranks.size(), 2u);
  EXPECT_EQ(fabric.host_ranks[0].rank, 3u);
  EXPECT_EQ(fabric.host_ranks[0].where, "fabric.host[0]");
  EXPECT_EQ(fabric.host_ranks[0].loc.line, 8u);  // at the value, for errors found at run time
  EXPECT_EQ(fabric.host_ranks[1].hostname, "node-b");
  EXPECT_FALSE(fabric.host_ranks[1].rank);
  EXPECT_EQ(fabric.receiver_rank.rank, 0u);
  EXPECT_EQ(fabric.receiver_rank.where, "fabric.receiver");
}

TEST(FabricPlacement, NoneGivenPlacesNothing) {
  auto suite = load(std::string(kPort) + "[fabric]\nhosts = 2\n" + std::string(kFlow));
  ASSERT_TRUE(suite) << suite.error().to_string();
  EXPECT_TRUE(only_scenario(suite).fabric.host_ranks.empty());
  EXPECT_FALSE(only_scenario(suite).fabric.receiver_rank.given());
}

TEST(FabricPlacementErrors, OnePerHostARankOnceAndRankOrHostname) {
  expect_load_error("[fabric]\nhosts = 2\n[[fabric.host]]\nrank = 1\n",
                    {"fabric.host", 3, 1, "1 [[fabric.host]] entry for hosts = 2"});
  expect_load_error("[fabric]\nhosts = 1\n[[fabric.host]]\nrank = 1\n[fabric.receiver]\nrank = 1\n",
                    {"fabric.receiver.rank", 6, 8, "rank 1 is already placed by fabric.host[0]"});
  expect_load_error("[fabric]\nhosts = 1\n[[fabric.host]]\nrank = 0\nhostname = \"a\"\n",
                    {"fabric.host[0].hostname", 5, 12, "give rank or hostname, not both"});
  expect_load_error("[fabric]\nhosts = 1\n[fabric.receiver]\nhostname = \"\"\n",
                    {"fabric.receiver.hostname", 4, 12, "hostname must not be empty"});
  expect_load_error("[fabric]\nhosts = 1\n[fabric.receiver]\nrank = -1\n",
                    {"fabric.receiver.rank", 4, 8, "rank must be in 0..1000000"});
  expect_load_error("[fabric]\nhosts = 1\n[fabric.receiver]\nranks = 2\n",
                    {"fabric.receiver.ranks", 4, 1, "unknown key"});
  expect_load_error("[fabric]\nhosts = 1\nhost = 3\n",
                    {"fabric.host", 3, 8, "an array of tables ([[fabric.host]])"});
}

// ---- issue 26: roles, parameter ranges, DPA and fabric bounds ----------------------------------

// A receiver program on the senders (or a sender program on the receiver) would leave the
// incast without congestion control while the suite claims it: refused at the key.
TEST(DpaProgramRoles, TheWrongSideIsRefusedAtItsKey) {
  expect_load_error("[dpa]\nprogram = \"reflector\"\n",
                    {"dpa.program", 2, 11,
                     "'reflector' is a receiver program (receiver side: answers RTT probes"});
  expect_load_error("[dpa]\nprogram = \"reflector\"\n",
                    {"dpa.program", 2, 11, "program takes a sender program: pcc_rtt, dcqcn"});
  expect_load_error(
      "[dpa]\nprogram = \"pcc_rtt\"\nreceiver_program = \"dcqcn\"\n",
      {"dpa.receiver_program", 3, 20, "'dcqcn' is a sender program (DCQCN reaction point"});
  expect_load_error(
      "[dpa]\nprogram = \"pcc_rtt\"\nreceiver_program = \"dcqcn\"\n",
      {"dpa.receiver_program", 3, 20, "receiver_program takes a receiver program: reflector"});
  auto good = load("[dpa]\nprogram = \"dcqcn\"\nreceiver_program = \"reflector\"\n");
  EXPECT_TRUE(good) << good.error().to_string();
}

// However far out of range, a parameter's error gives its own range (rpg_threshold's 1..31),
// not the reader's internal one.
TEST(DpaParamErrors, FarOutOfRangeGivesTheParametersOwnRange) {
  expect_load_error(
      "[dpa]\nprogram = \"dcqcn\"\n[dpa.params]\nrpg_threshold = 9223372036854775807\n",
      {"dpa.params.rpg_threshold", 4, 17,
       "rpg_threshold must be in 1..31, got 9223372036854775807"});
  expect_load_error(
      "[dpa]\nprogram = \"dcqcn\"\n[dpa.params]\nrpg_threshold = -9223372036854775807\n",
      {"dpa.params.rpg_threshold", 4, 17, "rpg_threshold must be in 1..31"});
  expect_load_error("[dpa]\nprogram = \"dcqcn\"\n[dpa.params]\nrpg_byte_reset = \"1e30B\"\n",
                    {"dpa.params.rpg_byte_reset", 4, 18,
                     "rpg_byte_reset must be in 0..2147483647 bytes, got \"1e30B\""});
  expect_load_error("[dpa]\nprogram = \"pcc_rtt\"\n[dpa.params]\nupdate_factor = 1e300\n",
                    {"dpa.params.update_factor", 4, 17, "update_factor must be in 9.53674e-07..1"});
  expect_load_error("[dpa]\nprogram = \"pcc_rtt\"\n[dpa.params]\nbase_rtt = \"3000h\"\n",
                    {"dpa.params.base_rtt", 4, 12, "base_rtt must be in 0 ns..1.000 s"});
  expect_load_error("[dpa]\nprogram = \"dcqcn\"\n[dpa.params]\nrpg_ai_rate = \"1e300Gbps\"\n",
                    {"dpa.params.rpg_ai_rate", 4, 15, "rpg_ai_rate must be in 0..10000000 Mbit/s"});
  expect_load_error("[dpa]\nprogram = \"dcqcn\"\n[dpa.params]\nrpg_gd = 11.5\n",
                    {"dpa.params.rpg_gd", 4, 10, "expected an integer, got a float"});
  // 0 disables the byte counter, also written as a size.
  auto zero = compile(std::string(kFlow) +
                      "[dpa]\nprogram = \"dcqcn\"\n[dpa.params]\nrpg_byte_reset = \"0B\"\n");
  ASSERT_NE(zero, nullptr);
}

TEST(DpaSectionErrors, DurationsBoundedToWhatCanRun) {
  expect_load_error("[dpa]\nprogram = \"pcc_rtt\"\nhandler_cost = \"1h\"\n",
                    {"dpa.handler_cost", 3, 16, "handler_cost must be in 0 ns..1.00 ms"});
  expect_load_error(
      "[dpa]\nprogram = \"pcc_rtt\"\ntx_sample_interval = \"3000h\"\n",
      {"dpa.tx_sample_interval", 3, 22, "tx_sample_interval must be in 0 ns..1000.000 s"});
  expect_load_error("[fabric]\nhosts = 2\ncnp_interval = \"3000h\"\n",
                    {"fabric.cnp_interval", 3, 16, "cnp_interval must be in 0 ns..1000.000 s"});
  expect_load_error(
      "[fabric]\nhosts = 2\nmode = \"lossy\"\nbuffer = 100000\nretransmit_timeout = \"3000h\"\n",
      {"fabric.retransmit_timeout", 5, 22, "retransmit_timeout must be in 1.00 us..8796.093 s"});
  expect_load_error("[fabric]\nhosts = 2\nswitch_rate = \"1e30Gbps\"\n",
                    {"fabric.switch_rate", 3, 15, "the largest port rate qosbench takes"});
  expect_load_error("[fabric]\nhosts = 2\nmode = \"lossy\"\nbuffer = \"1e30B\"\n",
                    {"fabric.buffer", 4, 10, "buffer must be in 8192..1099511627776 bytes"});
}

}  // namespace
}  // namespace qb::suite
