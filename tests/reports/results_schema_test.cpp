// The results field list is the one description of qosbench.results/1: what the writer writes is
// exactly that list, the reader reads every field of it back, and docs/results-schema.md names
// every field.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "qb/reports/json_results.hpp"
#include "qb/reports/results_reader.hpp"
#include "results_fixture.hpp"

namespace qb::report {
namespace {

// A results value that uses every optional field too (classes, flow class fields, notes, host
// trees, both kinds of arbitration, the switch queue depth).
Results every_field() {
  Results r = testing::sample_results();
  ScenarioResult& s = r.scenarios.front();
  s.repetitions_partial = 1;  // an interrupted run: its measured windows are listed
  s.repetitions_completed = s.repetitions - 1;
  r.complete = false;  // a signal stopped it
  r.interrupted = true;
  r.passed = false;
  r.nic_left_changed = {"the QoS of ens1f0np0 was not put back (qosbench nic-restore ...)"};
  s.measured_ns_reps.assign(s.repetitions, s.duration_ns);
  // Saturating flows with messages outstanding at the window's end (their tails censored).
  const auto stuck = [](LatencySummary& l) {
    l.outstanding = 16;
    l.oldest_outstanding_ns = 51'000'000;
    l.censored = engine::LatencyCensored{false, false, true, true, true};
    l.outstanding_limit = 16;
  };
  for (auto& flow : s.flows) {
    stuck(flow.latency);
    stuck(flow.latency_from_sent);
  }
  for (auto& group : s.groups) {
    stuck(group.latency);
    stuck(group.latency_from_sent);
  }
  for (auto& flow : s.flows) {
    flow.host = 1;
    flow.tclass = "low_latency";
    flow.dscp = 46;
    flow.sl = 2;
    flow.priority = 5;
    flow.arb_class = "TC5";
  }
  ClassResult c;
  c.name = "TC5";
  c.flows = 3;
  c.expected_bps = 1e9;
  c.measured_bps = 1e9;
  c.expected_share = 0.01;
  c.measured_share = 0.01;
  c.latency = testing::latency(1000);
  stuck(c.latency);
  s.classes = {c};
  s.oracle_notes = {"a note"};
  s.convergence.present = true;  // a congestion-control scenario
  ConvergenceEpoch settled;
  settled.active_flows = 2;
  settled.judged = true;
  settled.converged = true;
  settled.time_ns = 1000;
  s.convergence.epochs.push_back(settled);
  ConvergenceEpoch late;  // after the window: not judged, and says why
  late.start_ns = 1'000'000'000;
  late.active_flows = 3;
  late.not_judged = "starts after the measured window ends";
  s.convergence.epochs.push_back(late);
  s.convergence.converged = true;
  s.convergence.worst_time_ns = 1000;
  s.convergence.worst_flow_settled = "g1-qp#0";
  s.host_trees = {{0, s.tree}, {1, s.tree}};  // several hosts
  // Both kinds of arbitrating port: each writes the fields of its kind.
  PortArbitrationResult ets;
  ets.port = "nic";
  ets.kind = "ets";
  ets.capacity_bps = 100e9;
  ets.trust = "dscp";
  ets.prio_tc = {0, 1, 2, 3, 4, 5, 6, 7};
  ets.tcs = {{5, "strict", 0, 10e9, 2}, {0, "ets", 100, std::nullopt, 0}};
  PortArbitrationResult ib;
  ib.port = "switch";
  ib.kind = "vlarb";
  ib.decides = true;
  ib.capacity_bps = 100e9;
  ib.sl2vl.assign(16, 0);
  ib.vlarb_high = {{0, 255}};
  ib.vlarb_low = {{1, 64}, {2, 128}};
  ib.high_limit = 6;
  ib.op_vls = 4;
  s.arbitration = {ets, ib};
  s.queue_depth = {QueueDepthSeries{"port", {1000.0, 2000.0}, {500.0, 1500.0}}};  // a switch
  s.nic_checks = {NicCheckResult{"priority_bytes", false, true, "priority 3: ..."},
                  NicCheckResult{"pause_on_lossy", true, false, "the suite does not say"}};
  // A [topology]: its links and a victim.
  s.links = {LinkResult{"h0:1->leaf0:1", 100e9, 100e9, 25e9, 0.25, 0.0, 15e6}};
  s.victims = {VictimResult{"s-to-v", "h0:1->leaf0:1", 15e6, -0.857}};
  // Its graph: nodes, a link with both channels, a flow's path with its class per hop.
  s.topology.nodes = {TopologyNode{"h0", "host"}, TopologyNode{"leaf0", "switch"}};
  s.topology.links = {TopologyLink{{"h0", "leaf0"}, {"h0:1->leaf0:1", "leaf0:1->h0:1"}, 100e9, 1000}};
  s.topology.paths = {TopologyPath{"g1-qp#0", 2, 5, {TopologyHop{"h0:1->leaf0:1", "VL2"}}}};
  s.starvation.present = true;  // a real-time driver watched its workers
  s.starvation.lost_ns = 2000;
  s.starvation.run_ns = 100000;
  s.starvation.lost_fraction = 0.02;
  s.starvation.unreliable = true;
  s.bin_requested_ns = 1;  // the suite's bin was coarsened
  // A flow and a group that never started, and a shortfall: their optional fields.
  s.flows.back().judged = false;
  s.flows.back().not_judged = "not started: starts at 2 s, after the window ends at 110 ms";
  s.groups.back().judged = false;
  s.shortfalls = {"TC0 (priority 0 of flow 'voice', eth.prio_tc) is expected 0 bit/s"};
  return r;
}

// Every object key of a written document, arrays as "[]"; driver_stats' keys are the driver's.
void collect(const nlohmann::ordered_json& value, const std::string& path,
             std::set<std::string>& out) {
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      const std::string child_path = path.empty() ? key : path + "." + key;
      out.insert(child_path);
      if (key != "driver_stats") collect(child, child_path, out);
    }
  } else if (value.is_array()) {
    for (const auto& child : value) {
      if (child.is_object()) collect(child, path + "[]", out);
    }
  }
}

