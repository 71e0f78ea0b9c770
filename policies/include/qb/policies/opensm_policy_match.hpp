// OpenSM import, part 3: which SL OpenSM's qos-policy.conf gives a path: match rules first, in file
// order (first match wins), then the ULP rules, then the default level.
//
// As in OpenSM (osm_qos_policy.c): a rule matches when every criterion it has matches; a rule
// with a qos-class, service-id or pkey criterion never matches a query that does not carry that
// field; a rule with both source and destination groups needs the source in one of its source
// groups AND the destination in one of its destination groups. ULP rules are match rules with
// one criterion each (`any, source-target-port-guid` therefore needs both ends in the list).
// The DEFAULT qos-level wins over a `default : SL` ULP rule.
//
// Port groups: by port-guid (lists and ranges), node-type (CA, SWITCH, ROUTER, ALL, SELF),
// partition name and pkey; for the last three the query says what the subnet knows about each
// end (PortFacts). Groups by port-name are out of scope: qosbench has no node descriptions, so
// a port-name entry matches no port.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "qb/policies/opensm_policy.hpp"

namespace qb::policy {

/// What the subnet knows about one end of a path (for node-type, SELF and partition groups).
/// Left empty, such groups do not contain the port.
struct PortFacts {
  uint8_t node_type = 0;                     // one kNodeType* bit, 0 = unknown
  bool sm_port = false;                      // the port OpenSM runs on (node-type SELF)
  std::vector<uint16_t> partition_pkeys;     // partitions the port is a member of
  std::vector<std::string> partition_names;  // their names (partitions.conf)
};

/// What a path record query carries that the policy can match on. Unset fields match no rule
/// that requires them.
struct PathQuery {
  std::optional<uint64_t> service_id;
  std::optional<uint16_t> pkey;  // the full 16 bits; rules compare the low 15 (membership bit off)
  std::optional<uint8_t> qos_class;
  std::optional<uint64_t> source_port_guid;
  std::optional<uint64_t> destination_port_guid;
  // Not a matching criterion in OpenSM: `sdp|rds|iser, port-num N` is the TCP port inside the
  // service id (0x...PPPP), so set service_id; kept for callers that fill it in.
  std::optional<uint8_t> source_port_num;
  PortFacts source_port;
  PortFacts destination_port;
};

struct SlMatch {
  uint8_t sl = 0;
  std::string rule;  // "qos-match-rules[1] (line 42) -> qos-level WIDE" / "qos-ulps line 9" /
                     // "default qos-level DEFAULT"
  SourceLoc loc;     // of the deciding rule (line 0: the default)
};

/// The SL OpenSM's policy gives `query`. `policy` must come from parse_opensm_policy (so its
/// cross-references resolve).
SlMatch match_sl(const OpensmPolicy& policy, const PathQuery& query);

/// The service ids a ULP rule stands for (sdp: 0x10000 + port, default the whole 0x1PPPP range;
/// rds: 0x1060000 + port, default port 0x48CA; iser: 0x1060000 + port, default port 0x0CBC;
/// `any, service-id`: its list); empty for rules that do not match by service id.
std::vector<NumberRange> ulp_service_ids(const PolicyUlpRule& rule);

}  // namespace qb::policy
