#include "output_flags.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <set>
#include <system_error>

namespace qb::cli {
namespace {

report::ConsoleDetail console_detail(bool quiet) {
  return quiet ? report::ConsoleDetail::verdict : report::ConsoleDetail::full;
}

// main.cpp checked the text already (parse_rate_unit); empty keeps the default.
report::RateUnit rate_unit(const std::string& units) {
  return report::parse_rate_unit(units).value_or(report::RateUnit::gbit_per_s);
}

}  // namespace

Result<std::vector<RunArgs>> runs_of_suites(const RunArgs& args) {
  std::vector<RunArgs> runs;
  if (args.suite_paths.size() <= 1) {
    runs.push_back(args);
    if (!args.suite_paths.empty()) runs.back().suite_path = args.suite_paths.front();
    return runs;
  }
  const std::pair<const char*, const std::string*> one_file_flags[] = {
      {"--json", &args.json_path},
      {"--html", &args.html_path},
      {"--junit", &args.junit_path},
      {"--baseline", &args.baseline_path}};
  for (const auto& [flag, value] : one_file_flags) {
    if (!value->empty()) {
      return make_error(Errc::usage,
                        fmt::format("{} names one file, and {} suites are given: run them one "
                                    "at a time, or give --out DIR (each suite's results go to "
                                    "DIR/<suite file name>.json)",
                                    flag, args.suite_paths.size()),
                        flag);
    }
  }
  if (args.out_dir.empty()) {
    return make_error(Errc::usage,
                      fmt::format("{} suites are given: give --out DIR for their results "
                                  "(DIR/<suite file name>.json each)",
                                  args.suite_paths.size()),
                      "--out");
  }
  std::set<std::string> names;
  for (const std::string& path : args.suite_paths) {
    const std::string name = std::filesystem::path(path).stem().string() + ".json";
    if (!names.insert(name).second) {
      return make_error(Errc::usage,
                        fmt::format("two suites would write {}/{}: give suite files of "
                                    "different names, or run them one at a time",
                                    args.out_dir, name),
                        "--out");
    }
    RunArgs run = args;
    run.suite_path = path;
    run.json_path = (std::filesystem::path(args.out_dir) / name).string();
    runs.push_back(std::move(run));
  }
  return runs;
}

Result<report::OutputRequest> run_outputs(const RunArgs& args) {
  std::string json_path = args.json_path;
  if (!args.out_dir.empty()) {
    // --out's directory is made here, for DIR/results.json or (several suites) DIR/<name>.json.
    std::error_code ec;
    std::filesystem::create_directories(args.out_dir, ec);
    if (ec) {
      return make_error(Errc::io,
                        fmt::format("cannot create '{}': {}", args.out_dir, ec.message()));
    }
    if (json_path.empty())
      json_path = (std::filesystem::path(args.out_dir) / "results.json").string();
  }
  report::OutputRequest request;
  request.files = {{report::OutputFormat::json, std::move(json_path)},
                   {report::OutputFormat::html, args.html_path},
                   {report::OutputFormat::junit, args.junit_path}};
  request.console = console_detail(args.quiet);
  request.console_options.units = rate_unit(args.units);
  return request;
}

report::OutputRequest report_outputs(const ReportArgs& args) {
  report::OutputRequest request;
  request.files = {{report::OutputFormat::html, args.output_path}};
  // Silent as before unless a unit is asked for: then the run's tables, in that unit.
  if (!args.units.empty()) {
    request.console = report::ConsoleDetail::full;
    request.console_options.units = rate_unit(args.units);
  }
  return request;
}

report::OutputRequest compare_outputs(const CompareArgs& args) {
  report::OutputRequest request;
  request.files = {{report::OutputFormat::json, args.json_path},
                   {report::OutputFormat::junit, args.junit_path},
                   {report::OutputFormat::html, args.html_path}};
  request.console = console_detail(args.quiet);
  return request;
}

}  // namespace qb::cli