std::set<std::string> listed_paths() {
  std::set<std::string> out;
  for (const SchemaField& field : results_schema_fields()) {
    EXPECT_TRUE(out.insert(field.path).second) << "listed twice: " << field.path;
  }
  return out;
}

TEST(ResultsSchema, TheWriterWritesExactlyTheListedFields) {
  std::set<std::string> written;
  collect(nlohmann::ordered_json::parse(results_to_json(every_field())), "", written);
  EXPECT_EQ(written, listed_paths());
}

TEST(ResultsSchema, WithoutClassesOnlyTheOptionalFieldsAreLeftOut) {
  // Optional for the reader (files written before them lack them), always written now.
  const std::set<std::string> always_written = {
      "scenarios[].gates[].kind", "scenarios[].gates[].bound",
      "scenarios[].flows[].latency_ns.stdev", "scenarios[].flows[].latency_from_sent_ns.stdev",
      "scenarios[].groups[].latency_ns.stdev", "scenarios[].groups[].latency_from_sent_ns.stdev",
      "scenarios[].classes[].latency_ns.stdev",
      // The verdict, the noise and the gates' judging fields (issue 25).
      "verdict", "scenarios[].flows[].noise", "scenarios[].groups[].noise",
      "scenarios[].gates[].allowance", "scenarios[].gates[].judged",
      "scenarios[].gates[].default_limit"};
  std::set<std::string> written;
  collect(nlohmann::ordered_json::parse(results_to_json(testing::sample_results())), "", written);
  std::set<std::string> optional;
  for (const SchemaField& field : results_schema_fields()) {
    if (!field.required) optional.insert(field.path);
  }
  for (const SchemaField& field : results_schema_fields()) {
    // Present unless it or one of its parents is optional.
    bool expected = true;
    for (size_t end = 0; end != std::string::npos;) {
      end = field.path.find('.', end + 1);
      std::string prefix = field.path.substr(0, end);
      if (prefix.ends_with("[]")) prefix.resize(prefix.size() - 2);
      expected = expected && (!optional.contains(prefix) || always_written.contains(prefix));
    }
    EXPECT_EQ(written.contains(field.path), expected) << field.path;
  }
}

TEST(ResultsSchema, TheReaderNeedsEveryRequiredFieldAndNoOptionalOne) {
  const std::string json = results_to_json(every_field());
  for (const SchemaField& field : results_schema_fields()) {
    // Remove the field from the first object that has it.
    nlohmann::ordered_json doc = nlohmann::ordered_json::parse(json);
    nlohmann::ordered_json* node = &doc;
    std::string rest = field.path;
    while (true) {
      const size_t dot = rest.find('.');
      std::string key = rest.substr(0, dot);
      const bool array = key.ends_with("[]");
      if (array) key.resize(key.size() - 2);
      if (dot == std::string::npos) {
        node->erase(key);
        break;
      }
      rest = rest.substr(dot + 1);
      if (array) {
        // The first element that has the next key (a port carries the fields of its kind only).
        std::string next = rest.substr(0, rest.find('.'));
        if (next.ends_with("[]")) next.resize(next.size() - 2);
        nlohmann::ordered_json* items = &(*node)[key];
        node = &(*items)[0];
        for (auto& item : *items) {
          if (item.contains(next)) {
            node = &item;
            break;
          }
        }
      } else {
        node = &(*node)[key];
      }
    }
    auto read = results_from_json(doc.dump(), "r.json");
    if (field.path == "schema") {
      EXPECT_FALSE(read) << "a file without a schema was read";
    } else if (field.required) {
      ASSERT_FALSE(read) << field.path << " is required but a file without it was read";
      EXPECT_EQ(read.error().message, "missing field") << field.path;
    } else {
      EXPECT_TRUE(read) << field.path << ": " << read.error().to_string();
    }
  }
}

TEST(ResultsSchema, RoundTripWithEveryFieldIsByteEqual) {
  const std::string json = results_to_json(every_field());
  auto read = results_from_json(json, "r.json");
  ASSERT_TRUE(read) << read.error().to_string();
  EXPECT_EQ(results_to_json(*read), json);
}

TEST(ResultsSchema, TheDocumentationNamesEveryField) {
  std::ifstream in(QB_SOURCE_DIR "/docs/results-schema.md");
  ASSERT_TRUE(in);
  std::stringstream doc;
  doc << in.rdbuf();
  for (const SchemaField& field : results_schema_fields()) {
    const std::string key = field.path.substr(field.path.find_last_of('.') + 1);
    EXPECT_NE(doc.str().find("\"" + key + "\""), std::string::npos)
        << field.path << " is not in docs/results-schema.md";
  }
}

}  // namespace
}  // namespace qb::report
