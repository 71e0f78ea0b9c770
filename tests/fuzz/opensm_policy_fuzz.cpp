// libFuzzer target: parse_opensm_policy() and match_sl() must never crash, hang or leak; errors
// are located; a parsed policy resolves every rule and gives SLs 0-15 to any query.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "fuzz_check.hpp"
#include "qb/policies/opensm_policy_match.hpp"

using qb::fuzz::check;

namespace {

uint64_t read_u64(const uint8_t* data, size_t size, size_t at) {
  uint64_t value = 0;
  if (size >= at + sizeof value) std::memcpy(&value, data + at, sizeof value);
  return value;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto policy = qb::policy::parse_opensm_policy(text, "qos-policy.conf");
  if (!policy.ok()) {
    const auto& error = policy.error();
    check(error.code == qb::Errc::invalid_config && !error.message.empty());
    check(error.loc.file == "qos-policy.conf" && error.loc.line >= 1);
    return 0;
  }
  check(policy->default_sl <= 15);
  for (const auto& rule : policy->ulp_rules) check(rule.sl <= 15);
  for (const auto& level : policy->qos_levels) check(level.sl.has_value() && *level.sl <= 15);
  // Queries built from the input's bytes plus the values the policy names, so rules do match.
  qb::policy::PathQuery query;
  query.service_id = read_u64(data, size, 0);
  query.source_port_guid = read_u64(data, size, 8);
  query.destination_port_guid = read_u64(data, size, 16);
  const auto sl = qb::policy::match_sl(*policy, query).sl;
  check(sl <= 15);
  for (const auto& rule : policy->match_rules) {
    qb::policy::PathQuery q;
    if (!rule.service_ids.empty()) q.service_id = rule.service_ids.front().last;
    if (!rule.pkeys.empty()) q.pkey = static_cast<uint16_t>(rule.pkeys.front().first);
    if (!rule.qos_classes.empty())
      q.qos_class = static_cast<uint8_t>(rule.qos_classes.front().first);
    q.source_port.node_type = qb::policy::kNodeTypeCa;
    q.source_port.sm_port = true;
    q.destination_port.partition_pkeys = {0x7fff};
    check(qb::policy::match_sl(*policy, q).sl <= 15);
  }
  for (const auto& rule : policy->ulp_rules) {
    qb::policy::PathQuery q;
    if (!rule.ranges.empty()) {
      q.destination_port_guid = rule.ranges.back().last;
      q.source_port_guid = rule.ranges.front().first;
      q.pkey = static_cast<uint16_t>(rule.ranges.front().first);
    }
    for (const auto& range : qb::policy::ulp_service_ids(rule)) q.service_id = range.first;
    const auto match = qb::policy::match_sl(*policy, q);
    check(match.sl <= 15 && !match.rule.empty());
  }
  return 0;
}
