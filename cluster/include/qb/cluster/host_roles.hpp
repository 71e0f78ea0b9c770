// A suite's hosts on the ranks of a job on real devices: each of the suite's hosts is played by
// one rank that sends its flows, one more rank receives every flow and measures, and rank 0
// merges what every rank saw into one run judged against the whole fabric's expectations.
// Which rank plays which part: the suite's `[[fabric.host]]`/`[fabric.receiver]` placements
// (`rank = N`, `hostname = "..."`), else rank h sends host h and the last rank receives.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "qb/cluster/communicator.hpp"
#include "qb/engine/run.hpp"
#include "qb/suite/suite.hpp"

namespace qb::cluster {

struct JobRoles {
  uint32_t hosts = 1;
  uint32_t receiver_rank = 1;
  std::vector<uint32_t> host_ranks;  // host h is sent by rank host_ranks[h]
  /// A fabric job (a suite's [topology]): one rank per host, each sending its host's flows and
  /// receiving those destined to it; no receiver rank (receiver_rank is unused).
  bool fabric = false;

  /// The host `rank` sends; none for the receiver.
  std::optional<uint32_t> host_of(uint32_t rank) const;
  /// The rank whose clock the frames' send times are stamped in: the receiver's, or in a
  /// fabric job (a receiver per flow) rank 0's.
  uint32_t clock_reference() const noexcept { return fabric ? 0 : receiver_rank; }
};

/// Errc::usage (naming the mpirun -np the suite needs) when the job does not have one rank per
/// host plus the receiver.
Status check_job_size(uint32_t hosts, uint32_t ranks);
/// The same for a fabric job: one rank per topology host (at "topology").
Status check_fabric_job_size(uint32_t hosts, uint32_t ranks);

/// The suite's parts on the job's ranks (`rank_hosts[r]`: the machine rank r runs on): the
/// `rank = N` placements first, then the `hostname` ones (the first rank on that machine not
/// placed yet, in rank order), then the parts left over (hosts in order, then the receiver) on
/// the ranks left over, in rank order. Errc::invalid_config at the placement's key when a rank
/// is outside the job or no rank is left on the machine named. `topology_hosts` set: a fabric
/// job of that many hosts and no receiver (the placements are fabric.host_ranks, if any).
Result<JobRoles> place_roles(const suite::FabricSpec& fabric,
                             const std::vector<std::string>& rank_hosts,
                             std::optional<uint32_t> topology_hosts = std::nullopt);

/// Rank 0 places (place_roles over every rank's host name) and every rank gets the same roles,
/// or the same error.
Result<JobRoles> agree_roles(Communicator& comm, const suite::FabricSpec& fabric, const Wait& wait,
                             std::optional<uint32_t> topology_hosts = std::nullopt);

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

/// A sending host's clock against the receiver's: what its frames' send times are corrected by
/// (offset_ns, taken off by the sender's driver) and how far that can be off (bound_ns: the
/// two ranks' bounds to rank 0 added; with an estimate after the run, also how far the offset
/// moved during it and that estimate's bounds, since the correction uses the one from before).
struct HostClockBound {
  uint32_t host = 0;
  uint32_t rank = 0;
  std::string machine;
  int64_t offset_ns = 0;
  int64_t bound_ns = 0;
  /// The offset after the run minus before it (0 without an estimate after).
  int64_t drift_ns = 0;
};
/// `after` (may be null): rank 0's estimate once the run is over.
std::vector<HostClockBound> host_clock_bounds(const JobRoles& roles,
                                              const std::vector<ClockOffset>& offsets,
                                              const std::vector<ClockOffset>* after = nullptr);

/// How fast each rank's clock moved against rank 0's between two estimates `elapsed_ns` apart,
/// in ns per second, and how uncertain that rate is (both estimates' bounds over the time).
struct ClockDrift {
  uint32_t rank = 0;
  double ns_per_s = 0.0;
  double bound_ns_per_s = 0.0;
};
std::vector<ClockDrift> clock_drift(const std::vector<ClockOffset>& before,
                                    const std::vector<ClockOffset>& after, int64_t elapsed_ns);

/// One-way latency across ranks is corrected by the clocks' offset, so it is only as exact as
/// the offset's bound. A figure is flagged when that bound exceeds a tenth of it.
inline constexpr double kLatencyBoundShare = 0.1;

/// A warning naming the hosts whose flows' one-way latency (`median_latency_ns[h]`: the
/// smallest median, from the actual send, of host h's flows; 0: none measured) is smaller than
/// their clock bound over kLatencyBoundShare; nothing when every bound is within that.
std::optional<std::string> uncertain_latency_note(const std::vector<HostClockBound>& hosts,
                                                  const std::vector<int64_t>& median_latency_ns);

/// Every rank's clock minus the receiver's, from rank 0's estimate (`offsets`, empty on the
/// other ranks): what this rank's driver takes off its send timestamps (the receiver: 0).
Result<int64_t> offset_to_receiver(Communicator& comm, const JobRoles& roles,
                                   const std::vector<ClockOffset>& offsets, const Wait& wait);

/// The rank's part: the host it drives (none for the receiver) and its clock offset to the
/// receiver, its start agreed with the others' on every repetition.
engine::HostRole host_role(Communicator& comm, const JobRoles& roles, Wait wait,
                           int64_t offset_to_receiver_ns);

/// A fabric job's flows, per scenario: which rank sends and which receives each flow, and
/// its [[flow]] entry (for the group's latency).
struct FabricFlows {
  std::vector<uint32_t> source_rank;
  std::vector<uint32_t> destination_rank;
  std::vector<uint32_t> group;
  uint32_t groups = 0;
};

/// Every rank runs every repetition; rank 0 keeps the receiver's measurement and adds every
/// rank's driver statistics (prefixed "rank<r>.") and its clock offset. A rank that cannot be
/// heard from leaves `problem` set and rank 0 what it has (the run is then incomplete).
/// `offsets` (rank 0's estimate) must outlive the spread. A fabric job (`roles.fabric`): each
/// flow's measurement (counters, series, latency) from the rank that received it, its posted
/// counts from the rank that sent it (`flows`, per scenario; must outlive the spread).
engine::TaskSpread role_spread(Communicator& comm, const JobRoles& roles, Wait wait,
                               const std::vector<ClockOffset>& offsets, std::string& problem,
                               const std::vector<FabricFlows>* flows = nullptr);

}  // namespace qb::cluster
