// qosbench: the command line. Thin: parse arguments, call the library, map errors to exit codes.
#include <CLI/CLI.hpp>
#include <iostream>

#include "commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"qosbench: kernel-bypass traffic generator and QoS benchmark for mlx5 and IB/RoCE"};
  app.require_subcommand(1);
  app.set_version_flag("--version", QB_VERSION);

  qb::cli::RunArgs run;
  auto* run_cmd = app.add_subcommand("run", "run a suite and judge it against its gates");
  run_cmd->add_option("suite", run.suite_path, "suite file (TOML)")->required();
  run_cmd->add_option("--driver", run.driver, "driver (default: the suite's [driver] name)");
  run_cmd->add_option("--out", run.out_dir, "directory for results.json");
  run_cmd->add_option("--json", run.json_path, "write the results JSON here");
  run_cmd->add_option("--seed", run.seed, "override every scenario's seed");
  run_cmd->add_option("--repetitions", run.repetitions, "override repetitions")
      ->check(CLI::Range(1U, 100000U));
  run_cmd->add_option("--duration", run.duration, "override the measured duration, e.g. 50ms");
  run_cmd->add_option("--jobs", run.jobs, "parallel repetitions (default: all cores)");
  run_cmd->add_flag("--quiet", run.quiet, "print only the verdict");

  std::vector<std::string> validate_paths;
  auto* validate_cmd = app.add_subcommand("validate", "check suite files without running them");
  validate_cmd->add_option("suites", validate_paths, "suite files")->required();

  std::string explain_path;
  bool explain_as_json = false;
  auto* explain_cmd =
      app.add_subcommand("explain", "print the compiled plan and every flow's expected rate");
  explain_cmd->add_option("suite", explain_path, "suite file")->required();
  explain_cmd->add_flag("--json", explain_as_json, "machine-readable output");

  auto* drivers_cmd = app.add_subcommand("drivers", "list drivers and whether they are available");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;  // usage error, per the CLI contract
  }

  if (run_cmd->parsed()) return qb::cli::run_command(run);
  if (validate_cmd->parsed()) return qb::cli::validate_command(validate_paths);
  if (explain_cmd->parsed()) return qb::cli::explain_command(explain_path, explain_as_json);
  if (drivers_cmd->parsed()) return qb::cli::drivers_command();
  return 2;
}
