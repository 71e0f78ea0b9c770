#include "commands.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <functional>
#include <iostream>
#include <optional>

#include "apply_qos_flag.hpp"
#include "dpa_drops.hpp"
#include "live_console.hpp"
#include "output_flags.hpp"
#include "qb/cluster/agreement.hpp"
#include "qb/cluster/host_roles.hpp"
#include "qb/cluster/job.hpp"
#include "qb/cluster/sweep.hpp"
#include "qb/common/exit_cleanup.hpp"
#include "qb/common/job_clock.hpp"
#include "qb/common/units.hpp"
#include "qb/dpa/flexio/runtime_status.hpp"
#include "qb/drivers/registry.hpp"
#include "qb/engine/measure.hpp"
#include "qb/engine/run.hpp"
#include "qb/engine/plan_fit.hpp"
#include "qb/engine/run_memory.hpp"
#include "qb/judge/judge.hpp"
#include "qb/judge/run_metadata.hpp"
#include "qb/judge/starvation_verdict.hpp"
#include "qb/judge/verdict.hpp"
#include "qb/judge/window_checks.hpp"
#include "qb/nic/left_changed.hpp"
#include "qb/reports/compare_report.hpp"
#include "qb/reports/explain.hpp"
#include "qb/reports/output_file.hpp"
#include "qb/reports/reporter_list.hpp"
#include "qb/reports/results_reader.hpp"
#include "qb/reports/sender_results.hpp"
#include "qb/reports/sender_summary.hpp"
#include "qb/suite/shortfall.hpp"
#include "qb/suite/suite_loader.hpp"
#include "terminal_safe.hpp"

