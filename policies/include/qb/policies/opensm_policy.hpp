// OpenSM import, part 2 (first cut): qos-policy.conf structure, full and simplified syntax, with
// OpenSM's fatal checks (reference §4): AC10 no default QoS level (neither a qos-level named
// DEFAULT, case-insensitive, nor a `default : SL` ULP rule), AC11 a match rule naming an unknown
// qos-level, AC12/AC13 an unknown source/destination port group; illegal SL values and syntax
// errors with line:col. Values other than names and SLs are kept as written (no matcher yet).
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

struct PolicyPortGroup {
  std::string name;
  std::vector<PolicyField> fields;
  SourceLoc loc;
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
};

/// One line of qos-ulps: `ulp[, criterion values] : sl`.
struct PolicyUlpRule {
  std::string ulp;        // default, sdp, rds, iser, ipoib, srp, any
  std::string criterion;  // port-num, pkey, service-id, target-port-guid, ... or empty
  std::string values;     // the criterion's list of numbers/ranges, as written
  uint8_t sl = 0;
  SourceLoc loc;
};

struct OpensmPolicy {
  std::vector<PolicyPortGroup> port_groups;
  std::vector<PolicyQosLevel> qos_levels;
  std::vector<PolicyMatchRule> match_rules;  // tried first, in file order
  std::vector<PolicyUlpRule> ulp_rules;      // then these, `default` only when nothing matched
  uint8_t default_sl = 0;                    // the DEFAULT level's SL (or `default :` ULP rule)
};

Result<OpensmPolicy> parse_opensm_policy(std::string_view text, const std::string& file);
Result<OpensmPolicy> load_opensm_policy(const std::string& path);

}  // namespace qb::policy
