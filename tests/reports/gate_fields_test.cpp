// A gate's kind and bound are written into the results JSON and read back as written, whatever
// the gate is called; files written before the two were fields have neither, and the reader
// derives them from the gate's name and unit (gate_kind.hpp).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <tuple>

#include "qb/reports/json_results.hpp"
#include "qb/reports/results_reader.hpp"
#include "results_fixture.hpp"

namespace qb::report {
namespace {

TEST(GateFields, KindAndBoundRoundTripWhateverTheName) {
  Results r = testing::sample_results();
  r.scenarios[0].gates.clear();
  for (const GateKind kind :
       {GateKind::ratio, GateKind::duration, GateKind::index, GateKind::bytes}) {
    for (const GateBound bound : {GateBound::at_most, GateBound::at_least}) {
      // A name that says nothing, and names that would derive the other kind and bound.
      for (const char* name : {"custom", "min_jain", "max_share_error"}) {
        r.scenarios[0].gates.push_back(gate_result(name, true, 1.0, 2.0, "ns", "", kind, bound));
      }
    }
  }
  const std::string json = results_to_json(r);
  const auto doc = nlohmann::ordered_json::parse(json);
  const auto& written = doc["scenarios"][0]["gates"];
  ASSERT_EQ(written.size(), r.scenarios[0].gates.size());
  EXPECT_EQ(written[0]["kind"], "ratio");
  EXPECT_EQ(written[0]["bound"], "at_most");
  EXPECT_EQ(written[5]["kind"], "ratio");
  EXPECT_EQ(written[5]["bound"], "at_least");
  EXPECT_EQ(written[6]["kind"], "duration");
  EXPECT_EQ(written[12]["kind"], "index");
  EXPECT_EQ(written[18]["kind"], "bytes");

  auto read = results_from_json(json, "r.json");
  ASSERT_TRUE(read) << read.error().to_string();
  const auto& gates = read->scenarios.at(0).gates;
  ASSERT_EQ(gates.size(), r.scenarios[0].gates.size());
  for (size_t i = 0; i < gates.size(); ++i) {
    EXPECT_EQ(gates[i].kind, r.scenarios[0].gates[i].kind) << i;
    EXPECT_EQ(gates[i].bound, r.scenarios[0].gates[i].bound) << i;
  }
  EXPECT_EQ(results_to_json(*read), json);
}

TEST(GateFields, FilesWithoutThemDeriveThemFromNameAndUnit) {
  struct Case {
    const char* name;
    const char* unit;
    GateKind kind;
    GateBound bound;
  };
  const Case cases[] = {
      {"max_share_error", "", GateKind::ratio, GateBound::at_most},
      {"max_group_share_error", "", GateKind::ratio, GateBound::at_most},
      {"max_cap_overshoot", "", GateKind::ratio, GateBound::at_most},
      {"min_jain", "", GateKind::index, GateBound::at_least},
      {"latency.p99[g1-qp]", "ns", GateKind::duration, GateBound::at_most},
      {"latency.max[g1-qp,sent]", "ns", GateKind::duration, GateBound::at_most},
      {"max_queue_depth", "B", GateKind::bytes, GateBound::at_most},
  };
  Results r = testing::sample_results();
  r.scenarios[0].gates.clear();
  for (const Case& c : cases) {
    // Held with the other kind and bound: what is read back can only come from name and unit.
    r.scenarios[0].gates.push_back(
        gate_result(c.name, true, 1.0, 1.0, c.unit, "",
                    c.kind == GateKind::index ? GateKind::ratio : GateKind::index,
                    c.bound == GateBound::at_most ? GateBound::at_least : GateBound::at_most));
  }
  // An older file: the same gates without "kind" and "bound".
  auto doc = nlohmann::ordered_json::parse(results_to_json(r));
  for (auto& gate : doc["scenarios"][0]["gates"]) {
    ASSERT_TRUE(gate.contains("kind") && gate.contains("bound"));
    gate.erase("kind");
    gate.erase("bound");
  }
  auto read = results_from_json(doc.dump(2), "old.json");
  ASSERT_TRUE(read) << read.error().to_string();
  const auto& gates = read->scenarios.at(0).gates;
  ASSERT_EQ(gates.size(), std::size(cases));
  for (size_t i = 0; i < gates.size(); ++i) {
    EXPECT_EQ(gates[i].kind, cases[i].kind) << cases[i].name;
    EXPECT_EQ(gates[i].bound, cases[i].bound) << cases[i].name;
  }
}

TEST(GateFields, AnUnknownKindOrBoundIsRefusedAtItsField) {
  for (const auto& [key, value, message] :
       {std::tuple{"kind", "speed", "expected \"ratio\", \"duration\", \"index\" or \"bytes\""},
        std::tuple{"bound", "exactly", "expected \"at_most\" or \"at_least\""}}) {
    auto doc = nlohmann::ordered_json::parse(results_to_json(testing::sample_results()));
    doc["scenarios"][0]["gates"][0][key] = value;
    auto read = results_from_json(doc.dump(), "r.json");
    ASSERT_FALSE(read) << key;
    EXPECT_EQ(read.error().code, Errc::invalid_config);
    EXPECT_EQ(read.error().where, std::string("scenarios[0].gates[0].") + key);
    EXPECT_NE(read.error().message.find(message), std::string::npos) << read.error().message;
  }
}

}  // namespace
}  // namespace qb::report
