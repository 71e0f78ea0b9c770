#include "qb/judge/run_metadata.hpp"

#include <unistd.h>

#include <chrono>
#include <ctime>

namespace qb::judge {
namespace {

std::string utc_now_iso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

std::string host_name() {
  char buffer[256] = {};
  if (gethostname(buffer, sizeof buffer - 1) != 0) return "unknown";
  return buffer;
}

}  // namespace

RunMetadata current_run_metadata(std::vector<Warning> warnings) {
  return RunMetadata{QB_VERSION, host_name(), utc_now_iso8601(), std::move(warnings)};
}

}  // namespace qb::judge
