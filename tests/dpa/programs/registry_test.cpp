// The registry of shipped programs, and what every program promises the runtimes: a name, a
// handler, a context that fits, parameter specs that are well formed.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "qb_dpa/programs.h"

namespace {

TEST(DpaProgramRegistry, ListsTheShippedProgramsInOrder) {
  ASSERT_EQ(qb_dpa_program_count(), 3u);
  EXPECT_EQ(qb_dpa_program_at(0), &qb_dpa_program_pcc_rtt);
  EXPECT_EQ(qb_dpa_program_at(1), &qb_dpa_program_dcqcn);
  EXPECT_EQ(qb_dpa_program_at(2), &qb_dpa_program_reflector);
  EXPECT_EQ(qb_dpa_program_at(3), nullptr);
  EXPECT_EQ(qb_dpa_program_at(UINT32_MAX), nullptr);
}

TEST(DpaProgramRegistry, FindsByExactName) {
  EXPECT_EQ(qb_dpa_find_program("pcc_rtt"), &qb_dpa_program_pcc_rtt);
  EXPECT_EQ(qb_dpa_find_program("dcqcn"), &qb_dpa_program_dcqcn);
  EXPECT_EQ(qb_dpa_find_program("reflector"), &qb_dpa_program_reflector);
  EXPECT_EQ(qb_dpa_find_program("pcc"), nullptr);       // a prefix is not a name
  EXPECT_EQ(qb_dpa_find_program("pcc_rtt2"), nullptr);  // nor a longer one
  EXPECT_EQ(qb_dpa_find_program("DCQCN"), nullptr);     // names are case-sensitive
  EXPECT_EQ(qb_dpa_find_program(""), nullptr);
  EXPECT_EQ(qb_dpa_find_program(nullptr), nullptr);
}

TEST(DpaProgramRegistry, EveryProgramIsWellFormed) {
  std::set<std::string> program_names;
  for (std::uint32_t index = 0; index < qb_dpa_program_count(); ++index) {
    const qb_dpa_program& program = *qb_dpa_program_at(index);
    SCOPED_TRACE(program.name);
    EXPECT_TRUE(program_names.insert(program.name).second) << "duplicate program name";
    EXPECT_NE(program.handle, nullptr);
    EXPECT_NE(program.summary, nullptr);
    EXPECT_NE(program.event_mask, 0u);
    EXPECT_EQ(program.event_mask >> QB_DPA_EV_KINDS, 0u) << "bits past the last event kind";
    EXPECT_GT(program.context_bytes, 0u);
    EXPECT_LE(program.context_bytes, QB_DPA_FLOW_CONTEXT_BYTES);
    EXPECT_LE(program.param_count, QB_DPA_MAX_PARAMS);
    EXPECT_EQ(program.params == nullptr, program.param_count == 0);

    std::set<std::string> param_names;
    for (std::uint32_t param = 0; param < program.param_count; ++param) {
      const qb_dpa_param_spec& spec = program.params[param];
      SCOPED_TRACE(spec.name);
      EXPECT_TRUE(param_names.insert(spec.name).second) << "duplicate parameter name";
      EXPECT_LE(spec.kind, static_cast<std::uint32_t>(QB_DPA_PARAM_RATE_MBPS));
      EXPECT_LE(spec.min_value, spec.default_value);
      EXPECT_LE(spec.default_value, spec.max_value);
      ASSERT_NE(spec.doc, nullptr);
      EXPECT_GT(std::string(spec.doc).size(), 20u) << "say what it is and where it comes from";
      if (spec.kind == QB_DPA_PARAM_FRACTION) {
        EXPECT_GE(spec.min_value, 0);
        EXPECT_LE(spec.max_value, QB_DPA_FRACTION_ONE);
      }
      if (spec.kind == QB_DPA_PARAM_TIME_NS || spec.kind == QB_DPA_PARAM_BYTES ||
          spec.kind == QB_DPA_PARAM_RATE_MBPS) {
        EXPECT_GE(spec.min_value, 0);
      }
    }
  }
}

// A suite puts a program on the senders' or the receiver's NIC by its declared role (the loader
// refuses the other side): every shipped program declares one, the right one.
TEST(DpaProgramRegistry, EveryProgramDeclaresItsRole) {
  for (std::uint32_t index = 0; index < qb_dpa_program_count(); ++index) {
    const qb_dpa_program& program = *qb_dpa_program_at(index);
    EXPECT_TRUE(program.role == QB_DPA_ROLE_SENDER || program.role == QB_DPA_ROLE_RECEIVER)
        << program.name << " declares role " << program.role;
  }
  EXPECT_EQ(qb_dpa_program_pcc_rtt.role, static_cast<std::uint32_t>(QB_DPA_ROLE_SENDER));
  EXPECT_EQ(qb_dpa_program_dcqcn.role, static_cast<std::uint32_t>(QB_DPA_ROLE_SENDER));
  EXPECT_EQ(qb_dpa_program_reflector.role, static_cast<std::uint32_t>(QB_DPA_ROLE_RECEIVER));
}

TEST(DpaProgramRegistry, PccRttDefaultsAreDocaPccs) {
  const qb_dpa_program& program = qb_dpa_program_pcc_rtt;
  ASSERT_EQ(program.param_count, 7u);
  const std::pair<const char*, std::int64_t> expected[] = {
      {"update_factor", 104858},     // round(0.1 * 2^20)
      {"additive_increase", 52429},  // round(0.05 * 2^20)
      {"base_rtt", 13000},           // 13 us
      {"max_delay", 150000},         // 150 us
      {"min_rate", 64},              // 1 << 6
      {"high_utilisation", 891290},  // round(0.85 * 2^20)
      {"probe_timeout", 300000},     // 300 us
  };
  for (std::uint32_t index = 0; index < program.param_count; ++index) {
    EXPECT_STREQ(program.params[index].name, expected[index].first);
    EXPECT_EQ(program.params[index].default_value, expected[index].second)
        << program.params[index].name;
  }
}

TEST(DpaProgramRegistry, DcqcnDefaultsAreNvidiaFirmwares) {
  const qb_dpa_program& program = qb_dpa_program_dcqcn;
  const std::pair<const char*, std::int64_t> expected[] = {
      {"rpg_time_reset", 300000},
      {"rpg_byte_reset", 32767},
      {"rpg_threshold", 1},
      {"rpg_ai_rate", 5},
      {"rpg_hai_rate", 50},
      {"rpg_gd", 11},
      {"rpg_min_dec_fac", 50},
      {"rpg_min_rate", 1},
      {"rate_to_set_on_first_cnp", 0},
      {"dce_tcp_g", 1019},
      {"dce_tcp_rtt", 1000},
      {"initial_alpha_value", 1023},
      {"clamp_tgt_rate", 0},
      {"clamp_tgt_rate_after_time_inc", 1},
      {"rate_reduce_monitor_period", 4000},
  };
  ASSERT_EQ(program.param_count, std::size(expected));
  for (std::uint32_t index = 0; index < program.param_count; ++index) {
    EXPECT_STREQ(program.params[index].name, expected[index].first);
    EXPECT_EQ(program.params[index].default_value, expected[index].second)
        << program.params[index].name;
  }
}

}  // namespace