namespace qb::cli {
namespace {

std::atomic<bool> g_interrupted{false};
// A rank of a job other than rank 0: rank 0 speaks for the job (warnings, errors, reports).
bool g_quiet_rank = false;

// The first SIGINT/SIGTERM asks the run to stop (results so far written, exit 3); a second one
// exits at once with 128 + the signal (130, 143), removing the DPDK runtime directory.
extern "C" void on_interrupt(int signal) {
  if (g_interrupted.exchange(true)) exit_now(128 + signal);
}

// SIGINT/SIGTERM go to on_interrupt from before the run starts until the last report is
// written: a second signal during the write exits at once and removes the temporary file.
class InterruptHandlers {
 public:
  InterruptHandlers() {
    std::signal(SIGINT, on_interrupt);
    std::signal(SIGTERM, on_interrupt);
  }
  ~InterruptHandlers() {
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
  }
  InterruptHandlers(const InterruptHandlers&) = delete;
  InterruptHandlers& operator=(const InterruptHandlers&) = delete;
};

int fail(const Error& error) {
  fmt::print(std::cerr, "{}\n", error.to_string());
  return exit_code_for(error.code);
}

void print_warning(const Warning& warning) {
  if (g_quiet_rank) return;
  std::string location;
  if (!warning.loc.file.empty()) {
    location = warning.loc.file;
    if (warning.loc.line != 0)
      location += fmt::format(":{}:{}", warning.loc.line, warning.loc.column);
    location += ": ";
  }
  fmt::print(std::cerr, "{}warning: {}{}\n", location,
             warning.where.empty() ? "" : warning.where + ": ", warning.message);
}

struct LoadedSuite {
  suite::Suite suite;
  std::vector<suite::CompiledScenario> compiled;
  std::vector<Warning> compile_warnings;
};

// The driver whose port speed a `rate = "auto"` suite takes: the run's, or (validate, explain)
// the suite's own.
using PortDriver = std::function<Result<drv::DriverFactory>(const suite::Suite&)>;

Result<drv::DriverFactory> suite_driver(const suite::Suite& suite) {
  return drv::configure_driver(suite.driver, suite::driver_table(suite, suite.driver));
}

// Load: the suite is read, its [driver.<name>] tables checked by their drivers and an "auto"
// port rate asked of the driver; warnings are printed, config errors come back as Error.
Result<LoadedSuite> load_checked(const std::string& path,
                                 const PortDriver& port_driver = suite_driver) {
  auto suite = suite::load_suite_file(path);
  if (!suite) return std::move(suite).error();
  for (const auto& warning : suite->warnings) print_warning(warning);
  if (auto checked = drv::check_driver_tables(suite->driver_tables); !checked) {
    return std::move(checked).error();
  }
  if (const suite::PortSpec* automatic = suite::first_auto_port(*suite)) {
    auto driver = port_driver(*suite);
    if (!driver) return std::move(driver).error();
    auto rate = driver->port_rate_bps();
    if (!rate) {
      Error error = std::move(rate).error();
      if (error.loc.line == 0) error.loc = automatic->rate_loc;
      return error;
    }
    if (auto resolved = suite::resolve_auto_port_rates(*suite, *rate); !resolved) {
      return std::move(resolved).error();
    }
  }
  return LoadedSuite{std::move(*suite), {}, {}};
}

// Compile every scenario of a loaded suite; warnings are printed, with what the window can
// judge (flows not started in it, limits below its sampling noise) and classes the policy
// starves. `run` passes its --duration and --repetitions, which change the window.
Status compile_loaded(LoadedSuite& loaded, const engine::RunOptions* run = nullptr) {
  std::vector<Warning> warnings;
  auto compiled = suite::compile_suite(loaded.suite, warnings);
  if (!compiled) return std::move(compiled).error();
  for (const suite::CompiledScenario& scenario : *compiled) {
    judge::Window window = judge::window_of(*scenario.scenario);
    if (run != nullptr && run->duration_ns) window.duration_ns = *run->duration_ns;
    if (run != nullptr && run->repetitions) window.repetitions = *run->repetitions;
    for (Warning& warning : suite::starvation_warnings(scenario)) {
      warnings.push_back(std::move(warning));
    }
    for (Warning& warning : judge::window_warnings(scenario, window)) {
      warnings.push_back(std::move(warning));
    }
  }
  for (const auto& warning : warnings) print_warning(warning);
  loaded.compiled = std::move(*compiled);
  loaded.compile_warnings = std::move(warnings);
  return {};
}

Result<LoadedSuite> load_and_compile(const std::string& path) {
  auto loaded = load_checked(path);
  if (!loaded) return loaded;
  if (auto compiled = compile_loaded(*loaded); !compiled) return std::move(compiled).error();
  return loaded;
}

// The driver of the run: --driver or the suite's [driver] name, with its [driver.<name>] table
// amended by the command line (its own flags such as --eal, then --driver-option).
Result<drv::DriverFactory> configure_run_driver(const suite::Suite& suite, const RunArgs& args) {
  const std::string name = args.driver.empty() ? suite.driver : args.driver;
  std::vector<ConfigOverride> overrides;
  for (const DriverAliasValue& alias : args.driver_aliases) {
    if (!alias.value) continue;
    if (alias.driver != name) {
      fmt::print(std::cerr, "note: {} ignored: it is an option of the {} driver, not of {}\n",
                 alias.flag, alias.driver, name);
      continue;
    }
    overrides.push_back(ConfigOverride{alias.key, *alias.value, alias.flag, alias.words});
  }
  for (const std::string& text : args.driver_options) {
    auto parsed = drv::parse_driver_option(text);
    if (!parsed) return std::move(parsed).error();
    overrides.push_back(std::move(*parsed));
  }
  if (args.apply_qos) {
    if (Status s = add_apply_qos(suite::driver_table(suite, name), overrides); !s) {
      return std::move(s).error();
    }
  }
  auto factory = drv::configure_driver(name, suite::driver_table(suite, name), overrides);
  if (!factory && args.apply_qos)
    return explain_apply_qos_refusal(std::move(factory).error(), name);
  return factory;
}

Result<report::ComparisonOptions> comparison_options(const CompareOptionsArgs& args) {
  if (!(args.threshold_pct >= 0.0 && args.threshold_pct < 1e6)) {
    return make_error(Errc::usage, "must be a percentage >= 0", "--threshold");
  }
  if (!(args.alpha > 0.0 && args.alpha < 1.0)) {
    return make_error(Errc::usage, "must be between 0 and 1 (exclusive)", "--alpha");
  }
  return report::ComparisonOptions{.threshold = args.threshold_pct / 100.0,
                                   .alpha = args.alpha,
                                   .allow_config_change = args.allow_config_change,
                                   .correct_multiple = !args.uncorrected,
                                   .allow_inconclusive = args.allow_inconclusive};
}

// Every output's contents is computed before the first is written: bad input writes nothing.
std::optional<int> write_reports(const report::OutputRequest& request,
                                 const report::ReportInput& input) {
  if (auto written = report::reporters_for(request, std::cout).write(input); !written) {
    return fail(written.error());
  }
  return std::nullopt;
}

Result<report::Comparison> compare_files(const report::Results& baseline,
                                         const report::Results& current,
                                         const report::ComparisonOptions& options,
                                         const std::string& baseline_label,
                                         const std::string& current_label) {
  auto comparison = judge::compare_results(baseline, current, options);
  if (!comparison) {
    Error error = std::move(comparison).error();
    if (error.loc.file.empty()) error.loc.file = baseline_label;
    return error;
  }
  comparison->baseline_label = baseline_label;
  comparison->current_label = current_label;
  return comparison;
}

// A send-only run (its receiver is another process or host): what was sent, nothing judged.
// The run's outputs report it as ReportSubject::sender: --json / --out get the sender's results
// (marked sender_only), the console its table; HTML and JUnit decline it (they need a
// measurement), as a baseline does, each with a note.
int report_sender_only(const suite::Suite& suite, const engine::SuiteRun& run,
                       const RunArgs& args) {
  auto outputs = run_outputs(args);
  if (!outputs) return fail(outputs.error());
  const report::SenderResults sent =
      report::sender_results(suite, run, judge::current_run_metadata());
  const report::SenderReport sender{sent, run};
  const report::ReportInput input{sent.run, nullptr, report::ReportSubject::sender, nullptr,
                                  &sender};
  const report::ReporterList reporters = report::reporters_for(*outputs, std::cout);
  // run's file flags are the reporters' names: --html, --junit.
  for (const auto& declined : reporters.declined(input)) {
    fmt::print(std::cerr, "note: --{} ignored: {}\n", declined.reporter, declined.reason);
  }
  if (!args.baseline_path.empty()) {
    fmt::print(std::cerr, "note: --baseline ignored: {}\n", report::kSenderOnlyMeasuresNothing);
  }
  if (auto written = reporters.write(input); !written) return fail(written.error());
  return run.complete && !report::sender_starved_invalid(run) ? 0 : 3;
}

// A job's collectives wait until every rank is there, or a signal (then briefly for the others).
cluster::Wait job_wait() {
  cluster::Wait wait;
  wait.stop = &g_interrupted;
  return wait;
}

// Per sending host, the smallest median one-way latency (from the actual send) of its flows
// over every scenario: the figure a clock bound matters most to (0: none measured).
std::vector<int64_t> median_latency_by_host(const engine::SuiteRun& run,
                                            const engine::SuiteMeasurement& measured,
                                            uint32_t hosts) {
  std::vector<int64_t> median_ns(hosts, 0);
  for (size_t s = 0; s < measured.scenarios.size() && s < run.scenarios.size(); ++s) {
    const auto& plan_flows = run.scenarios[s].compiled.plan.flows;
    const auto& flows = measured.scenarios[s].flows;
    for (size_t f = 0; f < flows.size() && f < plan_flows.size(); ++f) {
      const uint32_t host = plan_flows[f].host;
      const int64_t p50_ns = flows[f].latency_from_sent.p50_ns;
      if (host >= hosts || flows[f].latency_from_sent.count == 0 || p50_ns <= 0) continue;
      if (median_ns[host] == 0 || p50_ns < median_ns[host]) median_ns[host] = p50_ns;
    }
  }
  return median_ns;
}

// Frames whose send stamp, in the receiver's clock, came after their arrival (the receiver's
// rx_stamped_after_arrival, every repetition): the clocks are off by more than those frames'
// latency. A warning saying how many; none when there are none.
std::optional<std::string> stamped_after_arrival_note(const engine::SuiteRun& run) {
  double stamped = 0;
  double received = 0;
  for (const engine::ScenarioRun& scenario : run.scenarios) {
    for (const engine::RepetitionMeasurement& rep : scenario.reps) {
      for (const auto& [key, value] : rep.driver_stats) {
        if (key.ends_with(".rx_stamped_after_arrival")) stamped += value;
        if (key.ends_with(".rx_packets")) received += value;
      }
    }
  }
  if (stamped <= 0) return std::nullopt;
  return fmt::format(
      "{:.0f} of {:.0f} frames carried a send time, in the receiver's clock, after their "
      "arrival: the clocks' offset error or drift is larger than those frames' one-way latency, "
      "so they were counted without a latency (see the per-host bounds above; synchronise the "
      "hosts' clocks with PTP for microsecond latency across hosts)",
      stamped, received);
}

// Ping-pongs per rank for the clock offsets: the smallest round trip of these is kept.
constexpr uint32_t kClockSamples = 200;

// Rank 0 says who does what and how well the clocks compare (one-way latency between hosts
// is only as good as the offset's bound).
void print_job_roles(const cluster::JobRoles& roles,
                     const std::vector<cluster::ClockOffset>& offsets) {
  for (const cluster::ClockOffset& offset : offsets) {
    fmt::print(std::cerr, "rank {} on {}: {}, clock offset to rank 0 {} ns +- {} ns\n", offset.rank,
               terminal_safe(offset.host), cluster::role_of(roles, offset.rank), offset.offset_ns,
               offset.error_bound_ns);
  }
}

// `--interval 0` in any unit ("0", "0s", "0ms"): no interval lines, as documented.
bool no_interval_lines(const std::string& interval) {
  if (interval == "0") return true;
  auto ns = parse_duration_ns(interval, /*allow_zero=*/true);
  return ns && *ns == 0;
}

// What a run needs before it starts, every input checked: the suite (compiled), its driver,
// the baseline and the engine's options.
struct PreparedRun {
  LoadedSuite loaded;
  drv::DriverFactory driver;
  std::optional<report::Results> baseline;
  std::optional<report::ComparisonOptions> compare_options;
  engine::RunOptions options;
  bool virtual_time = false;  // the driver runs in virtual time (a sweep can spread)
};

Result<PreparedRun> prepare_run(const RunArgs& args) {
  // Compiled only once the run is known to fit in memory (compiling expands every flow).
  auto loaded = load_checked(args.suite_path, [&args](const suite::Suite& suite) {
    return configure_run_driver(suite, args);
  });
  if (!loaded) return std::move(loaded).error();
  const suite::Suite* suite = &loaded->suite;
  auto driver = configure_run_driver(*suite, args);
  if (!driver) return std::move(driver).error();

  // The baseline is read and checked before anything runs: a bad one costs no run time.
  std::optional<report::Results> baseline;
  std::optional<report::ComparisonOptions> compare_options;
  if (!args.baseline_path.empty()) {
    auto parsed = comparison_options(args.compare);
    if (!parsed) return std::move(parsed).error();
    compare_options = *parsed;
    auto read = report::read_results_file(args.baseline_path);
    if (!read) return std::move(read).error();
    if (auto ok = report::check_comparable(*read, report::kResultsSchema, suite->name,
                                           suite->config_hash, *compare_options);
        !ok) {
      Error error = std::move(ok).error();
      error.loc.file = args.baseline_path;
      return error;
    }
    baseline = std::move(*read);
  }

  engine::RunOptions options;
  options.seed = args.seed;
  options.repetitions = args.repetitions;
  options.jobs = args.jobs;
  options.workers = args.workers;
  options.interrupted = &g_interrupted;
  if (!args.duration.empty()) {
    auto duration = parse_duration_ns(args.duration);
    if (!duration) {
      Error error = duration.error();
      error.code = Errc::usage;
      error.where = "--duration";
      return error;
    }
    options.duration_ns = *duration;
  }
  if (!args.interval.empty() && !no_interval_lines(args.interval)) {
    auto interval = parse_duration_ns(args.interval);
    // Below a microsecond the lines would outnumber what anyone reads (and slow the run).
    if (interval && *interval < 1'000) {
      interval = make_error(Errc::usage,
                            fmt::format("'{}' is below the smallest interval, 1us", args.interval));
    }
    if (!interval) {
      Error error = interval.error();
      error.code = Errc::usage;
      error.where = "--interval";
      return error;
    }
    options.live_interval_ns = *interval;
  }
  bool virtual_time = false;
  {
    auto probe = driver->create();
    if (!probe) return std::move(probe).error();
    virtual_time = (*probe)->capabilities().virtual_time;
    if (auto fits = engine::check_run_memory(*suite, options, (*probe)->capabilities(),
                                             engine::run_memory_bound_bytes());
        !fits) {
      return std::move(fits).error();
    }
  }
  if (auto compiled = compile_loaded(*loaded, &options); !compiled) {
    return std::move(compiled).error();
  }
  return PreparedRun{std::move(*loaded), std::move(*driver), std::move(baseline),
                     compare_options,    std::move(options), virtual_time};
}

// Two placements that put the same part on the same rank (or machine).
bool same_placement(const suite::RankPlacement& a, const suite::RankPlacement& b) {
  return a.rank == b.rank && a.hostname == b.hostname;
}

// What a job on real devices is made of: the fabric whose placements it follows, and for a
// suite's [topology] (a fabric job: every rank sends and receives) its host count.
struct JobShape {
  const suite::FabricSpec* fabric = nullptr;
  std::optional<uint32_t> topology_hosts;
};

// On real devices each rank plays one of the suite's hosts or the receiver (a [topology]: one
// of its hosts, sending and receiving): every scenario must have as many hosts, placed on the
// same ranks.
Result<JobShape> job_fabric(const PreparedRun& prepared, uint32_t ranks) {
  const suite::Scenario& first = *prepared.loaded.compiled.front().scenario;
  const uint32_t hosts = prepared.loaded.compiled.front().plan.host_count();
  const bool fabric_job = prepared.loaded.compiled.front().plan.graph != nullptr;
  for (const auto& compiled : prepared.loaded.compiled) {
    const suite::FabricSpec& fabric = compiled.scenario->fabric;
    if ((compiled.plan.graph != nullptr) != fabric_job) {
      return make_error(Errc::usage,
                        fmt::format("scenario '{}' {} a [topology] where the first {}: a job "
                                    "runs one kind of fabric throughout",
                                    compiled.scenario->name, fabric_job ? "has no" : "has",
                                    fabric_job ? "has one" : "has none"),
                        compiled.scenario->where.empty() ? "topology"
                                                         : compiled.scenario->where + ".topology",
                        compiled.scenario->loc);
    }
    if (compiled.plan.host_count() != hosts) {
      return make_error(Errc::usage,
                        fmt::format("scenario '{}' has {} hosts where the first has {}: a job "
                                    "runs one rank per host, the same hosts in every scenario",
                                    compiled.scenario->name, compiled.plan.host_count(), hosts),
                        fabric_job ? "topology" : "fabric.hosts");
    }
    const bool same = std::equal(fabric.host_ranks.begin(), fabric.host_ranks.end(),
                                 first.fabric.host_ranks.begin(), first.fabric.host_ranks.end(),
                                 same_placement) &&
                      same_placement(fabric.receiver_rank, first.fabric.receiver_rank);
    if (!same) {
      return make_error(Errc::invalid_config,
                        fmt::format("scenario '{}' places its hosts on other ranks than the "
                                    "first scenario: a job keeps one rank per part throughout",
                                    compiled.scenario->name),
                        fabric.where, fabric.loc);
    }
  }
  if (fabric_job) {
    // Rank i plays the topology's host i: placements are not read beside a [topology] yet,
    // and there is no receiver to place (docs/multi-host.md, "Not yet").
    const suite::RankPlacement* placed =
        !first.fabric.host_ranks.empty()  ? &first.fabric.host_ranks.front()
        : first.fabric.receiver_rank.given() ? &first.fabric.receiver_rank
                                             : nullptr;
    if (placed != nullptr) {
      return make_error(Errc::invalid_config,
                        "a [topology] job runs host i on rank i, every rank sending and "
                        "receiving: it reads no [[fabric.host]] or [fabric.receiver] placement "
                        "(yet); remove it",
                        placed->where, placed->loc);
    }
    if (auto fits = cluster::check_fabric_job_size(hosts, ranks); !fits) {
      Error error = std::move(fits).error();
      if (first.topology) {  // the suite's topology says how many hosts: point at it
        error.where = first.topology->where;
        error.loc = first.topology->loc;
      }
      return error;
    }
    return JobShape{&first.fabric, hosts};
  }
  if (auto fits = cluster::check_job_size(hosts, ranks); !fits) return std::move(fits).error();
  return JobShape{&first.fabric, std::nullopt};
}

// A fabric job's flows on its ranks, per scenario: who sends and who receives each. A flow
// whose destination no rank plays is the suite's error, at the flow.
Result<std::vector<cluster::FabricFlows>> fabric_flows(const PreparedRun& prepared,
                                                       const cluster::JobRoles& roles) {
  std::vector<cluster::FabricFlows> all;
  for (const auto& compiled : prepared.loaded.compiled) {
    cluster::FabricFlows flows;
    const policy::QosPlan& plan = compiled.plan;
    flows.groups = static_cast<uint32_t>(compiled.scenario->flows.size());
    for (uint32_t f = 0; f < plan.flows.size(); ++f) {
      const uint32_t source = plan.flows[f].host;
      const uint32_t destination =
          plan.graph && f < plan.graph->flow_destination.size() ? plan.graph->flow_destination[f]
                                                                : roles.hosts;
      const uint32_t group = f < compiled.flow_spec.size() ? compiled.flow_spec[f] : 0;
      if (source >= roles.host_ranks.size() || destination >= roles.host_ranks.size()) {
        const suite::FlowSpec& spec = compiled.scenario->flows[group];
        return make_error(Errc::invalid_config,
                          fmt::format("flow '{}' goes from host {} to host {}, and no rank of "
                                      "the job plays host {} (the job's {} ranks play hosts 0 "
                                      "to {})",
                                      plan.flows[f].name, source, destination,
                                      source >= roles.host_ranks.size() ? source : destination,
                                      roles.host_ranks.size(), roles.host_ranks.size() - 1),
                          spec.where + ".to", spec.loc);
      }
      flows.source_rank.push_back(roles.host_ranks[source]);
      flows.destination_rank.push_back(roles.host_ranks[destination]);
      flows.group.push_back(group);
    }
    all.push_back(std::move(flows));
  }
  return all;
}

// What the live console shows and how: the status line and colour on a terminal only, and
// only on the process that reports; interval lines where the counters are.
LiveConsoleOptions live_console_options(const RunArgs& args, bool reporting, bool measures_here) {
  LiveConsoleOptions console;
  console.status_line = reporting && stderr_is_terminal();
  console.intervals = measures_here && !no_interval_lines(args.interval);
  console.style.colour = stderr_is_terminal() && colour_allowed();
  console.style.unit = report::parse_rate_unit(args.units).value_or(report::RateUnit::gbit_per_s);
  return console;
}

std::vector<LiveScenario> live_scenarios(const suite::Suite& suite,
                                         const engine::RunOptions& options) {
  std::vector<LiveScenario> scenarios;
  for (const auto& scenario : suite.scenarios) {
    LiveScenario shown;
    shown.name = terminal_safe(scenario.name);
    shown.repetitions = options.repetitions.value_or(scenario.repetitions);
    shown.labels.scenario = shown.name;
    shown.labels.repetitions = shown.repetitions;
    for (const auto& flow : scenario.flows) shown.labels.groups.push_back(terminal_safe(flow.name));
    shown.labels.interval_ns = options.live_interval_ns.value_or(
        engine::default_live_interval_ns(options.duration_ns.value_or(scenario.duration_ns)));
    scenarios.push_back(std::move(shown));
  }
  return scenarios;
}

// Rank 0's second clock estimate, after the run (every rank takes part; bounded: a rank that
// is gone costs 10 s, not the job), printed against the first; nullopt when it failed.
std::optional<std::vector<cluster::ClockOffset>> clocks_after_run(
    cluster::Communicator& comm, const std::vector<cluster::ClockOffset>& before, int64_t before_ns,
    bool reporting) {
  cluster::Wait wait = job_wait();
  wait.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  auto after = cluster::estimate_clock_offsets(comm, kClockSamples, wait);
  if (!after) {
    if (reporting) {
      fmt::print(std::cerr,
                 "warning: the clocks could not be compared after the run ({}): "
                 "their drift is unknown\n",
                 after.error().message);
    }
    return std::nullopt;
  }
  if (!reporting) return std::vector<cluster::ClockOffset>{};
  const auto drifts = cluster::clock_drift(before, *after, job_clock_ns() - before_ns);
  for (size_t i = 1; i < after->size() && i < drifts.size(); ++i) {
    fmt::print(std::cerr,
               "rank {} after the run: clock offset to rank 0 {} ns +- {} ns (moved {:+} ns, "
               "{:+.1f} ns/s +- {:.1f})\n",
               (*after)[i].rank, (*after)[i].offset_ns, (*after)[i].error_bound_ns,
               (*after)[i].offset_ns - before[i].offset_ns, drifts[i].ns_per_s,
               drifts[i].bound_ns_per_s);
  }
  return std::move(*after);
}

// Each rank's offset after the run and how much it moved, in every repetition's driver
// statistics beside the offset from before (rank<r>.clock_offset_ns).
void add_clock_drift_stats(engine::SuiteRun& run, const std::vector<cluster::ClockOffset>& before,
                           const std::vector<cluster::ClockOffset>& after) {
  for (engine::ScenarioRun& scenario : run.scenarios) {
    for (engine::RepetitionMeasurement& rep : scenario.reps) {
      for (size_t i = 0; i < before.size() && i < after.size(); ++i) {
        const std::string prefix = fmt::format("rank{}.", after[i].rank);
        rep.driver_stats.emplace_back(prefix + "clock_offset_after_ns",
                                      static_cast<double>(after[i].offset_ns));
        rep.driver_stats.emplace_back(prefix + "clock_offset_after_error_ns",
                                      static_cast<double>(after[i].error_bound_ns));
      }
    }
  }
}

// Every rank of a job must reach the same collectives: a rank's own error goes to rank 0 in
// the start agreement instead of ending that rank alone.
Status agree_in_job(cluster::Communicator& comm, const Result<PreparedRun>& prepared) {
  cluster::Readiness ready;
  if (!prepared) {
    ready.error = prepared.error();
  } else {
    ready.suite_hash = prepared->loaded.suite.config_hash;
    ready.suite_name = prepared->loaded.suite.name;
    ready.driver = prepared->driver.name();
    if (!prepared->virtual_time && comm.rank() == 0) {
      if (auto fabric = job_fabric(*prepared, comm.size()); !fabric) {
        ready.job_error = fabric.error();
      }
    }
  }
  return cluster::agree_to_start(comm, ready, job_wait());
}

// Where this process stands in a job, set before the run; the engine's hooks point into it.
struct JobPart {
  std::optional<engine::TaskSpread> spread;
  std::string spread_problem;
  std::optional<engine::HostRole> host_role;
  std::optional<cluster::JobRoles> roles;
  std::vector<cluster::ClockOffset> clock_offsets;
  int64_t offsets_taken_ns = 0;
  std::vector<cluster::FabricFlows> fabric_flows;  // a fabric job's, per scenario
};

// A rank's part before the run: on virtual time its share of the (scenario, repetition) runs;
// otherwise one rank per part, placed, clocks compared, then every repetition starts together.
// Sets the engine's hooks in `prepared.options`; the exit code when it failed.
std::optional<int> join_job_part(PreparedRun& prepared, cluster::Communicator* comm, bool reporting,
                                 JobPart& part) {
  engine::RunOptions& options = prepared.options;
  if (comm != nullptr && prepared.virtual_time) {
    part.spread = cluster::sweep_spread(*comm, job_wait(), part.spread_problem);
  } else if (comm != nullptr) {
    auto shape = job_fabric(prepared, comm->size());
    if (!shape) return g_quiet_rank ? exit_code_for(shape.error().code) : fail(shape.error());
    auto placed =
        cluster::agree_roles(*comm, *shape->fabric, job_wait(), shape->topology_hosts);
    if (!placed) return g_quiet_rank ? exit_code_for(placed.error().code) : fail(placed.error());
    part.roles = std::move(*placed);
    if (part.roles->fabric) {
      // Every rank knows the same plans and roles: the same answer everywhere.
      auto flows = fabric_flows(prepared, *part.roles);
      if (!flows) return g_quiet_rank ? exit_code_for(flows.error().code) : fail(flows.error());
      part.fabric_flows = std::move(*flows);
    }
    auto offsets = cluster::estimate_clock_offsets(*comm, kClockSamples, job_wait());
    if (!offsets) return fail(offsets.error());
    part.clock_offsets = std::move(*offsets);
    part.offsets_taken_ns = job_clock_ns();
    if (reporting) print_job_roles(*part.roles, part.clock_offsets);
    auto offset = cluster::offset_to_receiver(*comm, *part.roles, part.clock_offsets, job_wait());
    if (!offset) return fail(offset.error());
    part.host_role = cluster::host_role(*comm, *part.roles, job_wait(), *offset);
    options.host_role = &*part.host_role;
    part.spread = cluster::role_spread(*comm, *part.roles, job_wait(), part.clock_offsets,
                                       part.spread_problem, &part.fabric_flows);
  }
  if (part.spread) options.spread = &*part.spread;
  return std::nullopt;
}

// The live console, when wanted: interval lines come from the process that measures them
// (every rank of a sweep shows its own repetitions; in a multi-host job, the receiving rank);
// the status line from rank 0.
void attach_live_console(const RunArgs& args, const suite::Suite& suite, bool reporting,
                         const JobPart& part, engine::RunOptions& options,
                         engine::RunProgress& run_progress, std::optional<LiveConsole>& live) {
  // A fabric job's ranks all measure (their own flows): rank 0's lines stand for the job's.
  const bool measures_here =
      !part.host_role || (part.roles && part.roles->fabric ? reporting
                                                            : !part.host_role->drive_host);
  const LiveConsoleOptions console = live_console_options(args, reporting, measures_here);
  if (!live_wanted(args.quiet) || !(console.status_line || console.intervals) ||
      suite.scenarios.empty()) {
    return;
  }
  live.emplace(stderr, console, live_scenarios(suite, options), &run_progress);
  options.progress = &run_progress;
  if (console.intervals) {
    options.on_interval = [&live](const engine::LiveInterval& interval) {
      live->on_interval(interval);
    };
  }
  options.on_progress = [&live](uint32_t scenario, uint32_t /*repetition*/, uint32_t done,
                                uint32_t total) { live->on_repetition(scenario, done, total); };
}

// A multi-host job's clocks: each host's one-way latency bound on the console, and in the
// results' warnings (which the console prints with the results, as a suite's) what they make
// uncertain.
void add_job_clock_warnings(const engine::SuiteRun& run, const engine::SuiteMeasurement& measured,
                            const JobPart& part,
                            const std::optional<std::vector<cluster::ClockOffset>>& offsets_after,
                            std::vector<Warning>& warnings) {
  const auto bounds = cluster::host_clock_bounds(*part.roles, part.clock_offsets,
                                                 offsets_after ? &*offsets_after : nullptr);
  for (const cluster::HostClockBound& host : bounds) {
    if (part.roles->fabric) {
      // Frames are stamped in rank 0's clock: a flow's one-way latency is within its two
      // hosts' bounds added.
      fmt::print(std::cerr,
                 "host {} (rank {}): clock against rank 0's within +- {} ns (the clock offsets' "
                 "bounds{}); a flow's one-way latency is within its two hosts' bounds added\n",
                 host.host, host.rank, host.bound_ns,
                 offsets_after ? fmt::format(", and {:+} ns moved during the run", host.drift_ns)
                               : std::string(", the drift during the run unknown"));
      continue;
    }
    fmt::print(std::cerr,
               "host {} (rank {}): one-way latency to the receiver within +- {} ns (the clock "
               "offsets' bounds{})\n",
               host.host, host.rank, host.bound_ns,
               offsets_after ? fmt::format(", and {:+} ns moved during the run", host.drift_ns)
                             : std::string(", the drift during the run unknown"));
  }
  if (auto note = stamped_after_arrival_note(run)) {
    warnings.push_back(Warning{std::move(*note), "fabric.hosts", {}});
  }
  if (auto note = cluster::uncertain_latency_note(
          bounds, median_latency_by_host(run, measured, part.roles->hosts))) {
    warnings.push_back(Warning{std::move(*note), "fabric.hosts", {}});
  }
}

// Rank 0 after a full run: measure, judge, compare with the baseline, write the reports; the
// exit code.
int judge_and_report(const RunArgs& args, const PreparedRun& prepared, const engine::SuiteRun& run,
                     const JobPart& part,
                     const std::optional<std::vector<cluster::ClockOffset>>& offsets_after) {
  const suite::Suite& suite = prepared.loaded.suite;
  const engine::SuiteMeasurement measured = engine::measure(run);
  std::vector<Warning> warnings = prepared.loaded.compile_warnings;
  if (part.host_role) add_job_clock_warnings(run, measured, part, offsets_after, warnings);
  // An overloaded DPA: said in the results' warnings; past the bound the run cannot pass.
  const bool dpa_overloaded = warn_dpa_drops(run, warnings);
  auto results =
      judge::judge_run(suite, run, measured, judge::current_run_metadata(std::move(warnings)));
  if (!results) return fail(results.error());
  // A port this run could not put back (nic_qos = "apply") fails it: exit 3, said first.
  results->nic_left_changed = nic::take_ports_left_changed();
  if (dpa_overloaded || !results->nic_left_changed.empty()) {
    results->passed = false;
    results->verdict = judge::verdict_of(*results);  // says it is an invalid measurement
  }

  auto outputs = run_outputs(args);
  if (!outputs) return fail(outputs.error());
  const std::string json_path = outputs->path_of(report::OutputFormat::json);

  std::optional<report::Comparison> comparison;
  if (prepared.baseline) {
    auto compared =
        compare_files(*prepared.baseline, *results, *prepared.compare_options, args.baseline_path,
                      json_path.empty() ? "current run" : json_path);
    if (!compared) return fail(compared.error());
    comparison = std::move(*compared);
  }
  const report::Comparison* compared = comparison ? &*comparison : nullptr;
  if (auto failed = write_reports(*outputs, {*results, compared, report::ReportSubject::results,
                                             prepared.baseline ? &*prepared.baseline : nullptr})) {
    return *failed;
  }

  const bool regressed = comparison && comparison->failed();
  if (!results->complete || report::starved_invalid(*results) || dpa_overloaded ||
      !results->nic_left_changed.empty()) {
    return 3;
  }
  return results->passed && !regressed ? 0 : 1;
}

// The run itself, from a prepared suite: `comm` set when this process is a rank of a job.
int run_prepared(const RunArgs& args, PreparedRun& prepared, cluster::Communicator* comm) {
  const suite::Suite& suite = prepared.loaded.suite;
  engine::RunOptions& options = prepared.options;
  const bool reporting = comm == nullptr || comm->rank() == 0;
  JobPart part;
  if (auto failed = join_job_part(prepared, comm, reporting, part)) return *failed;
  engine::RunProgress run_progress;
  std::optional<LiveConsole> live;
  attach_live_console(args, suite, reporting, part, options, run_progress, live);

  // Ctrl-C stops the workers; the results gathered so far are written, marked incomplete.
  const InterruptHandlers handlers;
  auto run =
      engine::run_suite(suite, std::move(prepared.loaded.compiled), prepared.driver, options);
  if (live) live->finish();
  // The clocks once more, on every rank: how far they moved during the run.
  std::optional<std::vector<cluster::ClockOffset>> offsets_after;
  if (part.host_role) {
    offsets_after = clocks_after_run(*comm, part.clock_offsets, part.offsets_taken_ns, reporting);
    if (run && offsets_after) add_clock_drift_stats(*run, part.clock_offsets, *offsets_after);
  }
  if (!part.spread_problem.empty()) {
    fmt::print(std::cerr, "warning: {}; the results hold what reached this rank (incomplete)\n",
               part.spread_problem);
  }
  if (!reporting) {
    // Rank 0 reports, errors of this rank included (they travelled with the outcomes).
    return run ? 0 : exit_code_for(run.error().code);
  }
  if (!run) return fail(run.error());
  // A job's rank 0 holds the receiver's measurement, whatever its own driver's role.
  if (part.host_role) run->sender_only = false;
  if (run->sender_only) {
    const int code = report_sender_only(suite, *run, args);
    return nic::take_ports_left_changed().empty() ? code : 3;  // said on stderr at close
  }
  return judge_and_report(args, prepared, *run, part, offsets_after);
}

}  // namespace

// run: load -> compile -> configure the driver -> run -> measure -> judge -> report, each step
// explicit, for each suite file in turn. Under mpirun (a job): every rank prepares, they agree
// to start, the simulator's (scenario, repetition) runs are spread over the ranks, and rank 0
// merges, judges and reports.
int run_command(const RunArgs& args) {
  auto job = cluster::join_job();
  if (!job) return fail(job.error());
  cluster::Communicator* comm = job->get();
  g_quiet_rank = comm != nullptr && comm->rank() != 0;
  auto runs = runs_of_suites(args);
  if (!runs) return fail(runs.error());
  // Every suite is loaded and checked before the first one runs: a typo in the last file
  // must not cost the time of the others (or leave half the results written).
  std::vector<Result<PreparedRun>> prepared;
  for (const RunArgs& run : *runs) {
    prepared.push_back(prepare_run(run));
    if (comm != nullptr) {
      if (auto agreed = agree_in_job(*comm, prepared.back()); !agreed) {
        return g_quiet_rank ? exit_code_for(agreed.error().code) : fail(agreed.error());
      }
    }
    if (!prepared.back()) return fail(prepared.back().error());
  }
  // The highest code wins (0 pass < 1 gate failed < 3 run-time trouble), as a job's ranks do.
  int code = 0;
  uint32_t passed = 0;
  for (size_t i = 0; i < runs->size() && !g_interrupted.load(); ++i) {
    const int suite_code = run_prepared((*runs)[i], *prepared[i], comm);
    passed += suite_code == 0 ? 1 : 0;
    code = std::max(code, suite_code);
  }
  if (runs->size() > 1 && !g_quiet_rank && !args.quiet) {
    fmt::print(std::cout, "{} suites: {} passed, {} did not{}\n", runs->size(), passed,
               runs->size() - passed, g_interrupted.load() ? " (interrupted)" : "");
  }
  if (comm == nullptr) return code;
  // mpirun may kill this rank as soon as another exits with an error: nothing of a driver's
  // (DPDK runtime files) may be left for exit handlers by then.
  drv::release_driver_processes();
  return cluster::agree_exit_code(*comm, code, job_wait());
}

int report_command(const ReportArgs& args) {
  auto results = report::read_results_file(args.results_path);
  if (!results) return fail(results.error());
  std::optional<report::Comparison> comparison;
  std::optional<report::Results> baseline;
  if (!args.baseline_path.empty()) {
    auto options = comparison_options(args.compare);
    if (!options) return fail(options.error());
    auto read = report::read_results_file(args.baseline_path);
    if (!read) return fail(read.error());
    baseline = std::move(*read);
    auto compared =
        compare_files(*baseline, *results, *options, args.baseline_path, args.results_path);
    if (!compared) return fail(compared.error());
    comparison = std::move(*compared);
  }
  if (auto failed =
          write_reports(report_outputs(args),
                        {*results, comparison ? &*comparison : nullptr,
                         report::ReportSubject::results, baseline ? &*baseline : nullptr})) {
    return *failed;
  }
  return 0;
}

int compare_command(const CompareArgs& args) {
  auto options = comparison_options(args.compare);
  if (!options) return fail(options.error());
  auto baseline = report::read_results_file(args.baseline_path);
  if (!baseline) return fail(baseline.error());
  auto current = report::read_results_file(args.current_path);
  if (!current) return fail(current.error());
  auto comparison =
      compare_files(*baseline, *current, *options, args.baseline_path, args.current_path);
  if (!comparison) return fail(comparison.error());

  if (auto failed =
          write_reports(compare_outputs(args),
                        {*current, &*comparison, report::ReportSubject::comparison, &*baseline})) {
    return *failed;
  }
  return comparison->failed() ? 1 : 0;
}

// What `run` checks before it opens a device, for the driver the run would use: its options
// parse, the run fits in memory, and it can run every scenario's plan (exit 2 at the key).
Status check_on_driver(const LoadedSuite& loaded, const drv::DriverFactory& factory) {
  auto probe = factory.create();
  if (!probe) return std::move(probe).error();
  if (auto fits = engine::check_run_memory(loaded.suite, {}, (*probe)->capabilities(),
                                           engine::run_memory_bound_bytes());
      !fits) {
    return fits;
  }
  return engine::check_plans_fit(loaded.suite, loaded.compiled, **probe, false);
}

int validate_command(const std::vector<std::string>& paths, const std::string& driver_name) {
  int exit_code = 0;
  for (const auto& path : paths) {
    // --driver: that driver's port speed for an "auto" rate, as `run --driver` would take it.
    const PortDriver port_driver = [&](const suite::Suite& suite) {
      return driver_name.empty() ? suite_driver(suite)
                                 : drv::configure_driver(driver_name,
                                                         suite::driver_table(suite, driver_name));
    };
    auto loaded = load_checked(path, port_driver);
    if (loaded) {
      if (auto compiled = compile_loaded(*loaded); !compiled) loaded = std::move(compiled).error();
    }
    if (loaded) {
      // The suite's own driver when no --driver: skipped with a note where this build or
      // machine cannot make it (its keys were still checked when loaded).
      auto factory = port_driver(loaded->suite);
      if (!factory && driver_name.empty() && factory.error().code == Errc::unavailable) {
        fmt::print(std::cerr, "{}: note: the {} driver's checks were skipped: {}\n", path,
                   loaded->suite.driver, factory.error().message);
      } else if (!factory) {
        loaded = std::move(factory).error();
      } else if (Status fits = check_on_driver(*loaded, *factory); !fits) {
        loaded = std::move(fits).error();
      }
    }
    if (!loaded) {
      exit_code = std::max(exit_code, fail(loaded.error()));
      continue;
    }
    size_t flows = 0;
    for (const auto& compiled : loaded->compiled) flows += compiled.plan.flows.size();
    fmt::print(std::cout, "{}: ok ({} scenario{}, {} flows{})\n", path, loaded->compiled.size(),
               loaded->compiled.size() == 1 ? "" : "s", flows,
               driver_name.empty() ? "" : ", on driver " + driver_name);
  }
  return exit_code;
}

int explain_command(const std::string& path, bool json) {
  auto loaded = load_and_compile(path);
  if (!loaded) return fail(loaded.error());
  if (json) {
    fmt::print("{}", report::explain_json(loaded->suite, loaded->compiled));
  } else {
    report::print_explain(loaded->suite, loaded->compiled, std::cout);
  }
  return 0;
}

int drivers_command() {
  for (const auto& driver : drv::driver_registry()) {
    fmt::print("{:<8} {:<12} {}\n", driver.name, driver.available ? "available" : "unavailable",
               driver.available ? driver.description : driver.unavailable_reason);
    if (driver.available && driver.machine_status) {
      fmt::print("{:<21} {}\n", "", driver.machine_status());
    }
  }
  fmt::print("{}\n", dpa::flexio::dpa_runtimes_line());
  fmt::print("{:<8} {}\n", "mpi", cluster::mpi_status());
  return 0;
}

}  // namespace qb::cli
