#include "commands.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <iostream>

#include "qb/common/units.hpp"
#include "qb/drivers/registry.hpp"
#include "qb/engine/run.hpp"
#include "qb/engine/suite_loader.hpp"
#include "qb/reports/atomic_file.hpp"
#include "qb/reports/console_report.hpp"
#include "qb/reports/explain.hpp"
#include "qb/reports/json_results.hpp"
#include "qb/reports/judge.hpp"

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

}  // namespace

int run_command(const RunArgs& args) {
  auto suite = engine::load_suite_file(args.suite_path);
  if (!suite) return fail(suite.error());
  for (const auto& warning : suite->warnings) print_warning(warning);

  engine::RunOptions options;
  options.driver = args.driver;
  options.seed = args.seed;
  options.repetitions = args.repetitions;
  options.jobs = args.jobs;
  options.interrupted = &g_interrupted;
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

  // Ctrl-C stops the workers; the results gathered so far are written, marked incomplete.
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  auto run = engine::run_suite(*suite, options);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  if (!run) return fail(run.error());
  for (const auto& warning : run->warnings) print_warning(warning);

  auto results = report::judge(*suite, *run);
  if (!results) return fail(results.error());

  std::string json_path = args.json_path;
  if (json_path.empty() && !args.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(args.out_dir, ec);
    if (ec) {
      return fail(
          make_error(Errc::io, fmt::format("cannot create '{}': {}", args.out_dir, ec.message())));
    }
    json_path = (std::filesystem::path(args.out_dir) / "results.json").string();
  }
  if (!json_path.empty()) {
    if (auto written = report::write_file_atomically(json_path, report::results_to_json(*results));
        !written) {
      return fail(written.error());
    }
  }

  if (args.quiet) {
    fmt::print("{}\n", results->passed ? "PASSED" : "FAILED");
  } else {
    report::print_console(*results, std::cout);
  }
  if (!results->complete) return 3;
  return results->passed ? 0 : 1;
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
