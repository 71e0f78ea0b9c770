// A suite's hosts on the ranks of a job on real devices: rank h (h < hosts) sends the flows of
// the suite's host h, rank `hosts` receives every flow and measures, and rank 0 merges what
// every rank saw into one run judged against the whole fabric's expectations.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "qb/cluster/communicator.hpp"
#include "qb/engine/run.hpp"

namespace qb::cluster {

struct JobRoles {
  uint32_t hosts = 1;
  uint32_t receiver_rank = 1;  // == hosts
};

/// Errc::usage (naming the mpirun -np the suite needs) when the job does not have one rank per
/// host plus the receiver.
Result<JobRoles> assign_roles(uint32_t hosts, uint32_t ranks);
std::string role_of(const JobRoles& roles, uint32_t rank);  // "host 1 (sender)", "receiver"

/// Another rank's steady clock minus rank 0's, from the ping-pong with the smallest round trip:
/// the true offset is within error_bound_ns (half that round trip) of offset_ns.
struct ClockOffset {
  uint32_t rank = 0;
  std::string host;
  int64_t offset_ns = 0;
  int64_t error_bound_ns = 0;
  int64_t min_rtt_ns = 0;
};
/// On rank 0: one entry per rank (rank 0's own is 0 ± 0); empty on the others.
Result<std::vector<ClockOffset>> estimate_clock_offsets(Communicator& comm, uint32_t samples,
                                                        const Wait& wait);

/// The receiver's one-way latency compares a sender's timestamp with its own clock: across
/// hosts that is off by the clocks' offset, measured but not corrected. A note saying so, with
/// each such sender's offset to the receiver and its bound, when a sender runs on another host
/// than the receiver (the last rank); nothing when all share one host (one clock).
std::optional<std::string> cross_host_latency_note(const std::vector<ClockOffset>& offsets);

/// The rank's part: the host it drives (none for the receiver), its start agreed with the
/// others' on every repetition.
engine::HostRole host_role(Communicator& comm, const JobRoles& roles, Wait wait);

/// Every rank runs every repetition; rank 0 keeps the receiver's measurement and adds every
/// rank's driver statistics (prefixed "rank<r>.") and its clock offset. A rank that cannot be
/// heard from leaves `problem` set and rank 0 what it has (the run is then incomplete).
/// `offsets` (rank 0's estimate) must outlive the spread.
engine::TaskSpread role_spread(Communicator& comm, const JobRoles& roles, Wait wait,
                               const std::vector<ClockOffset>& offsets, std::string& problem);

}  // namespace qb::cluster
