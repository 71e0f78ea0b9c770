// OpenSM import, part 3: which SL OpenSM's qos-policy.conf gives a path (reference §4): match
// rules first, in file order (first match wins), then the ULP rules, then the default level.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "qb/policies/opensm_policy.hpp"

namespace qb::policy {

/// What a path record query carries that the policy can match on. Unset fields match no rule
/// that requires them.
struct PathQuery {
  std::optional<uint64_t> service_id;
  std::optional<uint16_t> pkey;  // the full 16 bits; rules compare the low 15 (membership bit off)
  std::optional<uint8_t> qos_class;
  std::optional<uint64_t> source_port_guid;
  std::optional<uint64_t> destination_port_guid;
  std::optional<uint8_t> source_port_num;  // for the `port-num` ULP criterion
};

struct SlMatch {
  uint8_t sl = 0;
  std::string rule;  // "qos-match-rules[1] (line 42) -> qos-level WIDE" / "qos-ulps line 9" /
                     // "default qos-level DEFAULT"
  SourceLoc loc;     // of the deciding rule (line 0: the default)
};

SlMatch match_sl(const OpensmPolicy& policy, const PathQuery& query);

}  // namespace qb::policy
