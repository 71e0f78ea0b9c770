#include "qb/engine/run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>

#include "flow_worker.hpp"
#include "live_tap.hpp"
#include "repetition_exchange.hpp"
#include "qb/drivers/registry.hpp"
#include "qb/engine/latency_summary.hpp"
#include "qb/engine/plan_fit.hpp"
#include "qb/engine/run_memory.hpp"

namespace qb::engine {
namespace {

struct Task {
  uint32_t scenario = 0;
  uint32_t repetition = 0;
};

using TaskResult = RepetitionOutcome;

RepetitionLatency percentiles_of(const Histogram& histogram) {
  std::array<int64_t, kHeadlinePercentiles.size()> values{};
  histogram.values_at_percentiles(kHeadlinePercentiles, values);  // one scan for the four
  return RepetitionLatency{histogram.count(), values[0], values[1], values[2], values[3]};
}

// Per-repetition percentiles of every flow and flow group, before the histograms are merged.
void summarise_repetition(const suite::CompiledScenario& compiled, TaskResult& result) {
  for (const auto& latency : result.latency) {
    result.measurement.flow_latency.push_back(percentiles_of(latency.from_scheduled_ns));
  }
  for (uint32_t group = 0; group < compiled.scenario->flows.size(); ++group) {
    Histogram merged;
    for (size_t f = 0; f < compiled.flow_spec.size(); ++f) {
      if (compiled.flow_spec[f] == group) merged.merge(result.latency[f].from_scheduled_ns);
    }
    result.measurement.group_latency.push_back(percentiles_of(merged));
  }
}

// Adds `from` into `into`; an empty `into` takes `from`'s counters instead (no copy: with one
// worker and on a scenario's first repetition, that is every merge, and the end of a run,
// interrupted or not, waits for them).
void absorb(Histogram& into, Histogram&& from) {
  if (into.empty() && from.highest_trackable() == into.highest_trackable() &&
      from.significant_digits() == into.significant_digits()) {
    into = std::move(from);
  } else {
    into.merge(from);
  }
}

Status check(Status status, std::string_view step) {
  if (status) return status;
  Error error = std::move(status).error();
  error.message = fmt::format("driver {} failed: {}", step, error.message);
  return error;
}

// Adds one worker's counters into the repetition's (same flow order and series bins).
void merge_counters(std::vector<FlowCounters>& into, const std::vector<FlowCounters>& from) {
  for (size_t f = 0; f < into.size() && f < from.size(); ++f) {
    FlowCounters& a = into[f];
    const FlowCounters& b = from[f];
    merge_counters(a.counts, b.counts);
    if (a.series_wire_bytes.size() < b.series_wire_bytes.size()) {
      a.series_wire_bytes.resize(b.series_wire_bytes.size(), 0);
    }
    for (size_t i = 0; i < b.series_wire_bytes.size(); ++i) {
      a.series_wire_bytes[i] += b.series_wire_bytes[i];
    }
  }
}

// The flows of `plan` that host `host` sends, ascending.
std::vector<uint32_t> flows_of_host(const policy::QosPlan& plan, uint32_t host) {
  std::vector<uint32_t> flows;
  for (uint32_t f = 0; f < plan.flows.size(); ++f) {
    if (plan.flows[f].host == host) flows.push_back(f);
  }
  return flows;
}

// What a rank of a multi-host job brings to a repetition besides its role: whether its driver
// exchanges endpoints (the probe's capabilities), and an error that stops it before its driver
// is made (a check of run_suite's that failed on this rank only). Every rank must still make
// the repetition's collectives, with that error, so that none waits for it.
struct JobRepetition {
  bool exchanges_endpoints = false;
  std::optional<Error> failed_before;
};

// A fabric job's part: the flows destined to this rank's host, and each flow's receiving rank.
void fabric_part(const policy::QosPlan& plan, const HostRole& role, drv::JobPart& part) {
  part.fabric = true;
  part.receiver = false;
  part.rank = role.rank;
  const auto flows = static_cast<uint32_t>(plan.flows.size());
  part.flow_receiver_rank.assign(flows, 0);
  if (!plan.graph) return;
  for (uint32_t f = 0; f < flows && f < plan.graph->flow_destination.size(); ++f) {
    const uint32_t destination = plan.graph->flow_destination[f];
    if (destination < role.fabric_host_ranks.size()) {
      part.flow_receiver_rank[f] = role.fabric_host_ranks[destination];
    }
    if (role.drive_host && destination == *role.drive_host) part.received_flows.push_back(f);
  }
}

// What the driver opens for a repetition. A rank of a job (`role`): its part (`sent_flows` for
// a sender) and the endpoint exchange its driver takes part in.
drv::Topology topology_of(const ScenarioRun& scenario_run, uint32_t repetition, uint32_t workers,
                          const std::atomic<bool>* interrupted, const HostRole* role,
                          drv::JobExchange* exchange, const std::vector<uint32_t>& sent_flows) {
  const suite::CompiledScenario& compiled = scenario_run.compiled;
  const suite::PortSpec& port = compiled.scenario->port;
  drv::Topology topology;
  topology.port_rate_bps = port.rate_bps;
  topology.wire = port.wire;
  topology.propagation_delay_ns = port.propagation_delay_ns;
  topology.flow_count = static_cast<uint32_t>(compiled.plan.flows.size());
  topology.workers = workers;
  topology.repetition = repetition;
  for (const uint32_t spec : compiled.flow_spec) {
    topology.max_message_bytes =
        std::max(topology.max_message_bytes, compiled.scenario->flows[spec].size.largest_bytes());
  }
  topology.stop = interrupted;
  topology.window_start_ns = scenario_run.warmup_ns;
  topology.window_end_ns = scenario_run.warmup_ns + scenario_run.duration_ns;
  if (role != nullptr) {
    topology.job_clock_offset_ns = role->clock_offset_to_receiver_ns;
    drv::JobPart part;
    part.receiver = !role->drive_host.has_value();
    part.sent_flows = sent_flows;
    part.exchange = exchange;
    if (!role->fabric_host_ranks.empty()) fabric_part(compiled.plan, *role, part);
    topology.job = std::move(part);
  }
  return topology;
}

// The repetition's workers: worker w owns the flows worker_of_flow() gives it (a sending rank
// of a job: those of its host only), each shows the live view when `live` is set.
std::vector<std::unique_ptr<FlowWorker>> make_workers(const ScenarioRun& scenario_run,
                                                      uint32_t repetition, uint32_t workers,
                                                      const drv::Capabilities& caps,
                                                      const RunOptions& options,
                                                      const std::vector<uint32_t>& sent,
                                                      std::optional<LiveTap>& tap) {
  const suite::CompiledScenario& compiled = scenario_run.compiled;
  const auto flow_count = static_cast<uint32_t>(compiled.plan.flows.size());
  const HostRole* role = options.host_role;
  WorkerWindow window;
  window.warmup_ns = scenario_run.warmup_ns;
  window.duration_ns = scenario_run.duration_ns;
  window.bin_ns = scenario_run.bin_ns;
  window.max_outstanding = caps.max_outstanding_per_flow;
  window.virtual_time = caps.virtual_time;
  window.owned_exactly = role != nullptr;
  const uint64_t seed = derive_seed(scenario_run.seed, repetition);
  std::vector<std::unique_ptr<FlowWorker>> flow_workers;
  for (uint32_t w = 0; w < workers; ++w) {
    std::vector<uint32_t> owned;
    for (uint32_t f = 0; f < flow_count; ++f) {
      const bool drives_host = role == nullptr || std::binary_search(sent.begin(), sent.end(), f);
      if (drv::worker_of_flow(f, workers) == w && drives_host) owned.push_back(f);
    }
    flow_workers.push_back(std::make_unique<FlowWorker>(compiled, seed, window, std::move(owned)));
  }
  for (uint32_t w = 0; w < workers; ++w) {
    WorkerLive shown;
    if (tap) {
      shown.tap = &*tap;
      shown.interval_ns =
          options.live_interval_ns.value_or(default_live_interval_ns(scenario_run.duration_ns));
    }
    if (w == 0) shown.progress = options.progress;
    flow_workers[w]->show_live(shown);
  }
  return flow_workers;
}

// After the workers ran: whether the window completed and how long it was, the worst
// starvation, the ages of the messages still outstanding at its end (`sees_outstanding`), and
// every worker's counters and histograms merged into `result`.
void gather_workers(int64_t warmup_ns, bool sees_outstanding,
                    const std::vector<std::unique_ptr<FlowWorker>>& flow_workers,
                    const std::vector<WorkerOutcome>& outcomes,
                    const std::vector<std::vector<FlowCounters>>& counters,
                    std::vector<std::vector<FlowLatency>>& latency, TaskResult& result) {
  const size_t workers = flow_workers.size();
  const size_t flow_count = result.latency.size();
  result.measurement.complete = true;
  result.measurement.measured_ns = 0;
  for (size_t w = 0; w < workers; ++w) {
    result.measurement.complete = result.measurement.complete && outcomes[w].complete;
    result.measurement.starvation.keep_worse(outcomes[w].starvation);
    // Workers stop together (same flag, same deadline): the longest one is the window.
    result.measurement.measured_ns =
        std::max(result.measurement.measured_ns, outcomes[w].measured_ns);
  }
  // Messages still outstanding when the window ended (or the run stopped in it): a flow's
  // deliveries may reach any worker, its posts are its own worker's.
  if (sees_outstanding && result.measurement.measured_ns > 0) {
    std::vector<uint64_t> delivered_next(flow_count, 0);
    for (const auto& worker : flow_workers) {
      const std::vector<uint64_t>& seen = worker->delivered_next();
      for (size_t f = 0; f < flow_count && f < seen.size(); ++f) {
        delivered_next[f] = std::max(delivered_next[f], seen[f]);
      }
    }
    const int64_t window_end_ns = warmup_ns + result.measurement.measured_ns;
    for (size_t w = 0; w < workers; ++w) {
      flow_workers[w]->record_outstanding(delivered_next, window_end_ns, latency[w]);
    }
  }
  for (size_t w = 0; w < workers; ++w) {
    merge_counters(result.measurement.flows, counters[w]);
    for (size_t f = 0; f < flow_count; ++f) {
      absorb(result.latency[f].from_scheduled_ns, std::move(latency[w][f].from_scheduled_ns));
      absorb(result.latency[f].from_sent_ns, std::move(latency[w][f].from_sent_ns));
      absorb(result.latency[f].outstanding_age_ns, std::move(latency[w][f].outstanding_age_ns));
    }
  }
}

// Stops and closes the driver, taking what it counted itself: its stats, the queue depths and
// the drops no receiver saw. A rank of a job (`role`) first waits until every rank's flows
// ended: it keeps its receive side up until no rank sends to it any more. A rank whose stop
// failed is not alone: the other ranks go on to the next repetition, whose start agreement
// this rank's driver, if it is broken, fails for all of them; this one is then incomplete.
Status stop_driver(drv::Driver& d, const HostRole* role, const std::atomic<bool>* interrupted,
                   TaskResult& result) {
  const bool in_job = role != nullptr;
  const Status all_ended = in_job && role->at_end ? role->at_end() : Status{};
  const Status stopped = check(d.stop(), "stop");
  result.measurement.driver_stats = d.stats();
  result.measurement.queue_depth = d.queue_depth_series();
  // Drops reach no receiver: the driver counted them per flow inside the window.
  const std::vector<uint64_t> drops = d.flow_drops();
  for (size_t f = 0; f < drops.size() && f < result.measurement.flows.size(); ++f) {
    result.measurement.flows[f].counts.drops += drops[f];
  }
  d.close();
  // Some rank never ended its flows: this one may have torn down what that rank still sent to.
  if (!all_ended && (interrupted == nullptr || !interrupted->load())) {
    result.measurement.complete = false;
    result.measurement.driver_stats.emplace_back("end_wait_failed", 1.0);
  }
  if (stopped || !in_job) return stopped;
  result.measurement.complete = false;
  result.measurement.driver_stats.emplace_back("stop_failed", 1.0);
  return {};
}

// One repetition of one scenario on a fresh driver instance, with `workers` FlowWorkers: each
// owns every workers-th flow, its own driver queue and clock, and its own counters, merged
// after the run (no locks on the hot path). A rank of a multi-host job (`role`) drives its
// host's flows only.
// `live`: the (serialised) interval sink, empty for none.
Result<TaskResult> run_repetition(const ScenarioRun& scenario_run, uint32_t scenario,
                                  uint32_t repetition, const drv::DriverFactory& factory,
                                  uint32_t workers, const RunOptions& options,
                                  const IntervalSink& live, const JobRepetition& job) {
  const std::atomic<bool>* interrupted = options.interrupted;
  const HostRole* role = options.host_role;
  const auto wall_start = std::chrono::steady_clock::now();
  // A step that fails after a signal asked the run to stop (a wait it gave up, or anything
  // the stop cut short) is the interruption, not an error: the repetition did not run.
  const auto interrupted_error = [&](Status status) -> Result<TaskResult> {
    if (interrupted == nullptr || !interrupted->load()) return std::move(status).error();
    TaskResult not_run;
    not_run.measurement.ran = false;
    not_run.measurement.complete = false;
    return not_run;
  };
  // A rank of a job tells the others how its start went on every path, failures included.
  const auto started = [role](Status status) -> Status {
    if (role == nullptr || !role->at_start) return status;
    return role->at_start(status);
  };
  // The job's endpoint exchange, which every rank makes once (its driver in apply, or
  // settle() for a driver that failed first). Declared before the driver: it outlives it.
  std::optional<RepetitionExchange> exchange;
  // A fabric job's ranks address each other (DPDK: the MACs), whatever the driver.
  const bool exchanges =
      job.exchanges_endpoints || (role != nullptr && !role->fabric_host_ranks.empty());
  if (role != nullptr && role->exchange && exchanges) exchange.emplace(*role);
  // A rank of a job fails alone only after the start agreement; before it, a signal here is
  // this rank's error in that agreement (every rank then skips the repetition together).
  const auto failed_before_driver = [&](Error error) -> Result<TaskResult> {
    if (exchange) (void)exchange->settle(error);
    return interrupted_error(started(std::move(error)));
  };
  if (job.failed_before) return failed_before_driver(*job.failed_before);
  if (role != nullptr && interrupted != nullptr && interrupted->load()) {
    return failed_before_driver(make_error(Errc::runtime, "interrupted"));
  }
  auto driver = factory.create();
  if (!driver) return failed_before_driver(std::move(driver).error());
  drv::Driver& d = **driver;

  const suite::CompiledScenario& compiled = scenario_run.compiled;
  const suite::PortSpec& port = compiled.scenario->port;
  const auto flow_count = static_cast<uint32_t>(compiled.plan.flows.size());
  // A sending rank of a job drives its host's flows only.
  const std::vector<uint32_t> sent_flows = role != nullptr && role->drive_host
                                               ? flows_of_host(compiled.plan, *role->drive_host)
                                               : std::vector<uint32_t>{};
  const drv::Topology topology = topology_of(scenario_run, repetition, workers, interrupted, role,
                                             exchange ? &*exchange : nullptr, sent_flows);
  // After apply, the job's answer to this rank's open and apply: the first rank's error, when
  // any failed. (A failed open takes part with its error; a driver that opened exchanges in
  // apply.)
  const auto settled = [&exchange](Status status) -> Status {
    if (!exchange) return status;
    Status answer = exchange->settle(status);
    return status ? answer : status;
  };
  if (auto s = check(d.open(topology), "open"); !s) {
    if (exchange) (void)exchange->settle(s);
    d.close();
    Error error = std::move(s).error();
    // A driver refusing the port's transport: point at it in the suite.
    if (error.where == "port.transport" && error.loc.line == 0) error.loc = port.transport_loc;
    return interrupted_error(started(std::move(error)));
  }
  const std::optional<policy::QosPlan> host_view =
      role != nullptr ? std::optional(one_host_view(compiled.plan)) : std::nullopt;
  if (auto s = settled(check(d.apply(host_view ? *host_view : compiled.plan), "apply")); !s) {
    d.close();
    return interrupted_error(started(std::move(s)));
  }

  std::optional<LiveTap> tap;
  if (live) tap.emplace(scenario, repetition, workers, compiled.scenario->flows.size(), live);
  const std::vector<std::unique_ptr<FlowWorker>> flow_workers =
      make_workers(scenario_run, repetition, workers, d.capabilities(), options, sent_flows, tap);

  TaskResult result;
  result.measurement.ran = true;
  result.measurement.flows.resize(flow_count);
  result.latency.resize(flow_count);
  std::vector<std::vector<FlowCounters>> counters(workers, std::vector<FlowCounters>(flow_count));
  std::vector<std::vector<FlowLatency>> latency(workers);
  for (auto& l : latency) l.resize(flow_count);
  std::vector<WorkerOutcome> outcomes(workers);
  if (auto s = started(check(d.start(), "start")); !s) {
    (void)d.stop();  // started here but not on another rank: nothing to report of the stop
    d.close();
    return interrupted_error(std::move(s));
  }
  {
    // Worker 0 on this thread (a DPDK driver's main lcore), the others on their own threads.
    auto drive = [&](uint32_t w) {
      outcomes[w] =
          flow_workers[w]->run(d.queue(w), d.clock(w), interrupted, counters[w], latency[w]);
    };
    std::vector<std::jthread> threads;
    for (uint32_t w = 1; w < workers; ++w) threads.emplace_back(drive, w);
    drive(0);
  }
  if (tap) tap->finish();
  // A rank of a multi-host job sees only one side, and a send-only driver none: neither knows
  // which messages are outstanding.
  const bool sees_outstanding = role == nullptr && d.capabilities().receives;
  gather_workers(scenario_run.warmup_ns, sees_outstanding, flow_workers, outcomes, counters,
                 latency, result);
  result.clock = std::string(d.clock(0).name());
  summarise_repetition(compiled, result);
  if (Status stopped = stop_driver(d, role, interrupted, result); !stopped) return stopped.error();
  result.measurement.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return result;
}

// Puts one repetition's outcome into its slot and its latency into the scenario's merged
// histograms; false when it never ran (interrupted before it started). Each slot is written by
// exactly one task and histograms merge commutatively, so the outcome does not depend on the
// job count or on which thread finished first.
bool merge_outcome(SuiteRun& run, RepetitionOutcome&& outcome) {
  ScenarioRun& scenario_run = run.scenarios[outcome.scenario];
  const bool ran = outcome.measurement.ran;
  scenario_run.reps[outcome.repetition] = std::move(outcome.measurement);
  if (!ran) return false;
  outcome.latency.resize(scenario_run.latency.size());
  for (size_t f = 0; f < scenario_run.latency.size(); ++f) {
    absorb(scenario_run.latency[f].from_scheduled_ns,
           std::move(outcome.latency[f].from_scheduled_ns));
    absorb(scenario_run.latency[f].from_sent_ns, std::move(outcome.latency[f].from_sent_ns));
    absorb(scenario_run.latency[f].outstanding_age_ns,
           std::move(outcome.latency[f].outstanding_age_ns));
  }
  run.clock = outcome.clock;
  run.workers = std::max<uint32_t>(run.workers, outcome.workers);
  return true;
}

// A task's number: scenario by scenario, repetition by repetition (TaskSpread).
size_t task_index(const SuiteRun& run, uint32_t scenario, uint32_t repetition) {
  size_t index = repetition;
  for (uint32_t s = 0; s < scenario; ++s) index += run.scenarios[s].reps.size();
  return index;
}

}  // namespace

// Every scenario's run (seed, repetitions, window and bin from the suite and the options) into
// `run`, and the tasks: one per repetition, in scenario order.
std::vector<Task> plan_scenarios(const suite::Suite& suite,
                                 std::vector<suite::CompiledScenario> compiled,
                                 const RunOptions& options, SuiteRun& run) {
  std::vector<Task> tasks;
  for (uint32_t s = 0; s < compiled.size(); ++s) {
    const suite::Scenario& scenario = suite.scenarios[s];
    ScenarioRun scenario_run;
    scenario_run.compiled = std::move(compiled[s]);
    scenario_run.seed = options.seed.value_or(scenario.seed);
    // The simulated switches' marking stream follows --seed too (compile took the suite's).
    if (options.seed) scenario_run.compiled.plan.congestion.seed = *options.seed;
    scenario_run.repetitions = options.repetitions.value_or(scenario.repetitions);
    scenario_run.warmup_ns = scenario.warmup_ns;
    scenario_run.duration_ns = options.duration_ns.value_or(scenario.duration_ns);
    // Series memory (bins x flows x workers) and the results' size stay bounded whatever the
    // duration and bin: the bin is coarsened to keep at most kMaxSeriesBins; bin_ns says which.
    scenario_run.bin_ns = series_bin_ns(scenario.bin_ns, scenario_run.duration_ns);
    scenario_run.requested_bin_ns = scenario.bin_ns;
    scenario_run.reps.resize(scenario_run.repetitions);
    scenario_run.latency.resize(scenario_run.compiled.plan.flows.size());
    for (uint32_t r = 0; r < scenario_run.repetitions; ++r) tasks.push_back(Task{s, r});
    run.scenarios.push_back(std::move(scenario_run));
  }
  return tasks;
}

// A spread run: every process's outcomes (this one's: `mine`, or its error) merged into `run`
// in task order, whatever the process and finishing order: the same merge as one process.
Status merge_spread(const TaskSpread& spread, Result<std::vector<RepetitionOutcome>> mine,
                    SuiteRun& run) {
  auto everyone = spread.exchange(std::move(mine));
  if (!everyone) return std::move(everyone).error();
  std::sort(everyone->begin(), everyone->end(), [](const auto& a, const auto& b) {
    return std::tie(a.scenario, a.repetition) < std::tie(b.scenario, b.repetition);
  });
  for (RepetitionOutcome& outcome : *everyone) {
    if (outcome.scenario >= run.scenarios.size() ||
        outcome.repetition >= run.scenarios[outcome.scenario].reps.size()) {
      return make_error(Errc::runtime,
                        fmt::format("another process sent scenario {} repetition {}, which "
                                    "this suite does not have",
                                    outcome.scenario, outcome.repetition));
    }
    merge_outcome(run, std::move(outcome));
  }
  return {};
}

bool every_repetition_complete(const SuiteRun& run) {
  for (const auto& scenario_run : run.scenarios) {
    for (const auto& rep : scenario_run.reps) {
      if (!rep.ran || !rep.complete) return false;
    }
  }
  return true;
}

// Probes the driver once: a driver that cannot be made fails before any work starts, and only
// drivers in virtual time may run repetitions side by side. What the driver cannot run is known
// before anything opens (DPDK's EAL, a verbs connect wait): an error at the suite's key. A rank
// of a job does not leave alone: its error goes to the first repetition's collectives (every
// rank's options may differ: the lcores a rank's driver may use are its own).
Result<drv::Capabilities> probe_driver(const suite::Suite& suite,
                                       const std::vector<suite::CompiledScenario>& compiled,
                                       const drv::DriverFactory& driver, const RunOptions& options,
                                       SuiteRun& run, JobRepetition& job) {
  auto probe = driver.create();
  if (!probe) return std::move(probe).error();
  const drv::Capabilities caps = (*probe)->capabilities();
  const bool in_job = options.host_role != nullptr;
  job.exchanges_endpoints = caps.exchanges_endpoints;
  if (Status fits = check_plans_fit(suite, compiled, **probe, in_job); !fits) {
    if (!in_job) return std::move(fits).error();
    job.failed_before = std::move(fits).error();
  }
  probe->reset();
  run.sender_only = !caps.receives;
  if (in_job) run.no_data_reason = caps.no_data_between_processes;
  if (options.workers > caps.max_workers) {
    Error too_many =
        make_error(Errc::usage,
                   fmt::format("driver '{}' runs at most {} worker(s) here (asked for {})",
                               run.driver, caps.max_workers, options.workers),
                   "--workers");
    if (!in_job) return too_many;
    job.failed_before = std::move(too_many);
  }
  return caps;
}

Result<SuiteRun> run_suite(const suite::Suite& suite, std::vector<suite::CompiledScenario> compiled,
                           const drv::DriverFactory& driver, const RunOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  SuiteRun run;
  run.driver = driver.name();

  const bool in_job = options.host_role != nullptr;
  JobRepetition job;
  auto caps_found = probe_driver(suite, compiled, driver, options, run, job);
  if (!caps_found) return std::move(caps_found).error();
  const drv::Capabilities caps = *caps_found;

  std::vector<Task> tasks = plan_scenarios(suite, std::move(compiled), options, run);

  uint32_t jobs =
      options.jobs != 0 ? options.jobs : std::max(1U, std::thread::hardware_concurrency());
  if (!caps.virtual_time) jobs = 1;  // real devices: one run at a time
  // A spread run: this process's share of the tasks.
  if (options.spread != nullptr) {
    std::erase_if(tasks, [&](const Task& task) {
      return !options.spread->runs_here(task_index(run, task.scenario, task.repetition));
    });
  }
  jobs = std::min<uint32_t>(jobs, std::max<size_t>(tasks.size(), 1));
  run.jobs = jobs;
  if (options.progress != nullptr) {
    for (const Task& task : tasks) {
      const ScenarioRun& scenario_run = run.scenarios[task.scenario];
      options.progress->add_planned(scenario_run.warmup_ns + scenario_run.duration_ns);
    }
  }
  // Repetitions running side by side hand their intervals over one at a time.
  std::mutex live_mutex;
  IntervalSink live;
  if (options.on_interval) {
    live = [&](const LiveInterval& interval) {
      std::lock_guard lock(live_mutex);
      options.on_interval(interval);
    };
  }
  std::vector<RepetitionOutcome> local_outcomes;
  std::atomic<size_t> next_task{0};
  std::mutex merge_mutex;
  std::optional<Error> first_error;
  uint32_t done = 0;
  auto work = [&] {
    for (size_t t = next_task.fetch_add(1); t < tasks.size(); t = next_task.fetch_add(1)) {
      // A rank of a job takes a signal into the next start agreement instead (run_repetition):
      // leaving here alone would leave the others waiting in it.
      if (!in_job && options.interrupted != nullptr && options.interrupted->load()) return;
      const Task task = tasks[t];
      ScenarioRun& scenario_run = run.scenarios[task.scenario];
      const auto flows = static_cast<uint32_t>(scenario_run.compiled.plan.flows.size());
      const uint32_t workers =
          std::max(1U, std::min(options.workers != 0 ? options.workers : caps.max_workers, flows));
      auto result = run_repetition(scenario_run, task.scenario, task.repetition, driver, workers,
                                   options, live, job);
      std::lock_guard lock(merge_mutex);
      if (!result) {
        if (!first_error) first_error = std::move(result).error();
        next_task.store(tasks.size());  // stop handing out work
        return;
      }
      // In a job every rank got the same start agreement: a repetition that did not run here
      // did not run anywhere, and every rank stops here alike.
      if (in_job && !result->measurement.ran) next_task.store(tasks.size());
      result->scenario = task.scenario;
      result->repetition = task.repetition;
      result->workers = workers;
      const bool ran = result->measurement.ran;
      if (options.spread != nullptr) {
        // Merged once every process's outcomes are in, in task order (below).
        local_outcomes.push_back(std::move(*result));
      } else {
        merge_outcome(run, std::move(*result));
      }
      if (!ran) continue;  // interrupted before it started: nothing measured
      ++done;
      if (options.on_progress) {
        options.on_progress(task.scenario, task.repetition, done,
                            static_cast<uint32_t>(tasks.size()));
      }
    }
  };
  std::vector<std::jthread> threads;
  for (uint32_t j = 1; j < jobs; ++j) threads.emplace_back(work);
  work();
  threads.clear();  // joins

  if (options.spread != nullptr) {
    Result<std::vector<RepetitionOutcome>> mine = std::move(local_outcomes);
    if (first_error) mine = std::move(*first_error);
    if (Status merged = merge_spread(*options.spread, std::move(mine), run); !merged) {
      return std::move(merged).error();
    }
  } else if (first_error) {
    return std::move(*first_error);
  }
  run.interrupted = options.interrupted != nullptr && options.interrupted->load();
  run.complete = every_repetition_complete(run) && !run.interrupted;
  run.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return run;
}

}  // namespace qb::engine
