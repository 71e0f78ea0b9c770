// OpenSM import, part 2: qos-policy.conf structure, full and simplified syntax, with OpenSM's fatal
// checks: AC10 no default QoS level (neither a qos-level named DEFAULT, case-insensitive, nor a
// `default : SL` ULP rule), AC11 a match rule naming an unknown qos-level, AC12/AC13 an unknown
// source/destination port group (names compared case-insensitively, as OpenSM does); illegal SL
// values and syntax errors with line:col. The values the matcher needs (port GUIDs, pkeys, node
// types, qos-classes, service ids, ULP criteria) are parsed into ranges the way OpenSM's parser
// stores them: numbers as strtoull base 0 reads them, a reversed range swapped, pkeys without the
// membership bit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "qb/common/result.hpp"

namespace qb::policy {

struct PolicyField {
  std::string key;  // e.g. "pkey", "service-id"
  std::string value;
  SourceLoc loc;  // of the value
};

/// An inclusive range of numbers (a single number is a range of one).
struct NumberRange {
  uint64_t first = 0;
  uint64_t last = 0;
  friend bool operator==(const NumberRange&, const NumberRange&) = default;
};

/// node-type bits of a port group (SELF is kept apart: it names the SM's own port).
inline constexpr uint8_t kNodeTypeCa = 1;
inline constexpr uint8_t kNodeTypeSwitch = 2;
inline constexpr uint8_t kNodeTypeRouter = 4;

struct PolicyPortGroup {
  std::string name;
  std::vector<PolicyField> fields;
  SourceLoc loc;
  std::vector<NumberRange> port_guids;
  std::vector<NumberRange> pkeys;       // partitions by pkey, low 15 bits
  std::vector<std::string> partitions;  // partitions by name
  std::vector<std::string> port_names;  // "node description/Pnum": kept, never matched
  uint8_t node_types = 0;               // kNodeType* bits
  bool self = false;                    // node-type SELF: the SM's port
};

struct PolicyQosLevel {
  std::string name;
  std::optional<uint8_t> sl;
  std::vector<PolicyField> fields;  // mtu-limit, rate-limit, pkey, packet-life, use
  SourceLoc loc;
};

struct PolicyMatchRule {
  std::string qos_level_name;
  std::vector<std::string> source_groups;
  std::vector<std::string> destination_groups;
  std::vector<PolicyField> fields;  // qos-class, service-id, pkey, use
  SourceLoc loc;
  std::vector<NumberRange> qos_classes;
  std::vector<NumberRange> service_ids;
  std::vector<NumberRange> pkeys;  // low 15 bits
};

/// One line of qos-ulps: `ulp[, criterion values] : sl`.
struct PolicyUlpRule {
  std::string ulp;        // default, sdp, rds, iser, ipoib, srp, any
  std::string criterion;  // port-num, pkey, service-id, target-port-guid, ... or empty
  std::string values;     // the criterion's list of numbers/ranges, as written
  uint8_t sl = 0;
  SourceLoc loc;
  std::vector<NumberRange> ranges;  // `values` parsed (pkeys without the membership bit)
};

struct OpensmPolicy {
  std::vector<PolicyPortGroup> port_groups;
  std::vector<PolicyQosLevel> qos_levels;
  std::vector<PolicyMatchRule> match_rules;  // tried first, in file order
  std::vector<PolicyUlpRule> ulp_rules;      // then these, `default` only when nothing matched
  uint8_t default_sl = 0;                    // the DEFAULT level's SL (or `default :` ULP rule)
  std::string default_level_name;            // as written; empty: the `default :` ULP rule
};

Result<OpensmPolicy> parse_opensm_policy(std::string_view text, const std::string& file);
Result<OpensmPolicy> load_opensm_policy(const std::string& path);

}  // namespace qb::policy
