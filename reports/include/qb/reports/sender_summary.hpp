// What a send-only run (a driver with no receiver, e.g. DPDK with rx_port = "none") can say:
// per flow the messages posted and how many were posted late, and the driver's Tx counters.
// Its receiver, in another process or host, measures and judges the traffic.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "qb/engine/run.hpp"
#include "qb/reports/results.hpp"

namespace qb::report {

struct SenderFlowTotals {
  std::string name;
  uint64_t posted_messages = 0;  // summed over the repetitions, warm-up included
  uint64_t late_posts = 0;
};

struct SenderScenarioTotals {
  std::string name;
  uint32_t repetitions_ran = 0;
  int64_t repetition_ns = 0;  // warm-up + duration asked of each repetition
  double sent_seconds = 0.0;  // summed over the repetitions (an interrupted one: its wall time)
  double tx_frames = 0.0;     // the driver's Tx counters, summed (0 when it reports none)
  double tx_bytes = 0.0;
  double tx_mpps() const { return sent_seconds > 0.0 ? tx_frames / sent_seconds / 1e6 : 0.0; }
  std::vector<SenderFlowTotals> flows;
  Starvation starvation;  // the worst repetition's (starvation_verdict.hpp)
};

std::vector<SenderScenarioTotals> sender_totals(const engine::SuiteRun& run);

/// Prints, per scenario, the warning of a starved sender too.
void print_sender_summary(const engine::SuiteRun& run, std::ostream& out);

/// Whether a sender's worker was starved past the invalid-measurement bound (exit 3).
bool sender_starved_invalid(const engine::SuiteRun& run);

}  // namespace qb::report
