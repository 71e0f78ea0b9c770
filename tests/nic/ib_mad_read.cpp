// qb_nic_ib_mad_read DEVICE PORT OPENSM_CONF [--ignore KEY]...: reads the port's SL2VL, VLArb
// tables and high limit with SMPs through libibmad (what the verbs driver's [ib] check does)
// and compares them with the tables OpenSM programs on a CA port from OPENSM_CONF (what a
// suite's [ib] with that file expects). Prints the tables read and each difference; exit 0
// when none (but the ignored keys), 1 when some, 2 on usage, 3 when the port cannot be read.
// Run under libumad2sim against ibsim by tests/nic/ibsim_mad_read_test.sh.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string>
#include <vector>

#include "qb/nic/ib_qos_state.hpp"
#include "qb/policies/opensm_conf.hpp"

int main(int argc, char** argv) {
  if (argc < 4) {
    fmt::print(stderr, "usage: {} DEVICE PORT OPENSM_CONF [--ignore KEY]...\n", argv[0]);
    return 2;
  }
  const std::string device = argv[1];
  const auto port = static_cast<uint8_t>(std::stoi(argv[2]));
  std::vector<std::string> ignored;
  for (int i = 4; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--ignore") ignored.emplace_back(argv[i + 1]);
  }
  auto conf = qb::policy::load_opensm_conf(argv[3]);
  if (!conf) {
    fmt::print(stderr, "{}\n", conf.error().message);
    return 2;
  }
  std::string why;
  auto source = qb::nic::make_ibmad_smp_source(device, port, why);
  if (!source) {
    fmt::print(stderr, "{}\n", why);
    return 3;
  }
  auto state = qb::nic::read_ib_qos(*source, port);
  if (!state) {
    fmt::print(stderr, "{}\n", state.error().message);
    return 3;
  }
  std::vector<std::string> low, high;
  for (const auto& e : state->vlarb_low) low.push_back(fmt::format("{}:{}", e.vl, e.weight));
  for (const auto& e : state->vlarb_high) high.push_back(fmt::format("{}:{}", e.vl, e.weight));
  fmt::print("read: op_vls {} caps {}/{} high_limit {} sl2vl {} vlarb_high {} vlarb_low {}\n",
             state->op_vls, state->vlarb_high_cap, state->vlarb_low_cap, state->high_limit,
             fmt::join(state->sl2vl, ","), fmt::join(high, ","), fmt::join(low, ","));
  qb::policy::IbArbitration suite;
  qb::policy::IbPortCaps caps;
  caps.op_vls = qb::policy::operational_vls(qb::policy::kDefaultVlCap, *conf);
  caps.vlarb_high_cap = state->vlarb_high_cap;
  caps.vlarb_low_cap = state->vlarb_low_cap;
  suite.tables = qb::policy::program_port_qos(*conf, qb::policy::IbPortType::ca, caps);
  suite.op_vls = caps.op_vls;
  int differences = 0;
  for (const auto& m : qb::nic::compare_ib_qos(suite, *state)) {
    const bool skip = std::find(ignored.begin(), ignored.end(), m.key) != ignored.end();
    fmt::print("{}{}: the file says {}, the port has {}\n", skip ? "(ignored) " : "", m.key,
               m.suite, m.nic);
    differences += skip ? 0 : 1;
  }
  return differences == 0 ? 0 : 1;
}
