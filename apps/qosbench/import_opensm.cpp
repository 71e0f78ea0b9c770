// qosbench import-opensm: the SL2VL / VLArb tables OpenSM would program on one port from an
// opensm.conf, as JSON (a contract: {"sl2vl":[16], "vlarb_high":[[vl,weight],...],
// "vlarb_low":[...], "high_limit":N}, tables as long as the port holds) or text. OpenSM's warnings
// go to stderr as "file:line: warning: ...", errors as "file:line:col: error: ..." with exit 2.
#include <iostream>
#include <optional>
#include <string>

#include "commands.hpp"
#include "qb/policies/opensm_conf.hpp"
#include "qb/policies/opensm_policy.hpp"

namespace qb::cli {
namespace {

int fail(const Error& error) {
  std::cerr << error.to_string() << "\n";
  return exit_code_for(error.code);
}

void print_warning(const policy::OpensmWarning& warning) {
  std::cerr << warning.loc.file;
  if (warning.loc.line != 0) std::cerr << ':' << warning.loc.line;
  std::cerr << ": warning: " << warning.message << "\n";
}

std::string json_table(const std::vector<policy::VlArbEntry>& table) {
  std::string out = "[";
  for (size_t i = 0; i < table.size(); ++i) {
    if (i > 0) out += ",";
    out += "[" + std::to_string(table[i].vl) + "," + std::to_string(table[i].weight) + "]";
  }
  return out + "]";
}

std::string json_port_qos(const policy::IbPortQos& qos) {
  std::string out = "{\"sl2vl\":[";
  for (size_t sl = 0; sl < qos.sl2vl.size(); ++sl) {
    if (sl > 0) out += ",";
    out += std::to_string(qos.sl2vl[sl]);
  }
  out += "],\"vlarb_high\":" + json_table(qos.vlarb_high);
  out += ",\"vlarb_low\":" + json_table(qos.vlarb_low);
  out += ",\"high_limit\":" + std::to_string(qos.high_limit) + "}";
  return out;
}

std::string text_table(const std::vector<policy::VlArbEntry>& table) {
  if (table.empty()) return " (none: capacity 0)";
  std::string out;
  for (const auto& entry : table) {
    out += " " + std::to_string(entry.vl) + ":" + std::to_string(entry.weight);
  }
  return out;
}

std::string text_port_qos(const policy::IbPortQos& qos, policy::IbPortType type,
                          const policy::IbPortCaps& caps) {
  std::string out = "port type " + std::string(policy::ib_port_type_name(type)) +
                    ", operational VLs " + std::to_string(caps.op_vls) + " (VL0-VL" +
                    std::to_string(policy::max_data_vl(caps.op_vls)) + ")\n";
  out += "sl2vl:     ";
  for (size_t sl = 0; sl < qos.sl2vl.size(); ++sl) {
    out += " " + std::to_string(sl) + "->" +
           (qos.sl2vl[sl] == 15 ? std::string("drop") : std::to_string(qos.sl2vl[sl]));
  }
  out += "\nhigh_limit: " + std::to_string(qos.high_limit) +
         (qos.high_limit == 255 ? " (unbounded)\n" : " (x 4096 bytes of high-priority data)\n");
  out += "vlarb_high (" + std::to_string(qos.vlarb_high.size()) +
         " entries, vl:weight):" + text_table(qos.vlarb_high) + "\n";
  out += "vlarb_low  (" + std::to_string(qos.vlarb_low.size()) +
         " entries, vl:weight):" + text_table(qos.vlarb_low) + "\n";
  return out;
}

}  // namespace

int import_opensm_command(const ImportOpensmArgs& args) {
  const policy::IbPortCaps caps{args.op_vls, args.vlarb_high_cap, args.vlarb_low_cap};
  if (Status status = policy::validate_port_caps(caps); !status) return fail(status.error());
  auto type = policy::parse_ib_port_type(args.port_type);
  if (!type) return fail(type.error());
  auto conf = policy::load_opensm_conf(args.opensm_conf_path);
  if (!conf) return fail(conf.error());
  for (const auto& warning : conf->warnings) print_warning(warning);
  if (!conf->qos_enabled) {
    print_warning(policy::OpensmWarning{
        SourceLoc{args.opensm_conf_path, 0, 0},
        "no \"qos TRUE\": OpenSM programs these tables only when QoS is enabled (or with -Q)"});
  }
  std::optional<policy::OpensmPolicy> qos_policy;
  if (!args.qos_policy_path.empty()) {
    // The port tables do not depend on the policy file (OpenSM ignores its qos-setup section);
    // it is checked the way OpenSM checks it (AC10-AC13 are fatal there too).
    auto parsed = policy::load_opensm_policy(args.qos_policy_path);
    if (!parsed) return fail(parsed.error());
    qos_policy = std::move(parsed).value();
  }
  const policy::IbPortQos qos = policy::program_port_qos(*conf, *type, caps);
  if (args.json) {
    std::cout << json_port_qos(qos) << "\n";
  } else {
    std::cout << text_port_qos(qos, *type, caps);
    if (qos_policy) {
      std::cout << "qos-policy: " << qos_policy->qos_levels.size() << " qos-levels, "
                << qos_policy->match_rules.size() << " match rules, "
                << qos_policy->ulp_rules.size() << " qos-ulps rules, default SL "
                << int{qos_policy->default_sl} << "\n";
    }
  }
  return std::cout.good() ? 0 : 3;
}

}  // namespace qb::cli
