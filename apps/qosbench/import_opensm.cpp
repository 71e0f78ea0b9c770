// qosbench import-opensm: the SL2VL / VLArb tables OpenSM would program on one port from an
// opensm.conf, as JSON (a contract: {"sl2vl":[16], "vlarb_high":[[vl,weight],...],
// "vlarb_low":[...], "high_limit":N}, tables as long as the port holds) or text. OpenSM's warnings
// go to stderr as "file:line: warning: ...", errors as "file:line:col: error: ..." with exit 2.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>

#include "commands.hpp"
#include "import_opensm.hpp"
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

std::string text_table(const std::vector<policy::VlArbEntry>& table) {
  if (table.empty()) return " (none: capacity 0)";
  std::string out;
  for (const auto& entry : table) {
    out += " " + std::to_string(entry.vl) + ":" + std::to_string(entry.weight);
  }
  return out;
}

std::string text_port_qos(const policy::IbPortQos& qos, policy::IbPortType type,
                          const policy::IbPortCaps& caps, const std::string& op_vls_source) {
  std::string out = "port type " + std::string(policy::ib_port_type_name(type)) +
                    ", operational VLs " + std::to_string(caps.op_vls) + " (VL0-VL" +
                    std::to_string(policy::max_data_vl(caps.op_vls)) + ")" + op_vls_source + "\n";
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

// The [ib] block that makes a suite program what this command printed: the files by absolute
// path (a suite resolves relative paths against its own directory), the port's VLs and caps.
std::string suite_block(const ImportOpensmArgs& args, const policy::IbPortCaps& caps,
                        policy::IbPortType type) {
  std::string out = "# from: qosbench import-opensm --opensm-conf " + args.opensm_conf_path;
  if (!args.qos_policy_path.empty()) out += " --qos-policy " + args.qos_policy_path;
  out += "\n";
  if (type != policy::IbPortType::ca) {
    out +=
        "# note: a suite programs its NIC ports with the file's ca set and the switch egress\n"
        "# with its swe set; --port-type " +
        std::string(policy::ib_port_type_name(type)) + " only changes what import-opensm prints\n";
  }
  out += "[ib]\n";
  out += "opensm_conf = " + toml_string(absolute_path(args.opensm_conf_path)) + "\n";
  if (!args.qos_policy_path.empty()) {
    out += "qos_policy = " + toml_string(absolute_path(args.qos_policy_path)) + "\n";
  }
  out += "op_vls = " + std::to_string(caps.op_vls) + "  # VL0-VL" +
         std::to_string(policy::max_data_vl(caps.op_vls)) + "\n";
  out += "vlarb_high_cap = " + std::to_string(caps.vlarb_high_cap) + "\n";
  out += "vlarb_low_cap = " + std::to_string(caps.vlarb_low_cap) + "\n";
  return out;
}

}  // namespace

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

// A TOML basic string: quotes, backslashes and control characters escaped.
std::string toml_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04X", static_cast<unsigned>(c));
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string absolute_path(const std::string& path) {
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(path, ec);
  return ec ? path : absolute.lexically_normal().string();
}

int import_opensm_command(const ImportOpensmArgs& args) {
  if (!args.fabric_dir.empty()) return import_opensm_fabric(args);
  auto type = policy::parse_ib_port_type(args.port_type);
  if (!type) return fail(type.error());
  auto conf = policy::load_opensm_conf(args.opensm_conf_path);
  if (!conf) return fail(conf.error());
  // Without --op-vls, what OpenSM sets on a ConnectX-class port: its VLCap, lowered to the
  // file's max_op_vls.
  const uint8_t op_vls =
      args.op_vls.value_or(policy::operational_vls(policy::kDefaultVlCap, *conf));
  const policy::IbPortCaps caps{op_vls, args.vlarb_high_cap, args.vlarb_low_cap};
  if (Status status = policy::validate_port_caps(caps); !status) return fail(status.error());
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
  if (args.emit_suite) {
    std::cout << suite_block(args, caps, *type);
  } else if (args.json) {
    std::cout << json_port_qos(qos) << "\n";
  } else {
    const std::string op_vls_source =
        args.op_vls ? " from --op-vls"
        : conf->max_op_vls
            ? " = min(VLCap 4, max_op_vls " + std::to_string(*conf->max_op_vls) + " in opensm.conf)"
            : " (VLCap 4 assumed; --op-vls sets it)";
    std::cout << text_port_qos(qos, *type, caps, op_vls_source);
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
