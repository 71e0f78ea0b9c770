// qosbench import-opensm --fabric-dir DIR: a fabric as OpenSM configured it, read back through the
// diag tools (scripts/opensm-fabric.sh writes DIR): the topology (ibnetdiscover.txt), every
// switch's LFT (lfts.txt, dump_lfts) and every port's SL2VL/VLArb tables (port-tables.txt,
// smpquery), printed as a suite: [ib] with the opensm.conf, [topology] of the ibnetdiscover file
// with routing = "lft", one [[topology.lft]] per switch and [[topology.switch_qos]] entries with
// OpenSM's tables per switch port. --json prints the same as read (docs/opensm-sim.md).
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "commands.hpp"
#include "import_opensm.hpp"
#include "qb/common/units.hpp"
#include "qb/fabric/ib_diag.hpp"
#include "qb/fabric/ibnetdiscover.hpp"

namespace qb::cli {
namespace {

constexpr size_t kMaxDiagFileBytes = 64u << 20;

int fail(const Error& error) {
  std::cerr << error.to_string() << "\n";
  return exit_code_for(error.code);
}

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(Errc::invalid_config, "cannot read " + path, "--fabric-dir");
  std::ostringstream text;
  text << in.rdbuf();
  std::string out = std::move(text).str();
  if (out.size() > kMaxDiagFileBytes) {
    return make_error(Errc::invalid_config, fmt::format("{} is above {} bytes", path,
                                                        kMaxDiagFileBytes),
                      "--fabric-dir");
  }
  return out;
}

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string sl2vl_list(const std::array<uint8_t, 16>& sl2vl) {
  std::string out = "[";
  for (size_t sl = 0; sl < sl2vl.size(); ++sl) out += (sl > 0 ? "," : "") + std::to_string(sl2vl[sl]);
  return out + "]";
}

// The SL2VL row a port's table is taken from: a transit row (another input port), else the one.
const std::array<uint8_t, 16>& port_sl2vl(const fabric::DiagPortTables& port) {
  for (const auto& [in, row] : port.sl2vl_rows) {
    if (in != port.port && in != 0) return row;
  }
  return port.sl2vl_rows.front().second;
}

struct Imported {
  fabric::IbnetFile net;
  std::string net_path;
  std::vector<fabric::DiagLft> lfts;
  std::vector<fabric::DiagPortTables> ports;
  // Per LFT: the switch's node id; per host (CA node, file order): its port GUID.
  std::vector<std::string> lft_switch;
  std::map<uint64_t, std::string> host_by_guid;
  // --net: the suite's topology file and each ibnetdiscover id's name there (empty: the ids).
  std::string topology_path;
  std::map<std::string, std::string> rename;
};

// The node's name in the suite.
const std::string& suite_name(const Imported& in, const std::string& id) {
  auto it = in.rename.find(id);
  return it == in.rename.end() ? id : it->second;
}

const fabric::IbnetNode* find_node(const fabric::IbnetFile& net, const std::string& id) {
  for (const fabric::IbnetNode& node : net.nodes) {
    if (node.id == id) return &node;
  }
  return nullptr;
}

const fabric::IbnetPort* find_port(const fabric::IbnetNode& node, uint32_t port) {
  for (const fabric::IbnetPort& p : node.links) {
    if (p.port == port) return &p;
  }
  return nullptr;
}

// --net FILE: ibsim names each node's description after its id in FILE, so a discovered node is
// FILE's node of that name. Every node must match one of the same type, and every cable the
// same ports, else the LFTs' ports would mean other cables in FILE.
Status name_by_net(Imported& in, const std::string& net_path) {
  auto text = read_file(net_path);
  if (!text) return text.error();
  auto net = fabric::parse_ibnetdiscover(*text, net_path);
  if (!net) return net.error();
  for (const fabric::IbnetNode& node : in.net.nodes) {
    const fabric::IbnetNode* named = find_node(*net, node.description);
    if (node.description.empty() || named == nullptr || named->is_switch != node.is_switch) {
      return make_error(Errc::invalid_config,
                        fmt::format("{} \"{}\" (description \"{}\") is no {} of {}",
                                    node.is_switch ? "switch" : "host", node.id, node.description,
                                    node.is_switch ? "switch" : "host", net_path),
                        "--net", node.loc);
    }
    for (const auto& [id, name] : in.rename) {
      if (name == node.description) {
        return make_error(Errc::invalid_config,
                          fmt::format("\"{}\" and \"{}\" both have the description \"{}\"",
                                      id, node.id, name),
                          "--net", node.loc);
      }
    }
    in.rename[node.id] = node.description;
  }
  for (const fabric::IbnetNode& node : net->nodes) {
    bool matched = false;
    for (const auto& [id, name] : in.rename) matched = matched || name == node.id;
    if (!matched) {
      return make_error(Errc::invalid_config,
                        fmt::format("node \"{}\" is not in {}", node.id, in.net_path), "--net",
                        node.loc);
    }
  }
  for (const fabric::IbnetNode& node : in.net.nodes) {
    const fabric::IbnetNode& named = *find_node(*net, node.description);
    for (const fabric::IbnetPort& port : node.links) {
      const fabric::IbnetPort* there = find_port(named, port.port);
      const std::string remote = suite_name(in, port.remote);
      if (there == nullptr || there->remote != remote || there->remote_port != port.remote_port) {
        return make_error(
            Errc::invalid_config,
            fmt::format("port {} of \"{}\" leads to \"{}\"[{}] here, but {} in {}", port.port,
                        named.id, remote, port.remote_port,
                        there == nullptr ? std::string("is not linked")
                                         : fmt::format("to \"{}\"[{}]", there->remote,
                                                       there->remote_port),
                        net_path),
            "--net", port.loc);
      }
    }
  }
  in.topology_path = absolute_path(net_path);
  return {};
}

Result<Imported> read_dir(const std::string& dir) {
  Imported out;
  const std::filesystem::path base(dir);
  out.net_path = absolute_path((base / "ibnetdiscover.txt").string());
  auto net_text = read_file(out.net_path);
  if (!net_text) return net_text.error();
  auto net = fabric::parse_ibnetdiscover(*net_text, out.net_path);
  if (!net) return net.error();
  out.net = std::move(*net);
  const std::string lft_path = (base / "lfts.txt").string();
  auto lft_text = read_file(lft_path);
  if (!lft_text) return lft_text.error();
  auto lfts = fabric::parse_dump_lfts(*lft_text, lft_path);
  if (!lfts) return lfts.error();
  out.lfts = std::move(*lfts);
  const std::string ports_path = (base / "port-tables.txt").string();
  auto ports_text = read_file(ports_path);
  if (!ports_text) return ports_text.error();
  auto ports = fabric::parse_port_tables(*ports_text, ports_path);
  if (!ports) return ports.error();
  out.ports = std::move(*ports);

  for (const fabric::IbnetNode& node : out.net.nodes) {
    if (node.is_switch) continue;
    for (const fabric::IbnetPort& port : node.links) {
      if (port.port_guid != 0) out.host_by_guid[port.port_guid] = node.id;
    }
  }
  // ibnetdiscover names a switch "S-" and its GUID in 16 hex digits.
  for (const fabric::DiagLft& lft : out.lfts) {
    const std::string id = fmt::format("S-{:016x}", lft.switch_guid);
    bool found = false;
    for (const fabric::IbnetNode& node : out.net.nodes) found = found || (node.is_switch && node.id == id);
    if (!found) {
      return make_error(Errc::invalid_config,
                        fmt::format("the LFT of switch GUID {:#x} ({}) names no switch of {} "
                                    "(expected node \"{}\")",
                                    lft.switch_guid, lft.description, out.net_path, id),
                        "", lft.loc);
    }
    out.lft_switch.push_back(id);
  }
  for (const fabric::DiagPortTables& port : out.ports) {
    bool found = false;
    for (const fabric::IbnetNode& node : out.net.nodes) found = found || node.id == port.node;
    if (!found) {
      return make_error(Errc::invalid_config,
                        fmt::format("node \"{}\" is not in {}", port.node, out.net_path), "",
                        port.loc);
    }
    if (auto problem = fabric::sl2vl_rows_problem(port); !problem.empty()) {
      std::cerr << port.loc.file << ':' << port.loc.line << ": warning: " << problem
                << " (the row of another input port is used)\n";
    }
  }
  return out;
}

bool is_switch(const Imported& in, const std::string& id) {
  for (const fabric::IbnetNode& node : in.net.nodes) {
    if (node.id == id) return node.is_switch;
  }
  return false;
}

// Host id -> output port, per switch (the LFT entries that lead to a CA port of a host).
std::map<std::string, uint32_t> host_routes(const Imported& in, const fabric::DiagLft& lft) {
  std::map<std::string, uint32_t> routes;
  for (const fabric::DiagLftEntry& entry : lft.entries) {
    if (!entry.to_ca) continue;
    auto host = in.host_by_guid.find(entry.port_guid);
    if (host != in.host_by_guid.end() && entry.port != 0) {
      routes[suite_name(in, host->second)] = entry.port;
    }
  }
  return routes;
}

std::string as_json(const Imported& in) {
  std::string out = "{\"topology\":" + json_string(in.topology_path) + ",\"lfts\":{";
  for (size_t i = 0; i < in.lfts.size(); ++i) {
    out += (i > 0 ? "," : "") + json_string(suite_name(in, in.lft_switch[i])) + ":{";
    bool first = true;
    for (const auto& [host, port] : host_routes(in, in.lfts[i])) {
      out += (first ? "" : ",") + json_string(host) + ":" + std::to_string(port);
      first = false;
    }
    out += "}";
  }
  out += "},\"ports\":[";
  for (size_t i = 0; i < in.ports.size(); ++i) {
    const fabric::DiagPortTables& port = in.ports[i];
    out += fmt::format("{}{{\"node\":{},\"port\":{},\"type\":\"{}\",\"sl2vl\":{},\"vlarb_high\":{},"
                       "\"vlarb_low\":{}}}",
                       i > 0 ? "," : "", json_string(suite_name(in, port.node)), port.port,
                       is_switch(in, port.node) ? "swe" : "ca", sl2vl_list(port_sl2vl(port)),
                       json_table(port.vlarb_high), json_table(port.vlarb_low));
  }
  return out + "]}";
}

std::string toml_pairs(const std::vector<policy::VlArbEntry>& table) {
  std::string out = "[";
  for (size_t i = 0; i < table.size(); ++i) {
    out += fmt::format("{}[{}, {}]", i > 0 ? ", " : "", table[i].vl, table[i].weight);
  }
  return out + "]";
}

std::string as_suite(const ImportOpensmArgs& args, const Imported& in, uint8_t op_vls) {
  std::string out = "# from: qosbench import-opensm --opensm-conf " + args.opensm_conf_path;
  if (!args.qos_policy_path.empty()) out += " --qos-policy " + args.qos_policy_path;
  out += " --fabric-dir " + args.fabric_dir;
  if (!args.net_path.empty()) out += " --net " + args.net_path;
  out += "\n";
  out += "# The topology, the switches' LFTs and the tables OpenSM programmed on every switch\n"
         "# port, as the diag tools read them back (ibnetdiscover, dump_lfts, smpquery).\n";
  out += "[suite]\nname = \"opensm fabric\"\n\n[port]\ntransport = \"ib\"\n\n[ib]\n";
  out += "opensm_conf = " + toml_string(absolute_path(args.opensm_conf_path)) + "\n";
  if (!args.qos_policy_path.empty()) {
    out += "qos_policy = " + toml_string(absolute_path(args.qos_policy_path)) + "\n";
  }
  out += fmt::format("op_vls = {}\nvlarb_high_cap = {}\nvlarb_low_cap = {}\n\n", op_vls,
                     args.vlarb_high_cap, args.vlarb_low_cap);
  out += "[topology]\nkind = \"ibnetdiscover\"\nfile = " + toml_string(in.topology_path) + "\n";
  out += "rate = " + toml_string(args.rate) + "  # links whose lines give no speed\n";
  out += "routing = \"lft\"\n";
  for (size_t i = 0; i < in.lfts.size(); ++i) {
    out += "\n[[topology.lft]]\nswitch = " + toml_string(suite_name(in, in.lft_switch[i])) +
           "\nroutes = { ";
    bool first = true;
    for (const auto& [host, port] : host_routes(in, in.lfts[i])) {
      out += (first ? "" : ", ") + toml_string(host) + " = " + std::to_string(port);
      first = false;
    }
    out += " }\n";
  }
  // One entry per switch and set of equal tables.
  struct Group {
    std::string node;
    std::vector<uint32_t> ports;
    const fabric::DiagPortTables* tables;
  };
  std::vector<Group> groups;
  for (const fabric::DiagPortTables& port : in.ports) {
    if (!is_switch(in, port.node)) continue;
    Group* same = nullptr;
    for (Group& g : groups) {
      if (g.node == port.node && port_sl2vl(*g.tables) == port_sl2vl(port) &&
          g.tables->vlarb_high == port.vlarb_high && g.tables->vlarb_low == port.vlarb_low) {
        same = &g;
      }
    }
    if (same == nullptr) {
      groups.push_back(Group{port.node, {}, &port});
      same = &groups.back();
    }
    same->ports.push_back(port.port);
  }
  for (const Group& g : groups) {
    out += "\n[[topology.switch_qos]]  # OpenSM's tables, read back\nswitch = " +
           toml_string(suite_name(in, g.node)) + "\nports = [";
    for (size_t i = 0; i < g.ports.size(); ++i) out += (i > 0 ? ", " : "") + std::to_string(g.ports[i]);
    out += "]\nsl2vl = " + sl2vl_list(port_sl2vl(*g.tables)) + "\n";
    out += "vlarb_high = " + toml_pairs(g.tables->vlarb_high) + "\n";
    out += "vlarb_low = " + toml_pairs(g.tables->vlarb_low) + "\n";
  }
  out += "\n[[flow]]\nname = \"all-to-all\"\nsize = \"1MiB\"\nrate = \"saturate\"\n"
         "sources = \"*\"\ndestinations = \"all-to-all\"\n";
  return out;
}

}  // namespace

