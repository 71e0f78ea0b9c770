// Which host sends to which: flows naming their source and destination hosts, and templates that
// give many of them from a few words (a range of sources; a destination pattern).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "qb/common/result.hpp"
#include "qb/fabric/topology.hpp"

namespace qb::fabric {

/// The most flows one template may give (all-to-all over 320 hosts is 102 080).
inline constexpr uint64_t kMaxTemplateFlows = 1u << 20;

struct FlowEndpoints {
  uint32_t src_host = 0;  // Topology::hosts() index
  uint32_t dst_host = 0;
};

enum class DestinationPattern : uint8_t {
  fixed,        // source i sends to destinations[i] (or to destinations[0] when one is given)
  permutation,  // each source to one other source, each receiving from one: a seeded
                // single cycle through all sources (Sattolo)
  all_to_all,   // each source to every other source
  incast,       // every source to destinations[0] (which must not be a source)
};

std::string_view pattern_name(DestinationPattern pattern) noexcept;

struct TrafficTemplate {
  std::vector<uint32_t> sources;  // host indices, in the order written, no repeats
  DestinationPattern pattern = DestinationPattern::fixed;
  std::vector<uint32_t> destinations;  // fixed and incast
  uint64_t seed = 1;                   // permutation
};

/// The flows in order: by source, then (all-to-all) by destination index. Errors (no `where`;
/// the caller adds the key): a destination equal to its source, a fixed list whose length is
/// neither 1 nor the sources', a permutation of fewer than two sources, too many flows.
Result<std::vector<FlowEndpoints>> expand_template(const TrafficTemplate& spec);

/// Host names to indices: "h3", a range "h0..h15" (the same prefix, numbers inclusive, as the
/// generators name hosts; "h00..h15" keeps the width), or "*" (every host in order). Unknown
/// names, empty or reversed ranges are errors (message only; the caller locates them).
Result<std::vector<uint32_t>> resolve_hosts(const Topology& topology, std::string_view text);

}  // namespace qb::fabric
