// Test hook: QB_TEST_SIM_EVERY_EVENT=1 makes the simulator take every event it can skip (a credit
// return nobody waits for, a sender link freeing with nothing to send, an RTT probe's arrival
// that the receiver NIC answers, the end of a DPA handler that did nothing). Skipping them must
// change nothing but the step count; tests/drivers/every_event_test.sh runs suites both ways and
// compares the results. Read once per process.
#pragma once

#include <cstdlib>
#include <cstring>

namespace qb::drv::sim {

inline bool every_event_for_tests() noexcept {
  static const bool every = [] {
    const char* value = std::getenv("QB_TEST_SIM_EVERY_EVENT");
    return value != nullptr && std::strcmp(value, "1") == 0;
  }();
  return every;
}

}  // namespace qb::drv::sim
