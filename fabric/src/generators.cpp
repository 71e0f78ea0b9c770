#include "qb/fabric/generators.hpp"

#include <fmt/format.h>

#include <utility>

namespace qb::fabric {
namespace {

Error too_many(const GeneratedAt& at, uint64_t hosts) {
  return make_error(Errc::invalid_config,
                    fmt::format("the topology would have {} hosts; at most {}", hosts,
                                kMaxGeneratedHosts),
                    at.where, at.loc);
}

Error port_limit(const GeneratedAt& at, const char* what, uint64_t ports) {
  return make_error(Errc::invalid_config,
                    fmt::format("a {} would need {} ports; a switch has at most {}", what, ports,
                                kMaxSwitchPorts),
                    at.where, at.loc);
}

}  // namespace

FatTreeSpec FatTreeSpec::k_ary(uint32_t k) noexcept {
  FatTreeSpec spec;
  spec.pods = k;
  spec.tors_per_pod = spec.aggs_per_pod = spec.hosts_per_tor = spec.cores_per_agg = k / 2;
  return spec;
}

// The generators' own bounds are checked before building, so the builder's checks (names,
// ports) cannot fail on them; its Result is still passed on.
#define QB_TRY(expr)                     \
  do {                                   \
    auto status_ = (expr);               \
    if (!status_) return status_.error(); \
  } while (false)

Result<Topology> leaf_spine(const LeafSpineSpec& s, const GeneratedAt& at) {
  if (s.leaves == 0 || s.spines == 0 || s.hosts_per_leaf == 0 || s.links_per_spine == 0) {
    return make_error(Errc::invalid_config,
                      "leaves, spines, hosts_per_leaf and links_per_spine must be at least 1",
                      at.where, at.loc);
  }
  const uint64_t hosts = uint64_t{s.leaves} * s.hosts_per_leaf;
  if (hosts > kMaxGeneratedHosts) return too_many(at, hosts);
  const uint64_t leaf_ports = s.hosts_per_leaf + uint64_t{s.spines} * s.links_per_spine;
  if (leaf_ports > kMaxSwitchPorts) return port_limit(at, "leaf", leaf_ports);
  const uint64_t spine_ports = uint64_t{s.leaves} * s.links_per_spine;
  if (spine_ports > kMaxSwitchPorts) return port_limit(at, "spine", spine_ports);

  TopologyBuilder b;
  for (uint32_t h = 0; h < hosts; ++h) QB_TRY(b.add_host(fmt::format("h{}", h), at.where, at.loc));
  std::vector<uint32_t> leaf(s.leaves), spine(s.spines);
  for (uint32_t i = 0; i < s.leaves; ++i) {
    auto id = b.add_switch(fmt::format("leaf{}", i), 0, at.where, at.loc);
    if (!id) return id.error();
    leaf[i] = *id;
  }
  for (uint32_t i = 0; i < s.spines; ++i) {
    auto id = b.add_switch(fmt::format("spine{}", i), 0, at.where, at.loc);
    if (!id) return id.error();
    spine[i] = *id;
  }
  for (uint32_t i = 0; i < s.leaves; ++i) {
    for (uint32_t h = 0; h < s.hosts_per_leaf; ++h) {
      QB_TRY(b.add_link(i * s.hosts_per_leaf + h, 1, leaf[i], h + 1, s.host_rate_bps, s.delay_ns,
                        at.where, at.loc));
    }
  }
  for (uint32_t i = 0; i < s.leaves; ++i) {
    for (uint32_t j = 0; j < s.spines; ++j) {
      for (uint32_t k = 0; k < s.links_per_spine; ++k) {
        QB_TRY(b.add_link(leaf[i], s.hosts_per_leaf + j * s.links_per_spine + k + 1, spine[j],
                          i * s.links_per_spine + k + 1, s.uplink_rate_bps, s.delay_ns, at.where,
                          at.loc));
      }
    }
  }
  return std::move(b).finish();
}

Result<Topology> fat_tree(const FatTreeSpec& s, const GeneratedAt& at) {
  if (s.pods == 0 || s.tors_per_pod == 0 || s.aggs_per_pod == 0 || s.hosts_per_tor == 0 ||
      s.cores_per_agg == 0) {
    return make_error(Errc::invalid_config,
                      "pods, tors_per_pod, aggs_per_pod, hosts_per_tor and cores_per_agg must be "
                      "at least 1 (k-ary: k even and at least 2)",
                      at.where, at.loc);
  }
  const uint64_t tors = uint64_t{s.pods} * s.tors_per_pod;
  const uint64_t hosts = tors * s.hosts_per_tor;
  if (hosts > kMaxGeneratedHosts) return too_many(at, hosts);
  if (s.hosts_per_tor + uint64_t{s.aggs_per_pod} > kMaxSwitchPorts) {
    return port_limit(at, "ToR", s.hosts_per_tor + uint64_t{s.aggs_per_pod});
  }
  if (s.tors_per_pod + uint64_t{s.cores_per_agg} > kMaxSwitchPorts) {
    return port_limit(at, "aggregation switch", s.tors_per_pod + uint64_t{s.cores_per_agg});
  }
  if (s.pods > kMaxSwitchPorts) return port_limit(at, "core switch", s.pods);
  const uint64_t aggs = uint64_t{s.pods} * s.aggs_per_pod;
  const uint64_t cores = uint64_t{s.aggs_per_pod} * s.cores_per_agg;

  TopologyBuilder b;
  for (uint32_t h = 0; h < hosts; ++h) QB_TRY(b.add_host(fmt::format("h{}", h), at.where, at.loc));
  auto add_switches = [&](const char* prefix, uint64_t n, std::vector<uint32_t>& ids) -> Status {
    for (uint32_t i = 0; i < n; ++i) {
      auto id = b.add_switch(fmt::format("{}{}", prefix, i), 0, at.where, at.loc);
      if (!id) return id.error();
      ids.push_back(*id);
    }
    return {};
  };
  std::vector<uint32_t> tor, agg, core;
  QB_TRY(add_switches("tor", tors, tor));
  QB_TRY(add_switches("agg", aggs, agg));
  QB_TRY(add_switches("core", cores, core));
  for (uint32_t t = 0; t < tors; ++t) {
    for (uint32_t h = 0; h < s.hosts_per_tor; ++h) {
      QB_TRY(b.add_link(t * s.hosts_per_tor + h, 1, tor[t], h + 1, s.host_rate_bps, s.delay_ns,
                        at.where, at.loc));
    }
  }
  for (uint32_t p = 0; p < s.pods; ++p) {
    for (uint32_t t = 0; t < s.tors_per_pod; ++t) {
      for (uint32_t a = 0; a < s.aggs_per_pod; ++a) {
        QB_TRY(b.add_link(tor[p * s.tors_per_pod + t], s.hosts_per_tor + a + 1,
                          agg[p * s.aggs_per_pod + a], t + 1, s.fabric_rate_bps, s.delay_ns,
                          at.where, at.loc));
      }
    }
    for (uint32_t a = 0; a < s.aggs_per_pod; ++a) {
      for (uint32_t c = 0; c < s.cores_per_agg; ++c) {
        QB_TRY(b.add_link(agg[p * s.aggs_per_pod + a], s.tors_per_pod + c + 1,
                          core[a * s.cores_per_agg + c], p + 1, s.fabric_rate_bps, s.delay_ns,
                          at.where, at.loc));
      }
    }
  }
  return std::move(b).finish();
}

Result<Topology> one_switch(uint32_t hosts, double host_rate_bps, double switch_rate_bps,
                            int64_t delay_ns, const GeneratedAt& at) {
  if (hosts == 0 || hosts + 1 > kMaxSwitchPorts) {
    return make_error(Errc::invalid_config,
                      fmt::format("one switch takes 1..{} hosts", kMaxSwitchPorts - 1), at.where,
                      at.loc);
  }
  TopologyBuilder b;
  for (uint32_t h = 0; h < hosts; ++h) QB_TRY(b.add_host(fmt::format("h{}", h), at.where, at.loc));
  QB_TRY(b.add_host("rx", at.where, at.loc));
  auto sw = b.add_switch("switch", hosts + 1, at.where, at.loc);
  if (!sw) return sw.error();
  for (uint32_t h = 0; h < hosts; ++h) {
    QB_TRY(b.add_link(h, 1, *sw, h + 1, host_rate_bps, delay_ns, at.where, at.loc));
  }
  QB_TRY(b.add_link(*sw, hosts + 1, hosts, 1, switch_rate_bps, delay_ns, at.where, at.loc));
  return std::move(b).finish();
}

#undef QB_TRY

}  // namespace qb::fabric
