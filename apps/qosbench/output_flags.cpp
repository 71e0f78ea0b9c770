#include "output_flags.hpp"

#include <fmt/format.h>

#include <filesystem>
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

Result<report::OutputRequest> run_outputs(const RunArgs& args) {
  std::string json_path = args.json_path;
  if (json_path.empty() && !args.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(args.out_dir, ec);
    if (ec) {
      return make_error(Errc::io,
                        fmt::format("cannot create '{}': {}", args.out_dir, ec.message()));
    }
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
