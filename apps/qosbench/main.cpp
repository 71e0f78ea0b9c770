// qosbench: the command line. Thin: parse arguments, call the library, map errors to exit codes.
#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdint>
#include <iostream>

#include "commands.hpp"
#include "nic_restore_command.hpp"
#include "qb/drivers/registry.hpp"
#include "qb/reports/console_report.hpp"
#include "stdout_check.hpp"
#include "terminal_safe.hpp"

namespace {

// --threshold, --alpha, --uncorrected, --allow-inconclusive and --allow-config-change, shared by
// run, report and compare.
void add_comparison_options(CLI::App* command, qb::cli::CompareOptionsArgs& args) {
  command
      ->add_option("--threshold", args.threshold_pct,
                   "change (in percent) treated as noise: a regression must exceed it (default 5)")
      ->check(CLI::Range(0.0, 1e6));
  command
      ->add_option("--alpha", args.alpha,
                   "significance level of the Mann-Whitney U test over repetitions (default 0.05)")
      ->check(CLI::Range(1e-9, 0.999999));
  command->add_flag("--uncorrected", args.uncorrected,
                    "test every metric at alpha alone (no Benjamini-Hochberg correction over "
                    "the metrics: more false alarms in suites with many flows)");
  command->add_flag("--allow-inconclusive", args.allow_inconclusive,
                    "do not fail on INCONCLUSIVE metrics (a change beyond the threshold that "
                    "too few repetitions cannot judge)");
  command->add_flag("--allow-config-change", args.allow_config_change,
                    "compare although the suite file changed (scenario and flow names must match)");
}

// CLI11 turns "-1", "1e23" and 2^64 into 2^64-1 without a word: take only decimal digits that
// fit in 64 bits, as the suite file's seed does.
CLI::Validator unsigned_64_bit() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        uint64_t value = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, value);
        if (text.empty() || text.front() < '0' || text.front() > '9' || ec != std::errc{} ||
            ptr != end) {
          return "must be an integer in 0.." + std::to_string(UINT64_MAX) + ", got '" + text + "'";
        }
        return {};
      },
      "UINT64");
}

// --units: Gbit/s, GB/s or Mpps for the console's rate columns.
CLI::Validator rate_unit_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (qb::report::parse_rate_unit(text)) return {};
        return "must be gbit (Gbit/s), gbyte (GB/s) or mpps (Mpps), got '" + text + "'";
      },
      "gbit|gbyte|mpps");
}
constexpr const char* kUnitsHelp =
    "console rate unit: gbit (Gbit/s, default), gbyte (GB/s) or mpps (packets); the JSON keeps "
    "bit/s";

}  // namespace

