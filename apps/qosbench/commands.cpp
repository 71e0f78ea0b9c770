#include "commands.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <atomic>
#include <csignal>
#include <iostream>
#include <optional>

#include "output_flags.hpp"
#include "progress.hpp"
#include "qb/common/units.hpp"
#include "qb/drivers/registry.hpp"
#include "qb/engine/run.hpp"
#include "qb/engine/suite_loader.hpp"
#include "qb/reports/compare.hpp"
#include "qb/reports/explain.hpp"
#include "qb/reports/judge.hpp"
#include "qb/reports/reporter_list.hpp"
#include "qb/reports/results_reader.hpp"
#include "qb/reports/sender_summary.hpp"

namespace qb::cli {
namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void on_interrupt(int /*signal*/) {
  g_interrupted.store(true);
}

int fail(const Error& error) {
  fmt::print(std::cerr, "{}\n", error.to_string());
  return exit_code_for(error.code);
}

void print_warning(const policy::Warning& warning) {
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

// Loads and compiles a suite, printing warnings; config errors come back as Error.
Result<std::pair<engine::Suite, std::vector<engine::CompiledScenario>>> load_and_compile(
    const std::string& path) {
  auto suite = engine::load_suite_file(path);
  if (!suite) return std::move(suite).error();
  for (const auto& warning : suite->warnings) print_warning(warning);
  std::vector<policy::Warning> warnings;
  auto compiled = engine::compile_suite(*suite, warnings);
  if (!compiled) return std::move(compiled).error();
  for (const auto& warning : warnings) print_warning(warning);
  return std::pair{std::move(*suite), std::move(*compiled)};
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
                                   .correct_multiple = !args.uncorrected};
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
  auto comparison = report::compare_results(baseline, current, options);
  if (!comparison) {
    Error error = std::move(comparison).error();
    if (error.loc.file.empty()) error.loc.file = baseline_label;
    return error;
  }
  comparison->baseline_label = baseline_label;
  comparison->current_label = current_label;
  return comparison;
}

// --eal "...": split like a shell would for plain words, with '...' and "..." quoting (a devarg
// list such as -a "0000:03:00.0,tx_pp=500" stays one argument).
Result<std::vector<std::string>> split_eal_arguments(const std::string& text) {
  std::vector<std::string> out;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (const char c : text) {
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) out.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quote != 0) return make_error(Errc::usage, "unterminated quote", "--eal");
  if (in_word) out.push_back(std::move(word));
  return out;
}

// A send-only run (its receiver is another process or host): what was sent, nothing judged.
// Results files would hold no measurement, so none is written; the receiver writes them.
int report_sender_only(const engine::SuiteRun& run, const RunArgs& args) {
  for (const auto& [flag, value] :
       {std::pair{"--json", &args.json_path}, std::pair{"--out", &args.out_dir},
        std::pair{"--html", &args.html_path}, std::pair{"--junit", &args.junit_path},
        std::pair{"--baseline", &args.baseline_path}}) {
    if (!value->empty()) {
      fmt::print(stderr,
                 "note: {} ignored: a sender-only run measures nothing; its receiver's "
                 "run writes and judges the results\n",
                 flag);
    }
  }
  if (args.quiet) {
    fmt::print("SENT (sender only, not judged)\n");
  } else {
    report::print_sender_summary(run, std::cout);
  }
  return run.complete ? 0 : 3;
}

}  // namespace

