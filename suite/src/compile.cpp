#include "qb/suite/compile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "class_resolution.hpp"
#include "fabric_compile.hpp"
#include "retransmit_check.hpp"
#include "qb/policies/class_oracle.hpp"

namespace qb::suite {
namespace {

Error config_error(std::string message, std::string where, SourceLoc loc) {
  return make_error(Errc::invalid_config, std::move(message), std::move(where), std::move(loc));
}

// The leaf a flow attaches to: its `leaf`, or the only leaf of the tree when it names none.
Result<uint32_t> resolve_leaf(const FlowSpec& flow, const policy::SchedTree& tree) {
  if (flow.leaf.empty()) {
    const auto leaves = tree.leaves();
    if (leaves.size() == 1) return leaves.front();
    return config_error(fmt::format("flow '{}' names no leaf and the tree has {} leaves; add "
                                    "leaf = \"...\"",
                                    flow.name, leaves.size()),
                        flow.where, flow.loc);
  }
  const uint32_t index = tree.find(flow.leaf);
  const SourceLoc& loc = flow.leaf_loc.line != 0 ? flow.leaf_loc : flow.loc;
  if (index == policy::SchedTree::kNoParent) {
    std::string known;
    for (uint32_t leaf : tree.leaves()) {
      known += (known.empty() ? "" : ", ") + tree.elements[leaf].name;
    }
    return config_error(fmt::format("unknown leaf '{}' (leaves: {})", flow.leaf, known),
                        flow.where + ".leaf", loc);
  }
  if (!tree.elements[index].is_leaf) {
    return config_error(fmt::format("'{}' is a scheduling node; flows attach to leaves", flow.leaf),
                        flow.where + ".leaf", loc);
  }
  return index;
}

Status check_latency_gates(const Scenario& scenario, const policy::QosPlan& plan) {
  for (const auto& gate : scenario.gates.latency) {
    bool found = false;
    for (const auto& flow : plan.flows) {
      if (flow.name == gate.flow || flow.group == gate.flow) {
        found = true;
        break;
      }
    }
    if (!found) {
      const SourceLoc& loc = gate.flow_loc.line != 0 ? gate.flow_loc : gate.loc;
      return config_error(fmt::format("latency gate names no flow or flow group '{}'", gate.flow),
                          gate.where + ".flow", loc);
    }
  }
  return {};
}

// A gate the suite wrote that nothing in this scenario can judge is a config error, not a
// failure found after the run (CI would read that as a regression).
Status check_judgeable_gates(const Scenario& scenario, const CompiledScenario& compiled) {
  const GateSpec& gates = scenario.gates;
  const std::string where = gates.where.empty() ? std::string("gates") : gates.where;
  const bool changes = !compiled.epochs.empty() || !compiled.plan.congestion.dpa.program.empty();
  if (gates.written("convergence_time") && !changes) {
    return config_error(
        "convergence_time judges how fast shares settle after a flow joins or under a DPA "
        "program, and this scenario has neither (give a flow a later `start`, or a [dpa] "
        "program; or leave the key out)",
        where + ".convergence_time", gates.convergence_time_loc);
  }
  if (gates.max_queue_depth_bytes && !compiled.plan.switched && !compiled.plan.graph) {
    return config_error(
        "max_queue_depth judges the switch egress queue, and this scenario has no switch "
        "([fabric] hosts > 1 or switch = true, or a [topology]); leave the key out",
        where + ".max_queue_depth", gates.max_queue_depth_loc);
  }
  return {};
}

}  // namespace

namespace {

// The mean of f(message bytes) over a size distribution (exact for tables and fixed sizes; by
// enumeration for uniform ranges, stepping when the range is huge).
template <class F>
double mean_over_sizes(const gen::SizeSpec& size, F f) {
  using Kind = gen::SizeSpec::Kind;
  switch (size.kind) {
    case Kind::fixed:
      return f(size.fixed_bytes);
    case Kind::uniform: {
      const uint64_t span = static_cast<uint64_t>(size.max_bytes) - size.min_bytes + 1;
      const uint64_t step = span > 1'000'000 ? span / 1'000'000 : 1;
      double sum = 0;
      uint64_t n = 0;
      for (uint64_t bytes = size.min_bytes; bytes <= size.max_bytes; bytes += step, ++n) {
        sum += f(bytes);
      }
      return n == 0 ? 0.0 : sum / static_cast<double>(n);
    }
    case Kind::imix:
    case Kind::weighted: {
      double sum = 0, weights = 0;
      for (const auto& entry : size.table) {
        sum += entry.weight * f(entry.size_bytes);
        weights += entry.weight;
      }
      return weights == 0 ? 0.0 : sum / weights;
    }
  }
  return 0.0;
}

}  // namespace

double mean_wire_bytes(const gen::SizeSpec& size, const policy::WireModel& wire,
                       policy::RdmaOp op) {
  return mean_over_sizes(size, [&](uint64_t bytes) {
    return static_cast<double>(wire.wire_bytes_for_message(bytes, op));
  });
}

double wire_bytes_cv(const gen::SizeSpec& size, const policy::WireModel& wire, policy::RdmaOp op) {
  const double mean = mean_wire_bytes(size, wire, op);
  const double mean_square = mean_over_sizes(size, [&](uint64_t bytes) {
    const auto w = static_cast<double>(wire.wire_bytes_for_message(bytes, op));
    return w * w;
  });
  if (!(mean > 0.0)) return 0.0;
  return std::sqrt(std::max(0.0, mean_square / (mean * mean) - 1.0));
}

double mean_packet_wire_bytes(const gen::SizeSpec& size, const policy::WireModel& wire,
                              policy::RdmaOp op) {
  const double packets = mean_over_sizes(
      size, [&](uint64_t bytes) { return static_cast<double>(wire.packets_for_message(bytes)); });
  return packets > 0.0 ? mean_wire_bytes(size, wire, op) / packets : 0.0;
}

namespace {

policy::CongestionPlan congestion_plan(const Scenario& scenario) {
  policy::CongestionPlan congestion;
  const FabricSpec& fabric = scenario.fabric;
  if (fabric.ecn) {
    for (uint32_t c = 0; c < policy::kMaxArbClasses; ++c) {
      const bool listed = fabric.ecn_classes.empty() ||
                          std::find(fabric.ecn_classes.begin(), fabric.ecn_classes.end(), c) !=
                              fabric.ecn_classes.end();
      if (listed) congestion.ecn[c] = fabric.ecn_marking;
    }
  }
  congestion.cnp_interval_ns = fabric.cnp_interval_ns;
  congestion.lossy = fabric.lossy;
  congestion.buffer_bytes = fabric.buffer_bytes;
  congestion.retransmit_timeout_ns = fabric.retransmit_timeout_ns;
  if (scenario.bin_ns > 0) {
    congestion.series_start_ns = scenario.warmup_ns;
    congestion.series_bin_ns = scenario.bin_ns;
    congestion.series_bins =
        static_cast<uint32_t>((scenario.duration_ns + scenario.bin_ns - 1) / scenario.bin_ns);
  }
  congestion.seed = scenario.seed;
  congestion.report_queue = scenario.gates.max_queue_depth_bytes.has_value();
  if (scenario.dpa.present) congestion.dpa = scenario.dpa.plan;
  return congestion;
}

// The distinct start times the measurement sees, in order. Every start within the warm-up folds
// into the last of them (nothing is measured before the warm-up ends: the shares the window
// opens with are all that matter of those), counted per entry without listing its instances.
// Starts after the warm-up are listed up to kMaxListedStarts; beyond that `over_cap` is set and
// the list is cut (that many flow instances joining after the warm-up are over the epoch budget
// anyway). One start or none: no change during the run.
struct EpochStarts {
  std::vector<int64_t> starts_ns;
  bool over_cap = false;
};
constexpr size_t kMaxListedStarts = size_t{1} << 22;

EpochStarts epoch_starts(const Scenario& scenario) {
  EpochStarts out;
  std::optional<int64_t> opening_ns;  // the last start within the warm-up
  for (const FlowSpec& flow : scenario.flows) {
    if (flow.count == 0) continue;
    // Instances [0, first_after) start within the warm-up (start_step >= 0: starts ascend).
    uint64_t first_after = 0;
    if (flow.start_ns <= scenario.warmup_ns) {
      first_after = flow.start_step_ns <= 0
                        ? flow.count
                        : std::min<uint64_t>(flow.count, static_cast<uint64_t>(
                                                             (scenario.warmup_ns - flow.start_ns) /
                                                             flow.start_step_ns) +
                                                             1);
    }
    if (first_after > 0) {
      const int64_t last_within =
          flow.start_ns + static_cast<int64_t>(first_after - 1) * flow.start_step_ns;
      opening_ns = std::max(opening_ns.value_or(last_within), last_within);
    }
    for (uint64_t i = first_after; i < flow.count; ++i) {
      if (out.starts_ns.size() >= kMaxListedStarts) {
        out.over_cap = true;
        break;
      }
      out.starts_ns.push_back(flow.start_ns + static_cast<int64_t>(i) * flow.start_step_ns);
      if (flow.start_step_ns == 0) break;  // the same start for every instance
    }
  }
  if (opening_ns) out.starts_ns.push_back(*opening_ns);
  std::sort(out.starts_ns.begin(), out.starts_ns.end());
  out.starts_ns.erase(std::unique(out.starts_ns.begin(), out.starts_ns.end()),
                      out.starts_ns.end());
  return out;
}

// Epochs x flows beyond kMaxEpochFlowProducts is refused before the oracle runs once per epoch,
// at the entry that brings the most distinct starts: it is the one to give fewer, coarser steps.
Status check_epoch_budget(const Scenario& scenario, const EpochStarts& starts) {
  uint64_t flows = 0;
  for (const FlowSpec& flow : scenario.flows) {
    flows += uint64_t{flow.count} * std::max<uint64_t>(1, flow.endpoints.size());
  }
  const uint64_t epochs = starts.starts_ns.size();
  if (!starts.over_cap && (epochs < 2 || epochs * flows <= kMaxEpochFlowProducts)) return {};
  const FlowSpec* widest = nullptr;
  uint64_t widest_starts = 0;
  for (const FlowSpec& flow : scenario.flows) {
    const uint64_t flow_starts = flow.start_step_ns != 0 ? flow.count : 1;
    if (widest == nullptr || flow_starts > widest_starts) {
      widest = &flow;
      widest_starts = flow_starts;
    }
  }
  const bool stepped = widest->start_step_ns != 0 && widest->count > 1;
  return config_error(
      fmt::format("flows start at {}{} distinct times the measurement sees (starts within the "
                  "warm-up count as one), and each is an expectation epoch over all {} flow "
                  "instances: {}{} x {} flow-epochs is more than the {} allowed; {}",
                  starts.over_cap ? "more than " : "", epochs, flows,
                  starts.over_cap ? "over " : "", epochs, flows, kMaxEpochFlowProducts,
                  stepped ? fmt::format("flow '{}' starts its {} instances one `start_step` apart: "
                                        "join them in fewer steps (several [[flow]] entries with "
                                        "a common `start`), or start them within the warm-up",
                                        widest->name, widest->count)
                          : "give flows common start times, or start them within the warm-up"),
      widest->where + (stepped ? ".start_step" : ".start"),
      widest->start_loc.line != 0 ? widest->start_loc : widest->loc);
}

// The oracle over the flows started by each epoch's start (flows not started yet offer nothing).
std::vector<ExpectationEpoch> expectation_epochs(CompiledScenario& compiled,
                                                 const std::vector<int64_t>& starts) {
  std::vector<ExpectationEpoch> epochs;
  if (starts.size() < 2) return epochs;
  epochs.reserve(starts.size());
  for (const int64_t start_ns : starts) {
    std::vector<double> offered = compiled.offered_bps;
    for (size_t f = 0; f < offered.size(); ++f) {
      if (compiled.plan.flows[f].start_ns > start_ns) offered[f] = 0.0;
    }
    if (compiled.plan.graph) {
      epochs.push_back(ExpectationEpoch{start_ns, detail::fabric_expected_bps(compiled, offered)});
      continue;
    }
    auto expected = policy::expected_rates_with_classes(compiled.plan, offered,
                                                        compiled.mean_packet_wire_bytes);
    epochs.push_back(ExpectationEpoch{start_ns, std::move(expected.flows.flow_bps)});
  }
  return epochs;
}

}  // namespace

Result<CompiledScenario> compile_scenario(const Scenario& scenario,
                                          std::vector<Warning>& warnings) {
  CompiledScenario out;
  out.scenario = &scenario;
  auto tree = policy::compile_sched_tree(scenario.sched, scenario.port.rate_bps, warnings);
  if (!tree) return std::move(tree).error();
  out.plan.tree = std::move(*tree);
  out.plan.wire = scenario.port.wire;
  out.plan.port_rate_bps = scenario.port.rate_bps;

  std::vector<fabric::FlowEndpoints> endpoints;  // per flow instance, with a [topology]
  for (uint32_t spec_index = 0; spec_index < scenario.flows.size(); ++spec_index) {
    const FlowSpec& flow = scenario.flows[spec_index];
    auto leaf = resolve_leaf(flow, out.plan.tree);
    if (!leaf) return std::move(leaf).error();
    const double wire_bytes = mean_wire_bytes(flow.size, scenario.port.wire, flow.op);
    const double packet_wire_bytes = mean_packet_wire_bytes(flow.size, scenario.port.wire, flow.op);
    const double message_bytes = flow.size.mean_bytes();
    const double size_cv = wire_bytes_cv(flow.size, scenario.port.wire, flow.op);
    // The generator's own long-run message rate, in wire bytes per message.
    const double offered_bps =
        flow.arrival.saturating()
            ? policy::kUnlimited
            : flow.arrival.mean_messages_per_s(message_bytes) * wire_bytes * 8.0;
    // With a [topology], `count` QPs per (source, destination) pair the entry gives.
    const size_t pairs = flow.endpoints.empty() ? 1 : flow.endpoints.size();
    const uint64_t instances = uint64_t{flow.count} * pairs;
    for (uint64_t k = 0; k < instances; ++k) {
      const auto i = static_cast<uint32_t>(k % flow.count);
      policy::FlowPlan plan;
      plan.name = instances == 1 ? flow.name : fmt::format("{}#{}", flow.name, k);
      plan.group = flow.name;
      plan.leaf = *leaf;
      plan.op = flow.op;
      plan.offered_wire_bps = offered_bps;
      plan.start_ns = flow.start_ns + static_cast<int64_t>(i) * flow.start_step_ns;
      out.plan.flows.push_back(std::move(plan));
      if (!flow.endpoints.empty()) endpoints.push_back(flow.endpoints[k / flow.count]);
      out.flow_spec.push_back(spec_index);
      out.flow_instance.push_back(static_cast<uint32_t>(k));
      out.offered_bps.push_back(offered_bps);
      out.mean_wire_bytes.push_back(wire_bytes);
      out.mean_message_bytes.push_back(message_bytes);
      out.mean_packet_wire_bytes.push_back(packet_wire_bytes);
      out.wire_bytes_cv.push_back(size_cv);
    }
  }
  if (out.plan.flows.empty()) {
    return config_error("the scenario has no flows; add at least one [[flow]]",
                        scenario.where.empty() ? "flow" : scenario.where + ".flow", scenario.loc);
  }
  if (auto status = check_latency_gates(scenario, out.plan); !status) {
    return std::move(status).error();
  }
  if (auto status = detail::resolve_classes(scenario, out.flow_spec, out.plan, warnings); !status) {
    return std::move(status).error();
  }
  if (scenario.topology) {
    if (auto status = detail::compile_fabric(scenario, endpoints, out); !status) {
      return std::move(status).error();
    }
  } else {
    auto expected =
        policy::expected_rates_with_classes(out.plan, out.offered_bps, out.mean_packet_wire_bytes);
    out.expected = std::move(expected.flows);
    out.expected_class_bps = std::move(expected.class_bps);
    out.oracle_notes = std::move(expected.notes);
  }
  out.plan.congestion = congestion_plan(scenario);
  detail::warn_short_retransmit_timeout(scenario, out, warnings);
  const EpochStarts starts = epoch_starts(scenario);
  if (auto status = check_epoch_budget(scenario, starts); !status) {
    return std::move(status).error();
  }
  out.epochs = expectation_epochs(out, starts.starts_ns);
  if (auto status = check_judgeable_gates(scenario, out); !status) {
    return std::move(status).error();
  }
  return out;
}

uint64_t expectation_epoch_count(const Scenario& scenario) {
  const size_t starts = epoch_starts(scenario).starts_ns.size();
  return starts < 2 ? 0 : starts;
}

Result<std::vector<CompiledScenario>> compile_suite(const Suite& suite,
                                                    std::vector<Warning>& warnings) {
  std::vector<CompiledScenario> compiled;
  compiled.reserve(suite.scenarios.size());
  for (const Scenario& scenario : suite.scenarios) {
    auto one = compile_scenario(scenario, warnings);
    if (!one) return std::move(one).error();
    compiled.push_back(std::move(*one));
  }
  return compiled;
}

}  // namespace qb::suite