// Long on purpose: the command line's one table of subcommands and options (CLI11), read top to
// bottom like `qosbench --help`; each command's work is in commands.cpp.
int main(int argc, char** argv) {
  const qb::cli::TerminalSafeStreams terminal_safe_streams;
  CLI::App app{"qosbench: kernel-bypass traffic generator and QoS benchmark for mlx5 and IB/RoCE"};
  app.require_subcommand(1);
  app.set_version_flag("--version", QB_VERSION);

  qb::cli::RunArgs run;
  auto* run_cmd = app.add_subcommand("run", "run a suite and judge it against its gates");
  run_cmd
      ->add_option("suites", run.suite_paths,
                   "suite files (TOML), run one after another; several need --out DIR")
      ->required();
  run_cmd->add_option("--driver", run.driver, "driver (default: the suite's [driver] name)");
  run_cmd->add_option("--out", run.out_dir,
                      "directory for results.json (several suites: <suite file name>.json each)");
  run_cmd->add_option("--json", run.json_path, "write the results JSON here");
  run_cmd->add_option("--seed", run.seed, "override every scenario's seed")
      ->check(unsigned_64_bit());
  run_cmd->add_option("--repetitions", run.repetitions, "override repetitions")
      ->check(CLI::Range(1U, 100000U));
  run_cmd->add_option("--duration", run.duration, "override the measured duration, e.g. 50ms");
  run_cmd->add_option("--jobs", run.jobs, "parallel repetitions (default: all cores)");
  run_cmd->add_option("--workers", run.workers,
                      "workers per repetition (dpdk: one per EAL lcore; default: all it offers)");
  run_cmd->add_option("--driver-option", run.driver_options,
                      "KEY=VALUE: set a key of the driver's [driver.<name>] table (repeatable; "
                      "VALUE is a TOML value or a plain string)");
  run_cmd->add_flag("--apply-qos", run.apply_qos,
                    "verbs, dpdk: program the suite's [eth] on the port for the run and put the "
                    "port's own back after it (the driver option nic_qos = \"apply\")");
  // The drivers' own shorthand flags (e.g. dpdk's --eal), declared by their registry entries.
  for (const auto& driver : qb::drv::driver_registry()) {
    for (const auto& alias : driver.aliases) {
      run.driver_aliases.push_back(
          {driver.name, alias.flag, alias.key, alias.help, alias.words, {}});
    }
  }
  for (auto& alias : run.driver_aliases) {
    run_cmd->add_option(alias.flag, alias.value, alias.driver + ": " + alias.help);
  }
  run_cmd->add_option("--html", run.html_path, "write the HTML report here");
  run_cmd->add_option("--junit", run.junit_path, "write JUnit XML here (one test case per gate)");
  run_cmd->add_option("--baseline", run.baseline_path,
                      "results JSON to compare against: a regression fails the run (exit 1)");
  add_comparison_options(run_cmd, run.compare);
  run_cmd->add_flag("--quiet", run.quiet,
                    "print only the verdict: no interval lines, no progress line");
  run_cmd->add_option("--interval", run.interval,
                      "live per-interval rates on stderr every this much of the measured window "
                      "(like iperf3 -i), e.g. 10ms; 0: none; default: about a tenth of it");
  run_cmd->add_option("--units", run.units, kUnitsHelp)->check(rate_unit_validator());

  qb::cli::ReportArgs report;
  auto* report_cmd = app.add_subcommand(
      "report",
      "write the HTML report of a results file (exit 0 once written, whatever the verdict)");
  report_cmd->add_option("results", report.results_path, "results JSON")->required();
  report_cmd->add_option("-o,--output", report.output_path, "HTML file to write")->required();
  report_cmd->add_option("--baseline", report.baseline_path,
                         "results JSON to compare against (shown in the report)");
  add_comparison_options(report_cmd, report.compare);
  report_cmd
      ->add_option("--units", report.units,
                   std::string("also print the console tables; ") + kUnitsHelp)
      ->check(rate_unit_validator());

  qb::cli::CompareArgs compare;
  auto* compare_cmd = app.add_subcommand(
      "compare",
      "compare two results files: exit 1 on a significant regression beyond the threshold");
  compare_cmd->add_option("baseline", compare.baseline_path, "baseline results JSON")->required();
  compare_cmd->add_option("current", compare.current_path, "current results JSON")->required();
  add_comparison_options(compare_cmd, compare.compare);
  compare_cmd->add_option("--junit", compare.junit_path,
                          "write JUnit XML here (one test case per compared metric)");
  compare_cmd->add_option("--json", compare.json_path, "write the comparison as JSON here");
  compare_cmd->add_option("--html", compare.html_path,
                          "write the HTML report of the current results with the comparison");
  compare_cmd->add_flag("--quiet", compare.quiet, "print only the verdict");

  std::vector<std::string> validate_paths;
  auto* validate_cmd = app.add_subcommand("validate", "check suite files without running them");
  validate_cmd->add_option("suites", validate_paths, "suite files")->required();
  std::string validate_driver;
  validate_cmd->add_option("--driver", validate_driver,
                           "also check what this driver can run (its options, memory, the plan), "
                           "as `run --driver` does before it opens a device");

  std::string explain_path;
  bool explain_as_json = false;
  auto* explain_cmd =
      app.add_subcommand("explain", "print the compiled plan and every flow's expected rate");
  explain_cmd->add_option("suite", explain_path, "suite file")->required();
  explain_cmd->add_flag("--json", explain_as_json, "machine-readable output");

  auto* drivers_cmd = app.add_subcommand("drivers", "list drivers and whether they are available");

  qb::cli::ImportOpensmArgs import_opensm;
  auto* import_opensm_cmd = app.add_subcommand(
      "import-opensm", "print the SL2VL and VLArb tables OpenSM would program on a port");
  import_opensm_cmd->add_option("--opensm-conf", import_opensm.opensm_conf_path, "opensm.conf")
      ->required();
  import_opensm_cmd->add_option(
      "--qos-policy", import_opensm.qos_policy_path,
      "qos-policy.conf: checked as OpenSM checks it (exit 2 on its fatal errors)");
  import_opensm_cmd
      ->add_option("--port-type", import_opensm.port_type,
                   "which option set: ca, swe (switch external), sw0 (switch port 0), rtr")
      ->check(CLI::IsMember({"ca", "swe", "sw0", "rtr"}));
  import_opensm_cmd
      ->add_option("--op-vls", import_opensm.op_vls,
                   "operational VLs, IBA encoding: 1=VL0 2=VL0-1 3=VL0-3 4=VL0-7 5=VL0-14 "
                   "(default: 4, lowered to opensm.conf's max_op_vls as OpenSM does)")
      ->check(CLI::Range(1, 5));
  import_opensm_cmd
      ->add_option("--vlarb-high-cap", import_opensm.vlarb_high_cap,
                   "VLArb high table capacity, 0-64 (default 8)")
      ->check(CLI::Range(0, 64));
  import_opensm_cmd
      ->add_option("--vlarb-low-cap", import_opensm.vlarb_low_cap,
                   "VLArb low table capacity, 0-64 (default 8)")
      ->check(CLI::Range(0, 64));
  auto* import_json =
      import_opensm_cmd->add_flag("--json", import_opensm.json, "machine-readable output");
  import_opensm_cmd
      ->add_flag("--emit-suite", import_opensm.emit_suite,
                 "print an [ib] block to paste into a suite (absolute file paths, the port's "
                 "VLs and capacities) that gives the same tables")
      ->excludes(import_json);
  auto* import_fabric = import_opensm_cmd->add_option(
      "--fabric-dir", import_opensm.fabric_dir,
      "read a fabric OpenSM configured (scripts/opensm-fabric.sh's directory: ibnetdiscover.txt, "
      "lfts.txt, port-tables.txt) and print a suite with its [topology], LFTs and per-port "
      "tables (--json: the tables and routes as read)");
  import_opensm_cmd
      ->add_option("--rate", import_opensm.rate,
                   "with --fabric-dir: the rate of links whose lines give no speed (default "
                   "100Gbps)")
      ->needs(import_fabric);
  import_opensm_cmd
      ->add_option("--net", import_opensm.net_path,
                   "with --fabric-dir: the ibnetdiscover-format file the fabric was simulated "
                   "from (ibsim's net file): the suite's [topology] is that file and names its "
                   "nodes as it does (matched by the node descriptions ibnetdiscover read)")
      ->needs(import_fabric);

  qb::cli::NicRestoreArgs nic_restore;
  auto* nic_restore_cmd = app.add_subcommand(
      "nic-restore",
      "put back the ports' QoS that a run with --apply-qos left changed (killed, or a second "
      "Ctrl-C), from the restore journals it wrote");
  nic_restore_cmd->add_option("ifnames", nic_restore.ifnames,
                              "only these network interfaces (default: every journal)");
  nic_restore_cmd->add_option("--state-dir", nic_restore.state_dir,
                              "the journals' directory (default: $QOSBENCH_STATE_DIR, else "
                              "$XDG_RUNTIME_DIR/qosbench, else /run/qosbench as root)");

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

  return qb::cli::with_checked_stdout([&] {
    if (run_cmd->parsed()) return qb::cli::run_command(run);
    if (report_cmd->parsed()) return qb::cli::report_command(report);
    if (compare_cmd->parsed()) return qb::cli::compare_command(compare);
    if (validate_cmd->parsed()) return qb::cli::validate_command(validate_paths, validate_driver);
    if (explain_cmd->parsed()) return qb::cli::explain_command(explain_path, explain_as_json);
    if (drivers_cmd->parsed()) return qb::cli::drivers_command();
    if (import_opensm_cmd->parsed()) return qb::cli::import_opensm_command(import_opensm);
    if (nic_restore_cmd->parsed()) return qb::cli::nic_restore_command(nic_restore);
    return 2;
  });
}
