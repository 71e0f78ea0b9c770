#include "qb/engine/run_memory.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <thread>
#include <vector>

#include "qb/common/units.hpp"
#include "qb/engine/run.hpp"
#include "qb/suite/compile.hpp"

namespace qb::engine {
namespace {

// Per flow instance, whatever the repetitions: the merged latency histograms and their copies
// in the measurement (flows, groups, classes); and per flow and repetition in flight: the
// worker's two histograms and counters, then the repetition's merged ones. Measured peaks
// (sim, 20 bins): 2048 flows 183 MiB (89 KiB a flow), 65537 flows 2.9 GiB (45 KiB a flow: fewer
// latency samples each); 2 jobs and 8 repetitions add 65 KiB a flow. These constants give
// 177 MiB and 5.6 GiB: close for a few thousand flows, twice the need for the largest suites.
constexpr uint64_t kLatencyBytesPerFlow = 48 * 1024;
constexpr uint64_t kInFlightBytesPerFlow = 32 * 1024;
// Per flow and worker of a repetition in flight: its histograms' objects (their counters take
// memory per page written) and counters for every flow of the plan.
constexpr uint64_t kWorkerBytesPerFlow = 1024;
// Per flow instance: the histogram of its messages outstanding at the window's end (a few
// young ages: a page or two written; estimated, not measured), kept and in flight.
constexpr uint64_t kOutstandingBytesPerFlow = 8 * 1024;
// Per flow and repetition kept until the end: counters and per-repetition percentiles.
constexpr uint64_t kKeptBytesPerFlowRep = 512;
constexpr uint64_t kSeriesBytesPerBin = sizeof(uint64_t);
// The results: per flow its figures and histogram buckets as JSON (4 KiB measured), and per
// series point (flow and group) a number of ~20 characters in the JSON and the HTML.
constexpr uint64_t kResultBytesPerFlow = 4 * 1024;
// Per expectation epoch and flow: its share (a double), kept from compile to the judging.
constexpr uint64_t kEpochBytesPerFlow = sizeof(double);
constexpr uint64_t kResultBytesPerBin = 2 * 20;

// a * b, saturating: the estimate of an absurd suite must not wrap around to a small number.
uint64_t times(uint64_t a, uint64_t b) noexcept {
  uint64_t out = 0;
  return __builtin_mul_overflow(a, b, &out) ? UINT64_MAX : out;
}
uint64_t plus(uint64_t a, uint64_t b) noexcept {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

struct ScenarioEstimate {
  uint64_t kept = 0;       // for the whole run
  uint64_t in_flight = 0;  // one repetition being run
  uint64_t per_rep = 0;    // the part of `kept` that grows with repetitions
  // Parts of `in_flight` that a key other than the flow count drives:
  uint64_t dpa_rings = 0;        // the DPA emulators' event rings ([dpa] threads, queue_events)
  uint64_t message_buffers = 0;  // the driver's per-worker buffers of the largest message
  uint64_t graph_model = 0;      // the simulator's model of a [topology]
};

// Per event a DPA thread may hold: its end time (dpa/emulator thread_queues.cpp).
constexpr uint64_t kDpaBytesPerQueuedEvent = sizeof(uint64_t);

// The emulators a repetition in flight makes (drivers with congestion_model: the simulator):
// the senders' program and, when it has one, the receiver's, each threads x queue_events.
uint64_t dpa_ring_bytes(const suite::Scenario& scenario, const drv::Capabilities& caps) {
  if (!scenario.dpa.present || !caps.congestion_model) return 0;
  const policy::DpaPlan& dpa = scenario.dpa.plan;
  const uint64_t emulators = dpa.receiver_program.empty() ? 1 : 2;
  return times(times(emulators, times(dpa.threads, dpa.queue_events)), kDpaBytesPerQueuedEvent);
}

// A [[flow]] entry's instances: count QPs per (source, destination) pair of a [topology].
uint64_t flow_instances(const suite::FlowSpec& flow) {
  return uint64_t{flow.count} * std::max<uint64_t>(1, flow.endpoints.size());
}

// The simulator's graph model of a [topology] (drivers/sim/graph_model.hpp), per repetition in
// flight: per channel its egress state and, per class, its credit, ring and one FIFO per input
// of its switch; per flow its path; and the packets the switch buffers can hold (at most a
// 64-byte packet per 64 buffer bytes of every class in use, 32 B each). A channel's share
// includes its queue-depth histogram (sim/depth_histogram.hpp: 440 buckets of 8 bytes).
constexpr uint64_t kGraphBytesPerChannel = 512 + 440 * 8;
constexpr uint64_t kGraphBytesPerChannelClass = 48;
constexpr uint64_t kGraphBytesPerFifo = 12;
constexpr uint64_t kGraphBytesPerPacket = 32;
constexpr uint64_t kGraphDefaultBufferBytes = 32 * 1024;
uint64_t graph_model_bytes(const suite::Scenario& scenario) {
  if (!scenario.topology) return 0;
  const fabric::Topology& topology = scenario.topology->topology;
  const uint64_t classes = scenario.eth.present || scenario.ib.present ? 16 : 1;
  uint64_t fifos = 0;
  for (const fabric::Node& node : topology.nodes()) {
    const auto ports = static_cast<uint64_t>(node.out_channel.size());
    fifos = plus(fifos, times(times(ports, ports), classes));
  }
  const uint64_t channels = topology.channel_count();
  // Lossy: each egress class holds at most [fabric] buffer; lossless: each ingress buffer.
  const uint64_t buffer = scenario.fabric.lossy ? static_cast<uint64_t>(scenario.fabric.buffer_bytes)
                          : scenario.topology->buffer_bytes > 0
                              ? static_cast<uint64_t>(scenario.topology->buffer_bytes)
                              : kGraphDefaultBufferBytes;
  const uint64_t packets = times(times(channels, classes), buffer / 64);
  uint64_t flows = 0;
  for (const auto& flow : scenario.flows) flows = plus(flows, flow_instances(flow));
  return plus(plus(times(channels, kGraphBytesPerChannel + classes * kGraphBytesPerChannelClass),
                   times(fifos, kGraphBytesPerFifo)),
              plus(times(packets, kGraphBytesPerPacket), times(flows, 64)));
}

uint32_t largest_message_bytes(const suite::Scenario& scenario) {
  uint32_t largest = 0;
  for (const auto& flow : scenario.flows) largest = std::max(largest, flow.size.largest_bytes());
  return largest;
}

ScenarioEstimate estimate_scenario(const suite::Scenario& scenario, const RunOptions& options,
                                   const drv::Capabilities& caps) {
  uint64_t flows = 0;
  for (const auto& flow : scenario.flows) flows = plus(flows, flow_instances(flow));
  const uint64_t reps = options.repetitions.value_or(scenario.repetitions);
  const int64_t duration_ns = options.duration_ns.value_or(scenario.duration_ns);
  const int64_t bin_ns = series_bin_ns(scenario.bin_ns, duration_ns);
  const auto bins = static_cast<uint64_t>(bin_ns > 0 ? (duration_ns + bin_ns - 1) / bin_ns : 1);
  const uint64_t workers = std::max<uint64_t>(
      1, std::min<uint64_t>(options.workers != 0 ? options.workers : caps.max_workers, flows));
  const uint64_t series = times(bins, kSeriesBytesPerBin);
  ScenarioEstimate out;
  out.per_rep = times(times(flows, reps), plus(kKeptBytesPerFlowRep, series));
  out.kept = plus(plus(times(flows, kLatencyBytesPerFlow + kOutstandingBytesPerFlow), out.per_rep),
                  times(flows, plus(kResultBytesPerFlow, times(bins, kResultBytesPerBin))));
  out.kept = plus(out.kept, times(times(suite::expectation_epoch_count(scenario), flows),
                                  kEpochBytesPerFlow));
  // The worker's ring of scheduled times: one send window of int64 per flow it drives.
  const uint64_t ring =
      times(std::bit_ceil(std::max<uint64_t>(caps.max_outstanding_per_flow, 1)), sizeof(int64_t));
  out.in_flight = times(flows, plus(plus(kInFlightBytesPerFlow + kOutstandingBytesPerFlow, series),
                                    plus(ring, times(workers, kWorkerBytesPerFlow))));
  out.dpa_rings = dpa_ring_bytes(scenario, caps);
  out.message_buffers = times(times(workers, caps.message_buffers_per_worker),
                              largest_message_bytes(scenario));
  out.graph_model = caps.fabric_graph ? graph_model_bytes(scenario) : 0;
  out.in_flight = plus(out.in_flight, plus(plus(out.dpa_rings, out.message_buffers), out.graph_model));
  return out;
}

uint64_t jobs_in_flight(const suite::Suite& suite, const RunOptions& options,
                        const drv::Capabilities& caps) {
  if (!caps.virtual_time) return 1;  // real devices: one repetition at a time
  uint64_t tasks = 0;
  for (const auto& scenario : suite.scenarios) {
    tasks += options.repetitions.value_or(scenario.repetitions);
  }
  const uint64_t jobs =
      options.jobs != 0 ? options.jobs : std::max(1U, std::thread::hardware_concurrency());
  return std::max<uint64_t>(1, std::min(jobs, tasks));
}

std::string gib(uint64_t bytes) {
  return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
}

// Every scenario's estimate, once, and what the run needs in all.
struct RunEstimate {
  std::vector<ScenarioEstimate> scenarios;  // as the suite's
  uint64_t jobs = 1;                        // repetitions in flight at once
  uint64_t needed = 0;                      // bytes
};

RunEstimate estimate_run(const suite::Suite& suite, const RunOptions& options,
                         const drv::Capabilities& caps) {
  RunEstimate out;
  out.jobs = jobs_in_flight(suite, options, caps);
  uint64_t kept = 0;
  uint64_t in_flight = 0;
  for (const auto& scenario : suite.scenarios) {
    out.scenarios.push_back(estimate_scenario(scenario, options, caps));
    kept = plus(kept, out.scenarios.back().kept);
    in_flight = std::max(in_flight, out.scenarios.back().in_flight);
  }
  out.needed = plus(kept, times(out.jobs, in_flight));
  return out;
}

// The refusals, each naming the key to change; `needed` and `bound` open every message.
Error refuse_dpa_rings(const suite::Scenario& scenario, const RunEstimate& run, uint64_t dpa_bytes,
                       uint64_t bound_bytes) {
  const policy::DpaPlan& dpa = scenario.dpa.plan;
  return make_error(
      Errc::invalid_config,
      fmt::format("the run needs about {}, more than the {} it may use (half of this "
                  "machine's physical memory): the DPA emulator's event queues alone take {} "
                  "({} thread(s) x {} queue_events x {} B, per program and repetition in "
                  "flight, {} at once): use fewer queue_events{}",
                  gib(run.needed), gib(bound_bytes), gib(dpa_bytes), dpa.threads, dpa.queue_events,
                  kDpaBytesPerQueuedEvent, run.jobs, run.jobs > 1 ? " (or fewer --jobs)" : ""),
      scenario.dpa.where.empty() ? "dpa.queue_events" : scenario.dpa.where + ".queue_events",
      scenario.dpa.loc);
}

Error refuse_graph_model(const suite::Scenario& scenario, const RunEstimate& run,
                         uint64_t graph_bytes, uint64_t bound_bytes) {
  return make_error(
      Errc::invalid_config,
      fmt::format("the run needs about {}, more than the {} it may use (half of this "
                  "machine's physical memory): the simulated fabric alone takes {} ({} "
                  "channels, their queues and buffers, per repetition in flight, {} at "
                  "once): a smaller topology or buffer{}",
                  gib(run.needed), gib(bound_bytes), gib(graph_bytes),
                  scenario.topology->topology.channel_count(), run.jobs,
                  run.jobs > 1 ? " (or fewer --jobs)" : ""),
      scenario.topology->where, scenario.topology->loc);
}

Error refuse_message_buffers(const suite::Scenario& scenario, const ScenarioEstimate& estimate,
                             const drv::Capabilities& caps, uint64_t needed, uint64_t bound_bytes) {
  const suite::FlowSpec* largest = nullptr;
  for (const auto& flow : scenario.flows) {
    if (largest == nullptr || flow.size.largest_bytes() > largest->size.largest_bytes()) {
      largest = &flow;
    }
  }
  return make_error(
      Errc::invalid_config,
      fmt::format("the run needs about {}, more than the {} it may use (half of this "
                  "machine's physical memory): the driver's registered buffers alone take "
                  "{} ({} per worker of the largest message, {} B): use smaller messages "
                  "(or fewer --workers)",
                  gib(needed), gib(bound_bytes), gib(estimate.message_buffers),
                  caps.message_buffers_per_worker, largest->size.largest_bytes()),
      largest->where + ".size", largest->loc);
}

// The scenario that keeps the most: repetitions when the repetitions kept are most of it,
// else its flow entry with the most instances.
Error refuse_flows_or_repetitions(const suite::Scenario& worst, const ScenarioEstimate& estimate,
                                  const RunOptions& options, uint64_t needed,
                                  uint64_t bound_bytes) {
  uint64_t flows = 0;
  for (const auto& flow : worst.flows) flows = plus(flows, flow_instances(flow));
  const uint32_t repetitions = options.repetitions.value_or(worst.repetitions);
  const std::string figures = fmt::format(
      "the run needs about {} ({} flow instances, {} repetition(s)), more than the {} it may "
      "use (half of this machine's physical memory)",
      gib(needed), flows, repetitions, gib(bound_bytes));
  if (estimate.per_rep > estimate.kept / 2 && repetitions > 1) {
    if (options.repetitions) {
      return make_error(Errc::usage, figures + ": use fewer repetitions", "--repetitions");
    }
    return make_error(Errc::invalid_config, figures + ": use fewer repetitions",
                      worst.repetitions_where.empty() ? "repetitions" : worst.repetitions_where,
                      worst.repetitions_loc);
  }
  const suite::FlowSpec* biggest = nullptr;
  for (const auto& flow : worst.flows) {
    if (biggest == nullptr || flow.count > biggest->count) biggest = &flow;
  }
  if (biggest == nullptr) return make_error(Errc::invalid_config, figures);
  return make_error(
      Errc::invalid_config,
      figures + fmt::format(": use fewer flow instances (this entry has {})", biggest->count),
      biggest->where + ".count", biggest->count_loc.line != 0 ? biggest->count_loc : biggest->loc);
}

}  // namespace

int64_t series_bin_ns(int64_t bin_ns, int64_t duration_ns) noexcept {
  const int64_t fewest_bin_ns = (duration_ns + kMaxSeriesBins - 1) / kMaxSeriesBins;
  return std::max(std::min(bin_ns, duration_ns), fewest_bin_ns);
}

uint64_t estimate_run_bytes(const suite::Suite& suite, const RunOptions& options,
                            const drv::Capabilities& caps) {
  return estimate_run(suite, options, caps).needed;
}

uint64_t run_memory_bound_bytes() noexcept {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_bytes = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_bytes <= 0) return UINT64_MAX;  // unknown: no bound
  return static_cast<uint64_t>(pages) / 2 * static_cast<uint64_t>(page_bytes);
}

Status check_run_memory(const suite::Suite& suite, const RunOptions& options,
                        const drv::Capabilities& caps, uint64_t bound_bytes) {
  const RunEstimate run = estimate_run(suite, options, caps);
  if (run.needed <= bound_bytes) return {};
  // The in-flight parts another key drives, when one is most of what is needed.
  for (size_t i = 0; i < suite.scenarios.size(); ++i) {
    const ScenarioEstimate& e = run.scenarios[i];
    if (times(run.jobs, e.dpa_rings) > run.needed / 2) {
      return refuse_dpa_rings(suite.scenarios[i], run, times(run.jobs, e.dpa_rings), bound_bytes);
    }
    if (times(run.jobs, e.graph_model) > run.needed / 2) {
      return refuse_graph_model(suite.scenarios[i], run, times(run.jobs, e.graph_model),
                                bound_bytes);
    }
    if (e.message_buffers > run.needed / 2) {
      return refuse_message_buffers(suite.scenarios[i], e, caps, run.needed, bound_bytes);
    }
  }
  size_t worst = 0;
  for (size_t i = 1; i < run.scenarios.size(); ++i) {
    if (run.scenarios[i].kept > run.scenarios[worst].kept) worst = i;
  }
  return refuse_flows_or_repetitions(suite.scenarios[worst], run.scenarios[worst], options,
                                     run.needed, bound_bytes);
}

}  // namespace qb::engine
