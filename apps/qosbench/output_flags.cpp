#include "output_flags.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <system_error>

namespace qb::cli {
namespace {

report::ConsoleDetail console_detail(bool quiet) {
  return quiet ? report::ConsoleDetail::verdict : report::ConsoleDetail::full;
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
  return request;
}

report::OutputRequest report_outputs(const ReportArgs& args) {
  report::OutputRequest request;
  request.files = {{report::OutputFormat::html, args.output_path}};
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
