#include "qb/cluster/host_roles.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>

#include "error_wire.hpp"
#include "qb/cluster/fabric_merge.hpp"
#include "qb/cluster/agreement.hpp"
#include "qb/common/job_clock.hpp"
#include "sweep_wire.hpp"

namespace qb::cluster {
namespace {

// How long a rank waits at a repetition's start for the others: opening a device (a DPDK
// EAL, an RDMA device) takes seconds, not minutes.
constexpr std::chrono::seconds kStartWait{120};

}  // namespace

Status check_job_size(uint32_t hosts, uint32_t ranks) {
  if (ranks != hosts + 1) {
    return make_error(Errc::usage,
                      fmt::format("the suite has {} sending host{} and one receiver: run it on "
                                  "{} ranks (mpirun -np {}), one per host, not {}",
                                  hosts, hosts == 1 ? "" : "s", hosts + 1, hosts + 1, ranks),
                      "fabric.hosts");
  }
  return {};
}

Status check_fabric_job_size(uint32_t hosts, uint32_t ranks) {
  if (ranks != hosts) {
    return make_error(Errc::usage,
                      fmt::format("the suite's topology has {} host{}, each sending and "
                                  "receiving: run it on {} ranks (mpirun -np {}), one per host, "
                                  "not {}",
                                  hosts, hosts == 1 ? "" : "s", hosts, hosts, ranks),
                      "topology");
  }
  return {};
}

std::optional<uint32_t> JobRoles::host_of(uint32_t rank) const {
  for (uint32_t host = 0; host < host_ranks.size(); ++host) {
    if (host_ranks[host] == rank) return host;
  }
  return std::nullopt;
}

Result<JobRoles> place_roles(const suite::FabricSpec& fabric,
                             const std::vector<std::string>& rank_hosts,
                             std::optional<uint32_t> topology_hosts) {
  const auto ranks = static_cast<uint32_t>(rank_hosts.size());
  const bool in_fabric = topology_hosts.has_value();
  const uint32_t hosts = topology_hosts.value_or(fabric.hosts);
  if (auto fits = in_fabric ? check_fabric_job_size(hosts, ranks) : check_job_size(hosts, ranks);
      !fits) {
    return std::move(fits).error();
  }
  // Part p < hosts is host p; part `hosts` is the receiver (none in a fabric job).
  std::vector<const suite::RankPlacement*> placements(hosts + (in_fabric ? 0 : 1), nullptr);
  for (uint32_t host = 0; host < fabric.host_ranks.size() && host < hosts; ++host) {
    placements[host] = &fabric.host_ranks[host];
  }
  if (!in_fabric && fabric.receiver_rank.given()) placements[hosts] = &fabric.receiver_rank;

  constexpr uint32_t kUnplaced = std::numeric_limits<uint32_t>::max();
  std::vector<uint32_t> rank_of_part(placements.size(), kUnplaced);
  std::vector<bool> taken(ranks, false);
  const auto refuse = [](const suite::RankPlacement& placement, const char* key,
                         std::string message) {
    return make_error(Errc::invalid_config, std::move(message), placement.where + "." + key,
                      placement.loc);
  };
  for (size_t part = 0; part < placements.size(); ++part) {
    const suite::RankPlacement* placement = placements[part];
    if (placement == nullptr || !placement->rank) continue;
    if (*placement->rank >= ranks) {
      return refuse(*placement, "rank",
                    fmt::format("rank {} is outside the job: its ranks are 0 to {}",
                                *placement->rank, ranks - 1));
    }
    rank_of_part[part] = *placement->rank;
    taken[*placement->rank] = true;
  }
  for (size_t part = 0; part < placements.size(); ++part) {
    const suite::RankPlacement* placement = placements[part];
    if (placement == nullptr || placement->hostname.empty()) continue;
    uint32_t rank = 0;
    while (rank < ranks && (taken[rank] || rank_hosts[rank] != placement->hostname)) ++rank;
    if (rank == ranks) {
      std::string machines;
      for (uint32_t r = 0; r < ranks; ++r) {
        machines += fmt::format("{}rank {} on {}", r == 0 ? "" : ", ", r, rank_hosts[r]);
      }
      return refuse(
          *placement, "hostname",
          fmt::format("no rank left on '{}' (the job's ranks: {})", placement->hostname, machines));
    }
    rank_of_part[part] = rank;
    taken[rank] = true;
  }
  uint32_t next_free = 0;
  for (uint32_t& rank : rank_of_part) {
    if (rank != kUnplaced) continue;
    while (taken[next_free]) ++next_free;  // as many parts as ranks: one is always left
    rank = next_free;
    taken[rank] = true;
  }
  JobRoles roles;
  roles.hosts = hosts;
  roles.fabric = in_fabric;
  if (in_fabric) {
    roles.receiver_rank = 0;  // unused
    roles.host_ranks = std::move(rank_of_part);
  } else {
    roles.receiver_rank = rank_of_part.back();
    roles.host_ranks.assign(rank_of_part.begin(), rank_of_part.end() - 1);
  }
  return roles;
}

Result<JobRoles> agree_roles(Communicator& comm, const suite::FabricSpec& fabric, const Wait& wait,
                             std::optional<uint32_t> topology_hosts) {
  auto hosts = comm.gather(comm.host_name(), 0, wait);
  if (!hosts) return std::move(hosts).error();
  // "ok", the receiver's rank ("f": a fabric job, none), then host h's rank for every h; or an
  // error as the wire has it.
  std::string decision;
  if (comm.rank() == 0) {
    auto placed = place_roles(fabric, *hosts, topology_hosts);
    if (!placed) {
      decision = encode_error(placed.error());
    } else {
      decision = placed->fabric ? fmt::format("ok{}f", kSeparator)
                                : fmt::format("ok{}{}", kSeparator, placed->receiver_rank);
      for (const uint32_t rank : placed->host_ranks) {
        decision += fmt::format("{}{}", kSeparator, rank);
      }
    }
  }
  auto agreed = comm.broadcast(decision, 0, wait);
  if (!agreed) return std::move(agreed).error();
  if (agreed->empty() || agreed->front() == 'e') return decode_error(*agreed, 0);
  const auto fields = split_fields(*agreed);
  JobRoles roles;
  roles.hosts = static_cast<uint32_t>(fields.size() - 2);
  roles.fabric = fields[1] == "f";
  roles.receiver_rank = roles.fabric ? 0 : field_number<uint32_t>(fields[1]);
  for (size_t f = 2; f < fields.size(); ++f)
    roles.host_ranks.push_back(field_number<uint32_t>(fields[f]));
  return roles;
}

std::string role_of(const JobRoles& roles, uint32_t rank) {
  if (roles.fabric) {
    if (auto host = roles.host_of(rank)) return fmt::format("host {} (sends and receives)", *host);
    return "no part";
  }
  if (rank == roles.receiver_rank) return "receiver";
  if (auto host = roles.host_of(rank)) return fmt::format("host {} (sender)", *host);
  return "no part";
}

Result<std::vector<ClockOffset>> estimate_clock_offsets(Communicator& comm, uint32_t samples,
                                                        const Wait& wait) {
  auto hosts = comm.gather(comm.host_name(), 0, wait);
  if (!hosts) return std::move(hosts).error();
  std::vector<ClockOffset> out;
  if (comm.rank() == 0) out.push_back(ClockOffset{0, (*hosts)[0], 0, 0, 0});
  for (uint32_t peer = 1; peer < comm.size(); ++peer) {
    ClockOffset best{peer, comm.rank() == 0 ? (*hosts)[peer] : "", 0, 0,
                     std::numeric_limits<int64_t>::max()};
    for (uint32_t i = 0; i < samples; ++i) {
      auto sample = comm.ping_pong(peer, job_clock_ns, wait);
      if (!sample) return std::move(sample).error();
      if (comm.rank() != 0) continue;
      const int64_t rtt_ns = sample->received_ns - sample->sent_ns;
      if (rtt_ns < best.min_rtt_ns) {
        best.min_rtt_ns = rtt_ns;
        // The peer read its clock somewhere inside the round trip: the middle is the estimate,
        // half the round trip the most it can be off.
        best.offset_ns = sample->peer_ns - (sample->sent_ns + rtt_ns / 2);
        best.error_bound_ns = (rtt_ns + 1) / 2;
      }
    }
    if (comm.rank() == 0) out.push_back(best);
  }
  return out;
}

std::vector<HostClockBound> host_clock_bounds(const JobRoles& roles,
                                              const std::vector<ClockOffset>& offsets,
                                              const std::vector<ClockOffset>* after) {
  std::vector<HostClockBound> hosts;
  const uint32_t reference = roles.clock_reference();
  if (reference >= offsets.size()) return hosts;
  const bool drift_known = after != nullptr && after->size() == offsets.size();
  const ClockOffset& receiver = offsets[reference];
  for (uint32_t host = 0; host < roles.host_ranks.size(); ++host) {
    const uint32_t rank = roles.host_ranks[host];
    if (rank >= offsets.size()) continue;
    const ClockOffset& sender = offsets[rank];
    HostClockBound bound{host, rank, sender.host, sender.offset_ns - receiver.offset_ns,
                         sender.error_bound_ns + receiver.error_bound_ns, 0};
    if (drift_known) {
      const ClockOffset& sender_after = (*after)[rank];
      const ClockOffset& receiver_after = (*after)[reference];
      bound.drift_ns = (sender_after.offset_ns - receiver_after.offset_ns) - bound.offset_ns;
      // The offset during the run was somewhere between the two estimates (a clock's rate
      // changes slowly): off by the change at most, each estimate within its bounds.
      bound.bound_ns += (bound.drift_ns < 0 ? -bound.drift_ns : bound.drift_ns) +
                        sender_after.error_bound_ns + receiver_after.error_bound_ns;
    }
    hosts.push_back(bound);
  }
  return hosts;
}

std::vector<ClockDrift> clock_drift(const std::vector<ClockOffset>& before,
                                    const std::vector<ClockOffset>& after, int64_t elapsed_ns) {
  std::vector<ClockDrift> drifts;
  if (elapsed_ns <= 0) return drifts;
  const double seconds = static_cast<double>(elapsed_ns) / 1e9;
  for (size_t i = 0; i < before.size() && i < after.size(); ++i) {
    ClockDrift drift;
    drift.rank = before[i].rank;
    drift.ns_per_s = static_cast<double>(after[i].offset_ns - before[i].offset_ns) / seconds;
    drift.bound_ns_per_s =
        static_cast<double>(after[i].error_bound_ns + before[i].error_bound_ns) / seconds;
    drifts.push_back(drift);
  }
  return drifts;
}

std::optional<std::string> uncertain_latency_note(const std::vector<HostClockBound>& hosts,
                                                  const std::vector<int64_t>& median_latency_ns) {
  std::string uncertain;
  for (const HostClockBound& host : hosts) {
    if (host.host >= median_latency_ns.size() || median_latency_ns[host.host] <= 0) continue;
    const int64_t median_ns = median_latency_ns[host.host];
    if (static_cast<double>(host.bound_ns) <= kLatencyBoundShare * static_cast<double>(median_ns)) {
      continue;
    }
    uncertain += fmt::format("{}host {} (rank {} on {}): +- {} ns against a median of {} ns",
                             uncertain.empty() ? "" : "; ", host.host, host.rank, host.machine,
                             host.bound_ns, median_ns);
  }
  if (uncertain.empty()) return std::nullopt;
  return fmt::format(
      "one-way latency across ranks is corrected by the clocks' measured offset, and for these "
      "hosts the offset's bound is above a tenth of their flows' latency, so those latency "
      "figures are uncertain by that much: {}",
      uncertain);
}

Result<int64_t> offset_to_receiver(Communicator& comm, const JobRoles& roles,
                                   const std::vector<ClockOffset>& offsets, const Wait& wait) {
  // Rank 0 sends every rank's offset to the receiver, in rank order.
  std::string all;
  if (comm.rank() == 0) {
    for (const ClockOffset& offset : offsets) {
      const int64_t to_receiver = offset.offset_ns - offsets[roles.clock_reference()].offset_ns;
      all += fmt::format("{}{}", all.empty() ? "" : std::string(1, kSeparator), to_receiver);
    }
  }
  auto shared = comm.broadcast(all, 0, wait);
  if (!shared) return std::move(shared).error();
  const auto fields = split_fields(*shared);
  if (comm.rank() >= fields.size()) {
    return make_error(Errc::runtime, fmt::format("rank 0 sent {} clock offsets for a job of {} "
                                                 "ranks",
                                                 fields.size(), comm.size()));
  }
  return field_number<int64_t>(fields[comm.rank()]);
}

engine::HostRole host_role(Communicator& comm, const JobRoles& roles, Wait wait,
                           int64_t offset_to_receiver_ns) {
  engine::HostRole role;
  role.drive_host = roles.host_of(comm.rank());
  role.clock_offset_to_receiver_ns = offset_to_receiver_ns;
  role.rank = comm.rank();
  if (roles.fabric) role.fabric_host_ranks = roles.host_ranks;
  // Bounded: a rank that never reaches the start (it hangs, or stopped alone) must not keep
  // the others waiting for ever.
  role.at_start = [&comm, wait](const Status& mine) {
    Wait bounded = wait;
    bounded.deadline = std::chrono::steady_clock::now() + kStartWait;
    return agree_status(comm, mine, bounded);
  };
  // As bounded as the start: the ranks exchange their endpoints just before it.
  role.exchange = [&comm, wait](const Result<std::string>& mine) {
    Wait bounded = wait;
    bounded.deadline = std::chrono::steady_clock::now() + kStartWait;
    return agree_all_gather(comm, mine, bounded);
  };
  // The ranks' windows end together (lined up at the start): the wait is short, and bounded
  // as the start's for a rank that hangs.
  role.at_end = [&comm, wait]() {
    Wait bounded = wait;
    bounded.deadline = std::chrono::steady_clock::now() + kStartWait;
    return comm.barrier(bounded);
  };
  return role;
}

namespace {

// Every rank's driver statistics of one repetition (`parts[r]`, null: not heard from) under
// "rank<r>.", with its clock offset.
drv::DriverStats stats_by_rank(const std::vector<const engine::RepetitionOutcome*>& parts,
                               const std::vector<ClockOffset>& offsets) {
  drv::DriverStats stats;
  for (uint32_t rank = 0; rank < parts.size(); ++rank) {
    const std::string prefix = fmt::format("rank{}.", rank);
    if (parts[rank] != nullptr) {
      for (const auto& [key, value] : parts[rank]->measurement.driver_stats) {
        stats.emplace_back(prefix + key, value);
      }
    }
    if (rank < offsets.size()) {
      stats.emplace_back(prefix + "clock_offset_ns", static_cast<double>(offsets[rank].offset_ns));
      stats.emplace_back(prefix + "clock_offset_error_ns",
                         static_cast<double>(offsets[rank].error_bound_ns));
    }
  }
  return stats;
}

}  // namespace

engine::TaskSpread role_spread(Communicator& comm, const JobRoles& roles, Wait wait,
                               const std::vector<ClockOffset>& offsets, std::string& problem,
                               const std::vector<FabricFlows>* flows) {
  engine::TaskSpread spread;
  spread.runs_here = [](size_t) { return true; };  // every rank takes part in every run
  spread.exchange = [&comm, roles, wait, &offsets, &problem,
                     fabric_flows = flows](Result<std::vector<engine::RepetitionOutcome>> mine)
      -> Result<std::vector<engine::RepetitionOutcome>> {
    auto gathered = comm.gather(pack_outcomes(mine), 0, wait);
    if (!gathered) {
      problem = gathered.error().message;
      // Without the receiver's outcomes there is nothing measured: no repetition ran.
      return std::vector<engine::RepetitionOutcome>{};
    }
    if (comm.rank() != 0) return std::vector<engine::RepetitionOutcome>{};  // rank 0 merges
    std::vector<std::vector<engine::RepetitionOutcome>> by_rank(gathered->size());
    for (uint32_t rank = 0; rank < gathered->size(); ++rank) {
      if (auto s = unpack_outcomes((*gathered)[rank], rank, by_rank[rank]); !s) {
        return std::move(s).error();
      }
    }
    if (roles.fabric) {
      // Each flow measured where it arrived, posted where it was sent.
      std::vector<engine::RepetitionOutcome> merged =
          merge_fabric_outcomes(by_rank, fabric_flows != nullptr ? *fabric_flows
                                                         : std::vector<FabricFlows>{});
      for (engine::RepetitionOutcome& outcome : merged) {
        std::vector<const engine::RepetitionOutcome*> parts;
        for (const auto& outcomes : by_rank) {
          const auto found = std::find_if(
              outcomes.begin(), outcomes.end(), [&](const engine::RepetitionOutcome& o) {
                return o.scenario == outcome.scenario && o.repetition == outcome.repetition;
              });
          parts.push_back(found == outcomes.end() ? nullptr : &*found);
        }
        outcome.measurement.driver_stats = stats_by_rank(parts, offsets);
      }
      return merged;
    }
    // The receiver measured; every rank's driver saw its own side.
    std::vector<engine::RepetitionOutcome> merged = std::move(by_rank[roles.receiver_rank]);
    for (engine::RepetitionOutcome& outcome : merged) {
      drv::DriverStats stats;
      for (uint32_t rank = 0; rank < by_rank.size(); ++rank) {
        const engine::RepetitionOutcome* part = &outcome;
        if (rank != roles.receiver_rank) {
          const auto found = std::find_if(
              by_rank[rank].begin(), by_rank[rank].end(), [&](const engine::RepetitionOutcome& o) {
                return o.scenario == outcome.scenario && o.repetition == outcome.repetition;
              });
          if (found == by_rank[rank].end()) {
            outcome.measurement.complete = false;  // a sender's side is missing
            continue;
          }
          part = &*found;
          // What was posted is known where it was posted: the sender's counts, per flow.
          auto& merged_flows = outcome.measurement.flows;
          for (size_t f = 0; f < merged_flows.size() && f < part->measurement.flows.size(); ++f) {
            engine::merge_counters(merged_flows[f].counts, part->measurement.flows[f].counts,
                                   engine::CounterSide::sender);
          }
          outcome.measurement.complete = outcome.measurement.complete && part->measurement.complete;
          outcome.measurement.wall_seconds =
              std::max(outcome.measurement.wall_seconds, part->measurement.wall_seconds);
          // A starved sender makes the figures as unreliable as a starved receiver.
          outcome.measurement.starvation.keep_worse(part->measurement.starvation);
        }
        const std::string prefix = fmt::format("rank{}.", rank);
        for (const auto& [key, value] : part->measurement.driver_stats) {
          stats.emplace_back(prefix + key, value);
        }
        if (rank < offsets.size()) {
          stats.emplace_back(prefix + "clock_offset_ns",
                             static_cast<double>(offsets[rank].offset_ns));
          stats.emplace_back(prefix + "clock_offset_error_ns",
                             static_cast<double>(offsets[rank].error_bound_ns));
        }
      }
      outcome.measurement.driver_stats = std::move(stats);
    }
    return merged;
  };
  return spread;
}

}  // namespace qb::cluster
