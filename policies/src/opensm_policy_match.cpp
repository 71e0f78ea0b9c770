// The qos-policy.conf SL matcher: OpenSM's order (match rules, then ULP rules, then the default)
// and its per-criterion rules, over the ranges the parser stored.
#include "qb/policies/opensm_policy_match.hpp"

#include <algorithm>
#include <cctype>

namespace qb::policy {
namespace {

constexpr uint64_t kSdpServiceId = 0x0000000000010000ULL;
constexpr uint64_t kRdsServiceId = 0x0000000001060000ULL;  // iSER uses the same prefix
constexpr uint64_t kRdsDefaultPort = 0x48CA;
constexpr uint64_t kIserDefaultPort = 0x0CBC;
constexpr uint16_t kIpoibDefaultPkey = 0x7fff;
constexpr uint16_t kPkeyBaseMask = 0x7fff;

bool in_ranges(const std::vector<NumberRange>& ranges, uint64_t value) {
  return std::any_of(ranges.begin(), ranges.end(), [&](const NumberRange& range) {
    return range.first <= value && value <= range.last;
  });
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

const PolicyPortGroup* group_named(const OpensmPolicy& policy, std::string_view name) {
  for (const auto& group : policy.port_groups) {
    if (iequals(group.name, name)) return &group;
  }
  return nullptr;
}

bool port_in_group(const PolicyPortGroup& group, std::optional<uint64_t> guid,
                   const PortFacts& facts) {
  if ((group.node_types & facts.node_type) != 0) return true;
  if (group.self && facts.sm_port) return true;
  if (guid && in_ranges(group.port_guids, *guid)) return true;
  for (const uint16_t pkey : facts.partition_pkeys) {
    if (in_ranges(group.pkeys, pkey & kPkeyBaseMask)) return true;
  }
  for (const auto& name : facts.partition_names) {
    if (std::find(group.partitions.begin(), group.partitions.end(), name) !=
        group.partitions.end()) {
      return true;
    }
  }
  return false;  // port-name entries: out of scope, they contain no port
}

bool port_in_any(const OpensmPolicy& policy, const std::vector<std::string>& names,
                 std::optional<uint64_t> guid, const PortFacts& facts) {
  return std::any_of(names.begin(), names.end(), [&](const std::string& name) {
    const PolicyPortGroup* group = group_named(policy, name);
    return group != nullptr && port_in_group(*group, guid, facts);
  });
}

// A criterion the rule has: the query must carry the field and its value must be in the list.
template <class T>
bool field_matches(const std::vector<NumberRange>& ranges, const std::optional<T>& value,
                   uint64_t mask = ~uint64_t{0}) {
  if (ranges.empty()) return true;
  return value.has_value() && in_ranges(ranges, static_cast<uint64_t>(*value) & mask);
}

bool rule_matches(const OpensmPolicy& policy, const PolicyMatchRule& rule, const PathQuery& query) {
  const bool has_source = !rule.source_groups.empty();
  const bool has_destination = !rule.destination_groups.empty();
  if (has_source &&
      !port_in_any(policy, rule.source_groups, query.source_port_guid, query.source_port)) {
    return false;
  }
  if (has_destination && !port_in_any(policy, rule.destination_groups, query.destination_port_guid,
                                      query.destination_port)) {
    return false;
  }
  return field_matches(rule.qos_classes, query.qos_class) &&
         field_matches(rule.service_ids, query.service_id) &&
         field_matches(rule.pkeys, query.pkey, kPkeyBaseMask);
}

bool guid_in(const std::vector<NumberRange>& ranges, const std::optional<uint64_t>& guid) {
  return guid.has_value() && in_ranges(ranges, *guid);
}

bool ulp_matches(const PolicyUlpRule& rule, const PathQuery& query) {
  const std::string& ulp = rule.ulp;
  const std::string& criterion = rule.criterion;
  if (ulp == "default") return false;  // not a match rule: the default level
  if (ulp == "sdp" || ulp == "rds" || ulp == "iser" ||
      (ulp == "any" && criterion == "service-id")) {
    return field_matches(ulp_service_ids(rule), query.service_id);
  }
  if (ulp == "ipoib" || (ulp == "any" && criterion == "pkey")) {
    if (criterion.empty()) {
      return field_matches({{kIpoibDefaultPkey, kIpoibDefaultPkey}}, query.pkey, kPkeyBaseMask);
    }
    return field_matches(rule.ranges, query.pkey, kPkeyBaseMask);
  }
  if (criterion == "target-port-guid") return guid_in(rule.ranges, query.destination_port_guid);
  if (criterion == "source-port-guid") return guid_in(rule.ranges, query.source_port_guid);
  if (criterion == "source-target-port-guid") {
    // OpenSM puts the one generated group in both lists, so both ends must be in it.
    return guid_in(rule.ranges, query.source_port_guid) &&
           guid_in(rule.ranges, query.destination_port_guid);
  }
  return false;
}

uint8_t level_sl(const OpensmPolicy& policy, std::string_view name) {
  for (const auto& level : policy.qos_levels) {
    if (iequals(level.name, name)) return level.sl.value_or(0);
  }
  return policy.default_sl;  // unreachable for a parsed policy (AC11)
}

}  // namespace

std::vector<NumberRange> ulp_service_ids(const PolicyUlpRule& rule) {
  const auto shifted = [&](uint64_t base) {
    std::vector<NumberRange> out;
    for (const NumberRange& port : rule.ranges)
      out.push_back({base + port.first, base + port.last});
    return out;
  };
  const bool by_port = rule.criterion == "port-num";
  if (rule.ulp == "sdp") {
    return by_port ? shifted(kSdpServiceId)
                   : std::vector<NumberRange>{{kSdpServiceId, kSdpServiceId + 0xFFFF}};
  }
  if (rule.ulp == "rds" || rule.ulp == "iser") {
    if (by_port) return shifted(kRdsServiceId);
    const uint64_t port = rule.ulp == "rds" ? kRdsDefaultPort : kIserDefaultPort;
    return {{kRdsServiceId + port, kRdsServiceId + port}};
  }
  if (rule.ulp == "any" && rule.criterion == "service-id") return rule.ranges;
  return {};
}

SlMatch match_sl(const OpensmPolicy& policy, const PathQuery& query) {
  for (size_t i = 0; i < policy.match_rules.size(); ++i) {
    const PolicyMatchRule& rule = policy.match_rules[i];
    if (!rule_matches(policy, rule, query)) continue;
    return SlMatch{level_sl(policy, rule.qos_level_name),
                   "qos-match-rules[" + std::to_string(i + 1) + "] (line " +
                       std::to_string(rule.loc.line) + ") -> qos-level " + rule.qos_level_name,
                   rule.loc};
  }
  for (const PolicyUlpRule& rule : policy.ulp_rules) {
    if (!ulp_matches(rule, query)) continue;
    std::string text = "qos-ulps line " + std::to_string(rule.loc.line) + " (" + rule.ulp;
    if (!rule.criterion.empty()) text += ", " + rule.criterion + " " + rule.values;
    return SlMatch{rule.sl, text + ") -> SL " + std::to_string(rule.sl), rule.loc};
  }
  if (!policy.default_level_name.empty()) {
    return SlMatch{policy.default_sl, "default qos-level " + policy.default_level_name, {}};
  }
  return SlMatch{policy.default_sl, "default (qos-ulps 'default : SL')", {}};
}

}  // namespace qb::policy
