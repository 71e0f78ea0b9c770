// The processes of one multi-host job (one MPI rank per host) as qosbench needs them: who am I,
// a few collectives on byte strings, and a ping-pong for clock offsets. Every wait is bounded by
// the run's stop flag (Ctrl-C, SIGTERM from mpirun) and an optional deadline, so a rank that
// died or hangs never keeps the others waiting for ever. Calls come from one thread only.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "qb/common/result.hpp"

namespace qb::cluster {

/// How long a collective may wait for the other ranks.
struct Wait {
  const std::atomic<bool>* stop = nullptr;
  /// Once `stop` is set, go on waiting this long: every rank got the signal and is finishing
  /// its part, which the merging rank still wants (partial results).
  std::chrono::milliseconds after_stop{3000};
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual uint32_t rank() const = 0;
  virtual uint32_t size() const = 0;
  /// The host this rank runs on (MPI's processor name).
  virtual const std::string& host_name() const = 0;

  /// Every rank's `mine` in rank order at `root`; an empty list on the other ranks.
  /// Errc::runtime when the wait ends first (naming what it waited for).
  virtual Result<std::vector<std::string>> gather(const std::string& mine, uint32_t root,
                                                  const Wait& wait) = 0;
  /// `root`'s `value` on every rank.
  virtual Result<std::string> broadcast(const std::string& value, uint32_t root,
                                        const Wait& wait) = 0;
  virtual Status barrier(const Wait& wait) = 0;
  /// One ping-pong between rank 0 and `peer` (both call it): rank 0 gets (t0, t_peer, t1) —
  /// its clock before sending, the peer's clock when it answered, its clock when the answer
  /// came — in the clock `now_ns` reads; the peer gets nothing.
  struct PingPong {
    int64_t sent_ns = 0;
    int64_t peer_ns = 0;
    int64_t received_ns = 0;
  };
  virtual Result<PingPong> ping_pong(uint32_t peer, int64_t (*now_ns)(), const Wait& wait) = 0;
  /// Ends every rank of the job with `exit_code` (a rank that cannot go on alone).
  [[noreturn]] virtual void abort(int exit_code) = 0;
};

}  // namespace qb::cluster
