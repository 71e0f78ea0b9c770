// opensm_policy_sl: prints the SL qosbench's matcher gives one path query, for the conformance
// test to compare with what OpenSM's SA answers (saquery PathRecord).
//   opensm_policy_sl POLICY [sguid=G] [dguid=G] [service_id=N] [pkey=N] [qos_class=N]
//                    [snode=ca|switch|router] [dnode=...] [ssm=1] [dsm=1] [spkey=N] [dpkey=N]
// Output: "<sl>\t<deciding rule>". Exit 2 on a bad policy or argument.
#include <cstdlib>
#include <iostream>
#include <string>

#include "qb/policies/opensm_policy_match.hpp"

namespace {

uint8_t node_type(const std::string& name) {
  if (name == "ca") return qb::policy::kNodeTypeCa;
  if (name == "switch") return qb::policy::kNodeTypeSwitch;
  if (name == "router") return qb::policy::kNodeTypeRouter;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: opensm_policy_sl POLICY [key=value]...\n";
    return 2;
  }
  auto policy = qb::policy::load_opensm_policy(argv[1]);
  if (!policy) {
    std::cerr << policy.error().to_string() << "\n";
    return 2;
  }
  qb::policy::PathQuery query;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    if (eq == std::string::npos) {
      std::cerr << "opensm_policy_sl: expected key=value, got '" << arg << "'\n";
      return 2;
    }
    const std::string key = arg.substr(0, eq);
    const std::string value = arg.substr(eq + 1);
    const uint64_t number = std::strtoull(value.c_str(), nullptr, 0);
    if (key == "sguid")
      query.source_port_guid = number;
    else if (key == "dguid")
      query.destination_port_guid = number;
    else if (key == "service_id")
      query.service_id = number;
    else if (key == "pkey")
      query.pkey = static_cast<uint16_t>(number);
    else if (key == "qos_class")
      query.qos_class = static_cast<uint8_t>(number);
    else if (key == "snode")
      query.source_port.node_type = node_type(value);
    else if (key == "dnode")
      query.destination_port.node_type = node_type(value);
    else if (key == "ssm")
      query.source_port.sm_port = number != 0;
    else if (key == "dsm")
      query.destination_port.sm_port = number != 0;
    else if (key == "spkey")
      query.source_port.partition_pkeys.push_back(static_cast<uint16_t>(number));
    else if (key == "dpkey")
      query.destination_port.partition_pkeys.push_back(static_cast<uint16_t>(number));
    else {
      std::cerr << "opensm_policy_sl: unknown key '" << key << "'\n";
      return 2;
    }
  }
  const qb::policy::SlMatch match = qb::policy::match_sl(*policy, query);
  std::cout << int{match.sl} << "\t" << match.rule << "\n";
  return 0;
}
