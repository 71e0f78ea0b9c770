#include "qb/common/job_clock.hpp"

#include <time.h>  // NOLINT: clock_gettime

#include <cstdlib>
#include <string>

namespace qb {
namespace {

int64_t skew_from_environment() noexcept {
  const char* text = std::getenv("QB_TEST_CLOCK_SKEW_NS");
  if (text == nullptr || *text == '\0') return 0;
  char* end = nullptr;
  const long long skew = std::strtoll(text, &end, 10);
  return end != nullptr && *end == '\0' ? skew : 0;
}

}  // namespace

int64_t job_clock_ns() noexcept {
  static const int64_t skew_ns = skew_from_environment();
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec + skew_ns;
}

}  // namespace qb
