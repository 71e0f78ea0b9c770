// The qosbench subcommands. Each returns the process exit code of the CLI contract:
// 0 all gates pass, 1 a gate failed or a figure regressed against the baseline, 2 usage or config
// error (also an unreadable or incompatible results file), 3 driver/runtime/measurement error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace qb::cli {

// How a baseline comparison is judged (qosbench run --baseline, qosbench compare).
struct CompareOptionsArgs {
  double threshold_pct = 5.0;  // relative change treated as noise, in percent
  double alpha = 0.05;         // significance level of the Mann-Whitney U test
  bool allow_config_change = false;
  bool uncorrected = false;         // no false-discovery-rate correction over the metrics
  bool allow_inconclusive = false;  // INCONCLUSIVE metrics do not fail (exit 0)
};

/// A driver's shorthand flag (drivers/registry.hpp OptionAlias) and the value it was given.
struct DriverAliasValue {
  std::string driver;  // the driver that declares it
  std::string flag;    // "--eal"
  std::string key;     // "eal"
  std::string help;
  bool words = true;
  std::optional<std::string> value;  // set when given
};

struct RunArgs {
  /// The suite files, run one after another; run_command gives each suite's run its own
  /// RunArgs with `suite_path` (and, with several suites, its `json_path`) set.
  std::vector<std::string> suite_paths;
  std::string suite_path;
  std::string driver;
  std::string out_dir;
  std::string json_path;
  std::string html_path;
  std::string junit_path;
  std::string baseline_path;
  CompareOptionsArgs compare;
  std::optional<uint64_t> seed;
  std::optional<uint32_t> repetitions;
  std::string duration;
  uint32_t jobs = 0;
  uint32_t workers = 0;
  /// `--driver-option KEY=VALUE` and the drivers' own flags (`--eal "..."`), in the order the
  /// driver applies them; an alias of a driver that is not the one chosen is ignored.
  std::vector<std::string> driver_options;
  std::vector<DriverAliasValue> driver_aliases;
  bool apply_qos = false;  // --apply-qos: the driver option nic_qos = "apply"
  bool quiet = false;
  std::string units;  // --units: the console's rate unit (reports/console_report.hpp)
  /// --interval: the live lines' interval ("0": none; empty: a tenth of the duration).
  std::string interval;
};

struct ReportArgs {
  std::string results_path;
  std::string output_path;
  std::string baseline_path;
  CompareOptionsArgs compare;
  std::string units;  // --units: also print the console tables, in this rate unit
};

struct CompareArgs {
  std::string baseline_path;
  std::string current_path;
  std::string junit_path;
  std::string json_path;
  std::string html_path;
  CompareOptionsArgs compare;
  bool quiet = false;
};

// qosbench import-opensm: the tables OpenSM would program on one port.
struct ImportOpensmArgs {
  std::string opensm_conf_path;
  std::string qos_policy_path;
  std::string port_type = "ca";
  /// IBA OperationalVLs encoding; unset: min(4 = VL0-VL7, a ConnectX-class CA's VLCap,
  /// opensm.conf's max_op_vls), as OpenSM sets it.
  std::optional<uint8_t> op_vls;
  uint8_t vlarb_high_cap = 8;
  uint8_t vlarb_low_cap = 8;
  bool json = false;
  bool emit_suite = false;  // print a suite's [ib] block instead of the tables
  /// A directory of scripts/opensm-fabric.sh (ibnetdiscover.txt, lfts.txt, port-tables.txt):
  /// print a suite with that [topology], its LFTs and OpenSM's per-port tables.
  std::string fabric_dir;
  std::string rate = "100Gbps";  // with fabric_dir: links whose lines give no speed
  /// With fabric_dir: the ibnetdiscover-format file the fabric was simulated from (ibsim's net);
  /// the suite takes it as its [topology] and its node names (matched by node description).
  std::string net_path;
};

int run_command(const RunArgs& args);
/// 0 when the report was written (whatever the run's verdict), 2 on bad input, 3 on I/O errors.
int report_command(const ReportArgs& args);
int compare_command(const CompareArgs& args);
/// Loads and compiles each suite and makes every check `run` makes before opening a device, on
/// `driver` (empty: the suite's own, skipped with a note where it is unavailable here).
int validate_command(const std::vector<std::string>& paths, const std::string& driver);
int explain_command(const std::string& path, bool json);
int drivers_command();
int import_opensm_command(const ImportOpensmArgs& args);

}  // namespace qb::cli
