#include "qb/engine/starvation.hpp"

#include <sys/resource.h>

#include <cstdio>

namespace qb::engine {

ThreadSched read_thread_sched() noexcept {
  ThreadSched out;
  // "<cpu time ns> <run-queue wait ns> <timeslices>" (needs schedstats in the kernel).
  if (std::FILE* f = std::fopen("/proc/thread-self/schedstat", "re")) {
    long long cpu_ns = 0;
    long long wait_ns = 0;
    if (std::fscanf(f, "%lld %lld", &cpu_ns, &wait_ns) == 2) {
      out.available = true;
      out.run_delay_ns = wait_ns;
    }
    std::fclose(f);
  }
  rusage usage{};
  if (getrusage(RUSAGE_THREAD, &usage) == 0) out.involuntary_switches = usage.ru_nivcsw;
  return out;
}

}  // namespace qb::engine