int run_command(const RunArgs& args) {
  auto suite = engine::load_suite_file(args.suite_path);
  if (!suite) return fail(suite.error());
  for (const auto& warning : suite->warnings) print_warning(warning);

  // The baseline is read and checked before anything runs: a bad one costs no run time.
  std::optional<report::Results> baseline;
  std::optional<report::ComparisonOptions> compare_options;
  if (!args.baseline_path.empty()) {
    auto parsed = comparison_options(args.compare);
    if (!parsed) return fail(parsed.error());
    compare_options = *parsed;
    auto read = report::read_results_file(args.baseline_path);
    if (!read) return fail(read.error());
    if (auto ok = report::check_comparable(*read, report::kResultsSchema, suite->name,
                                           suite->config_hash, *compare_options);
        !ok) {
      Error error = std::move(ok).error();
      error.loc.file = args.baseline_path;
      return fail(error);
    }
    baseline = std::move(*read);
  }

  engine::RunOptions options;
  options.driver = args.driver;
  options.seed = args.seed;
  options.repetitions = args.repetitions;
  options.jobs = args.jobs;
  options.workers = args.workers;
  options.interrupted = &g_interrupted;
  if (args.eal) {
    auto eal = split_eal_arguments(*args.eal);
    if (!eal) return fail(eal.error());
    options.eal = std::move(*eal);
  }
  if (!args.duration.empty()) {
    auto duration = parse_duration_ns(args.duration);
    if (!duration) {
      Error error = duration.error();
      error.code = Errc::usage;
      error.where = "--duration";
      return fail(error);
    }
    options.duration_ns = *duration;
  }

  std::optional<ProgressLine> progress;
  if (progress_wanted(args.quiet) && !suite->scenarios.empty()) {
    std::vector<std::string> names;
    std::vector<uint32_t> repetitions;
    for (const auto& scenario : suite->scenarios) {
      names.push_back(scenario.name);
      repetitions.push_back(options.repetitions.value_or(scenario.repetitions));
    }
    progress.emplace(stderr, std::move(names), std::move(repetitions));
    options.on_progress = [&progress](uint32_t scenario, uint32_t /*repetition*/, uint32_t done,
                                      uint32_t total) {
      progress->on_repetition(scenario, done, total);
    };
  }

  // Ctrl-C stops the workers; the results gathered so far are written, marked incomplete.
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  auto run = engine::run_suite(*suite, options);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  if (progress) progress->finish();
  if (!run) return fail(run.error());
  for (const auto& warning : run->warnings) print_warning(warning);
  if (run->sender_only) return report_sender_only(*run, args);

  auto results = report::judge(*suite, *run);
  if (!results) return fail(results.error());

  auto outputs = run_outputs(args);
  if (!outputs) return fail(outputs.error());
  const std::string json_path = outputs->path_of(report::OutputFormat::json);

  std::optional<report::Comparison> comparison;
  if (baseline) {
    auto compared = compare_files(*baseline, *results, *compare_options, args.baseline_path,
                                  json_path.empty() ? "current run" : json_path);
    if (!compared) return fail(compared.error());
    comparison = std::move(*compared);
  }
  const report::Comparison* compared = comparison ? &*comparison : nullptr;
  if (auto failed = write_reports(*outputs, {*results, compared})) return *failed;

  const bool regressed = comparison && comparison->regressed();
  if (!results->complete) return 3;
  return results->passed && !regressed ? 0 : 1;
}

int report_command(const ReportArgs& args) {
  auto results = report::read_results_file(args.results_path);
  if (!results) return fail(results.error());
  std::optional<report::Comparison> comparison;
  if (!args.baseline_path.empty()) {
    auto options = comparison_options(args.compare);
    if (!options) return fail(options.error());
    auto baseline = report::read_results_file(args.baseline_path);
    if (!baseline) return fail(baseline.error());
    auto compared =
        compare_files(*baseline, *results, *options, args.baseline_path, args.results_path);
    if (!compared) return fail(compared.error());
    comparison = std::move(*compared);
  }
  if (auto failed =
          write_reports(report_outputs(args), {*results, comparison ? &*comparison : nullptr})) {
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

  if (auto failed = write_reports(compare_outputs(args),
                                  {*current, &*comparison, report::ReportSubject::comparison})) {
    return *failed;
  }
  return comparison->regressed() ? 1 : 0;
}

int validate_command(const std::vector<std::string>& paths) {
  int exit_code = 0;
  for (const auto& path : paths) {
    auto loaded = load_and_compile(path);
    if (!loaded) {
      exit_code = std::max(exit_code, fail(loaded.error()));
      continue;
    }
    size_t flows = 0;
    for (const auto& compiled : loaded->second) flows += compiled.plan.flows.size();
    fmt::print("{}: ok ({} scenario{}, {} flows)\n", path, loaded->second.size(),
               loaded->second.size() == 1 ? "" : "s", flows);
  }
  return exit_code;
}

int explain_command(const std::string& path, bool json) {
  auto loaded = load_and_compile(path);
  if (!loaded) return fail(loaded.error());
  if (json) {
    fmt::print("{}", report::explain_json(loaded->first, loaded->second));
  } else {
    report::print_explain(loaded->first, loaded->second, std::cout);
  }
  return 0;
}

int drivers_command() {
  for (const auto& driver : drv::driver_registry()) {
    fmt::print("{:<8} {:<12} {}\n", driver.name, driver.available ? "available" : "unavailable",
               driver.available ? driver.description : driver.unavailable_reason);
  }
  return 0;
}

}  // namespace qb::cli
