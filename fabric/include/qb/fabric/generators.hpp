// Topologies from a few numbers: a two-tier leaf-spine and a three-tier fat tree (k-ary, or the
// generalised shape of HPCC's 320-host file). Names: hosts h0..hN-1 in leaf (ToR) order, then
// leaf<i>/spine<i>, or tor<i>/agg<i>/core<i>. Switch ports: hosts first (1..), then uplinks.
#pragma once

#include <cstdint>
#include <string>

#include "qb/common/result.hpp"
#include "qb/fabric/topology.hpp"

namespace qb::fabric {

inline constexpr uint32_t kMaxGeneratedHosts = 65536;

/// Where a generated topology's links come from, for errors about them.
struct GeneratedAt {
  std::string where;  // "topology"
  SourceLoc loc;
};

struct LeafSpineSpec {
  uint32_t leaves = 2;
  uint32_t spines = 2;
  uint32_t hosts_per_leaf = 2;
  /// Links between every leaf and every spine (parallel links: ECMP over them too).
  uint32_t links_per_spine = 1;
  double host_rate_bps = 100e9;
  double uplink_rate_bps = 100e9;
  int64_t delay_ns = 1000;  // per link, one way
};

/// A three-tier fat tree: `pods` pods of `tors_per_pod` ToRs and `aggs_per_pod` aggregation
/// switches (every ToR to every agg of its pod); agg i of every pod links to cores
/// i*cores_per_agg .. (i+1)*cores_per_agg - 1 (aggs_per_pod * cores_per_agg cores in all).
/// k-ary (Al-Fares): pods = k, tors = aggs = hosts = cores_per_agg = k/2 (see k_ary()).
/// HPCC's fat.txt: pods 5, 4 ToRs and 4 aggs per pod, 16 hosts per ToR, 4 cores per agg.
struct FatTreeSpec {
  uint32_t pods = 4;
  uint32_t tors_per_pod = 2;
  uint32_t aggs_per_pod = 2;
  uint32_t hosts_per_tor = 2;
  uint32_t cores_per_agg = 2;
  double host_rate_bps = 100e9;
  double fabric_rate_bps = 100e9;
  int64_t delay_ns = 1000;

  static FatTreeSpec k_ary(uint32_t k) noexcept;
};

Result<Topology> leaf_spine(const LeafSpineSpec& spec, const GeneratedAt& at);
Result<Topology> fat_tree(const FatTreeSpec& spec, const GeneratedAt& at);

/// `hosts` hosts on one switch (today's `[fabric] hosts = N, switch = true`) plus the receiver
/// host "rx" on its last port: the one-switch incast as a graph.
Result<Topology> one_switch(uint32_t hosts, double host_rate_bps, double switch_rate_bps,
                            int64_t delay_ns, const GeneratedAt& at);

}  // namespace qb::fabric
