// The qosbench subcommands. Each returns the process exit code of the CLI contract:
// 0 all gates pass, 1 a gate failed, 2 usage or config error, 3 driver/runtime/measurement error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace qb::cli {

struct RunArgs {
  std::string suite_path;
  std::string driver;
  std::string out_dir;
  std::string json_path;
  std::optional<uint64_t> seed;
  std::optional<uint32_t> repetitions;
  std::string duration;
  uint32_t jobs = 0;
  bool quiet = false;
};

int run_command(const RunArgs& args);
int validate_command(const std::vector<std::string>& paths);
int explain_command(const std::string& path, bool json);
int drivers_command();

}  // namespace qb::cli