int import_opensm_fabric(const ImportOpensmArgs& args) {
  if (args.emit_suite) {
    return fail(make_error(Errc::usage, "--fabric-dir prints a suite already; leave out "
                                        "--emit-suite"));
  }
  auto rate = parse_rate(args.rate);
  if (!rate || rate->unit != Rate::Unit::bits_per_second || !(rate->value > 0.0)) {
    return fail(make_error(Errc::usage, fmt::format("--rate '{}' is not a bit rate such as "
                                                    "\"100Gbps\"",
                                                    args.rate)));
  }
  auto conf = policy::load_opensm_conf(args.opensm_conf_path);
  if (!conf) return fail(conf.error());
  const uint8_t op_vls =
      args.op_vls.value_or(policy::operational_vls(policy::kDefaultVlCap, *conf));
  auto imported = read_dir(args.fabric_dir);
  if (!imported) return fail(imported.error());
  // OpenSM masks every table with the port's operational VLs: a VL beyond them was read with
  // other VLs than this import assumes (--op-vls, opensm.conf's max_op_vls).
  for (const fabric::DiagPortTables& port : imported->ports) {
    if (Status vls = fabric::check_port_vls(port, policy::max_data_vl(op_vls)); !vls) {
      return fail(vls.error());
    }
  }
  imported->topology_path = imported->net_path;
  if (!args.net_path.empty()) {
    if (Status named = name_by_net(*imported, args.net_path); !named) return fail(named.error());
  }
  std::cout << (args.json ? as_json(*imported) + "\n" : as_suite(args, *imported, op_vls));
  return std::cout.good() ? 0 : 3;
}

}  // namespace qb::cli
