#include "qb/common/job_clock.hpp"

#include <time.h>  // NOLINT: clock_gettime

#include <cstdlib>
#include <string>

namespace qb {
namespace {

int64_t integer_from_environment(const char* name) noexcept {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return 0;
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  return end != nullptr && *end == '\0' ? value : 0;
}

int64_t monotonic_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

int64_t job_clock_ns() noexcept {
  static const int64_t skew_ns = integer_from_environment("QB_TEST_CLOCK_SKEW_NS");
  static const int64_t drift_ppm = integer_from_environment("QB_TEST_CLOCK_DRIFT_PPM");
  static const int64_t first_read_ns = monotonic_ns();
  const int64_t now_ns = monotonic_ns();
  if (drift_ppm == 0) return now_ns + skew_ns;
  return now_ns + skew_ns + (now_ns - first_read_ns) * drift_ppm / 1'000'000;
}

}  // namespace qb
