// Flow -> traffic class -> DSCP / priority / TC (Ethernet: DSCP or PCP trust, dscp2prio,
// prio_tc), or SL -> VL (InfiniBand: SL2VL).
#include "class_resolution.hpp"

#include <fmt/format.h>

#include <utility>

#include "qb/policies/opensm_policy_match.hpp"
#include "qos_loader.hpp"

namespace qb::suite::detail {
namespace {

using policy::TcLabel;
using policy::Transport;

policy::IbArbitration ib_port(const IbQosSpec& ib, policy::IbPortType type) {
  policy::IbArbitration port;
  port.op_vls = ib.caps.op_vls;
  // Without an opensm.conf, OpenSM's built-in defaults (an empty conf resolves to them).
  static const policy::OpensmConf kDefaults{};
  port.tables =
      policy::program_port_qos(ib.opensm_conf ? *ib.opensm_conf : kDefaults, type, ib.caps);
  if (ib.sl2vl) port.tables.sl2vl = *ib.sl2vl;
  if (ib.vlarb_high) port.tables.vlarb_high = *ib.vlarb_high;
  if (ib.vlarb_low) port.tables.vlarb_low = *ib.vlarb_low;
  if (ib.high_limit) port.tables.high_limit = *ib.high_limit;
  if (type == policy::IbPortType::ca) fabric::apply_tables(ib.ca_tables, port.tables);
  if (type == policy::IbPortType::swe) fabric::apply_tables(ib.swe_tables, port.tables);
  return port;
}

// Does the suite use classes at all? Without, flows keep empty notes (plans as before).
bool classes_configured(const Scenario& scenario) {
  if (scenario.traffic_class.present || scenario.eth.present || scenario.ib.present) return true;
  for (const auto& flow : scenario.flows) {
    if (flow.tx_tclass.label != TcLabel::unspec || flow.rx_tclass.label != TcLabel::unspec ||
        flow.sl) {
      return true;
    }
  }
  return false;
}

// Everything about one [[flow]] entry; its instances share it.
struct FlowClass {
  policy::TrafficClass tx, rx;
  uint8_t dscp = 0;
  uint8_t sl = 0;
  uint8_t priority = 0;
  uint8_t arb_class = 0;
  uint8_t switch_arb_class = 0;
  bool dropped = false;
  std::string note;
};

void append(std::string& note, std::string_view part) {
  if (part.empty()) return;
  if (!note.empty()) note += "; ";
  note += part;
}

Result<FlowClass> resolve_flow(const Scenario& scenario, const FlowSpec& flow,
                               const policy::QosPlan& plan,
                               std::vector<Warning>& warnings) {
  const TrafficClassSpec& domain = scenario.traffic_class;
  const Transport transport = scenario.port.wire.transport;
  FlowClass out;

  // 1. libfabric inheritance, then what the provider does with the class.
  const bool tx_inherited = flow.tx_tclass.label == TcLabel::unspec;
  const policy::TrafficClass requested = policy::inherit_tclass(domain.domain, flow.tx_tclass);
  out.rx = policy::inherit_tclass(domain.domain, flow.rx_tclass);
  const std::string tx_where = tx_inherited ? domain.domain_where : flow.tx_tclass_where;
  const SourceLoc& tx_loc = tx_inherited ? domain.domain_loc : flow.tx_tclass_loc;
  const policy::ProviderVerdict verdict = policy::apply_provider(domain.provider, requested);
  if (verdict.rejected) {
    return make_error(Errc::invalid_config, fmt::format("flow '{}': {}", flow.name, verdict.note),
                      tx_where, tx_loc.line != 0 ? tx_loc : flow.loc);
  }
  const auto rx_verdict = policy::apply_provider(domain.provider, out.rx);
  if (rx_verdict.rejected) {
    const bool rx_inherited = flow.rx_tclass.label == TcLabel::unspec;
    return make_error(Errc::invalid_config,
                      fmt::format("flow '{}': rx {}", flow.name, rx_verdict.note),
                      rx_inherited ? domain.domain_where : flow.where + ".rx_tclass",
                      rx_inherited ? domain.domain_loc : flow.rx_tclass_loc);
  }
  out.rx = rx_verdict.effective;
  out.tx = verdict.effective;
  if (requested.label != TcLabel::unspec || domain.provider != policy::TcProvider::none) {
    append(out.note,
           fmt::format("tclass {}{}", policy::tc_name(requested), tx_inherited ? " (domain)" : ""));
  }
  if (!verdict.note.empty()) {
    append(out.note, verdict.note);
    if (verdict.effective != requested) {
      add_warning(warnings, Warning{fmt::format("flow '{}': {}", flow.name, verdict.note),
                                            tx_where, tx_loc.line != 0 ? tx_loc : flow.loc});
    }
  }

  // 2. DSCP (IP networks only): the label table, unless the provider sends nothing.
  if (transport != Transport::ib && !verdict.ignored) {
    out.dscp = domain.dscp_table.dscp_for(out.tx);
    if (out.tx.label != TcLabel::unspec || domain.present) {
      append(out.note, fmt::format("DSCP {}", out.dscp));
    }
  }

  // 3. SL (RoCE: the QP's sl; eth: the PCP): explicit > provider > qos-policy > 0.
  if (flow.sl) {
    out.sl = *flow.sl;
    append(out.note, fmt::format("{} {}", transport == Transport::eth ? "PCP" : "SL", out.sl));
    if (scenario.ib.qos_policy) append(out.note, "explicit sl wins over the qos-policy");
  } else if (verdict.sl) {
    out.sl = *verdict.sl;
    append(out.note,
           fmt::format("SL {} (provider {})", out.sl, policy::tc_provider_name(domain.provider)));
  } else if (scenario.ib.qos_policy) {
    const policy::SlMatch match = policy::match_sl(*scenario.ib.qos_policy, flow.path_query);
    out.sl = match.sl;
    append(out.note, fmt::format("SL {} from qos-policy {}", out.sl, match.rule));
  }

  // 4. The port's class.
  switch (plan.nic_qos.kind) {
    case policy::PortQos::Kind::ets: {
      const policy::EthPortQos& eth = plan.nic_qos.eth;
      if (eth.trust == policy::EthTrust::dscp) {
        out.priority = eth.dscp2prio[out.dscp];
        append(out.note,
               fmt::format("trust dscp: dscp2prio[{}] = priority {}", out.dscp, out.priority));
      } else {
        out.priority = static_cast<uint8_t>(out.sl & 7);
        append(out.note, fmt::format("trust pcp: priority {}", out.priority));
      }
      out.arb_class = eth.prio_tc[out.priority];
      append(out.note, fmt::format("prio_tc -> TC{}", out.arb_class));
      out.switch_arb_class = out.arb_class;  // the switch trusts the same marking
      break;
    }
    case policy::PortQos::Kind::vlarb: {
      const uint8_t vl = plan.nic_qos.ib.tables.sl2vl[out.sl & 15];
      out.arb_class = vl;
      out.switch_arb_class = vl;
      if (vl == policy::kDropVl) {
        out.dropped = true;
        append(out.note, fmt::format("SL2VL sends SL {} to VL15: dropped", out.sl));
      } else {
        append(out.note, fmt::format("SL2VL -> VL{}", vl));
      }
      if ((plan.switched || scenario.topology) && !out.dropped) {
        const uint8_t switch_vl = plan.switch_qos.ib.tables.sl2vl[out.sl & 15];
        out.switch_arb_class = switch_vl;
        if (switch_vl == policy::kDropVl) {
          out.dropped = true;
          append(out.note, fmt::format("switch SL2VL sends SL {} to VL15: dropped", out.sl));
        } else if (switch_vl != vl) {
          append(out.note, fmt::format("switch VL{}", switch_vl));
        }
      }
      if (out.dropped) {
        add_warning(warnings,
                    Warning{fmt::format("flow '{}': SL {} maps to VL15, every packet is "
                                                "dropped (expected rate 0)",
                                                flow.name, out.sl),
                                    flow.sl_loc.line != 0 ? flow.where + ".sl" : flow.where,
                                    flow.sl_loc.line != 0 ? flow.sl_loc : flow.loc});
      }
      break;
    }
    case policy::PortQos::Kind::none:
      // No port arbitration: the priority the packets carry, for drivers that mark them.
      out.priority = static_cast<uint8_t>(out.sl & 7);
      break;
  }
  return out;
}

}  // namespace

policy::PortQos nic_port_qos(const Scenario& scenario) {
  policy::PortQos qos;
  if (scenario.eth.present) {
    qos.kind = policy::PortQos::Kind::ets;
    qos.eth = scenario.eth.qos;
  } else if (scenario.ib.present) {
    qos.kind = policy::PortQos::Kind::vlarb;
    qos.ib = ib_port(scenario.ib, policy::IbPortType::ca);
  }
  return qos;
}

policy::PortQos switch_port_qos(const Scenario& scenario) {
  if (scenario.ib.present) {
    policy::PortQos qos;
    qos.kind = policy::PortQos::Kind::vlarb;
    qos.ib = ib_port(scenario.ib, policy::IbPortType::swe);
    return qos;
  }
  return nic_port_qos(scenario);
}

Status resolve_classes(const Scenario& scenario, const std::vector<uint32_t>& flow_spec,
                       policy::QosPlan& plan, std::vector<Warning>& warnings) {
  plan.nic_qos = nic_port_qos(scenario);
  plan.hosts = scenario.fabric.hosts;
  plan.switched = scenario.fabric.switched;
  if (plan.switched) {
    plan.switch_rate_bps = scenario.fabric.switch_rate_bps > 0.0 ? scenario.fabric.switch_rate_bps
                                                                 : scenario.port.rate_bps;
    plan.switch_qos = switch_port_qos(scenario);
  } else if (scenario.topology) {
    plan.switch_qos = switch_port_qos(scenario);  // every switch egress of the graph
  }
  const bool notes = classes_configured(scenario);
  std::vector<FlowClass> classes;
  classes.reserve(scenario.flows.size());
  for (const FlowSpec& flow : scenario.flows) {
    auto resolved = resolve_flow(scenario, flow, plan, warnings);
    if (!resolved) return std::move(resolved).error();
    classes.push_back(std::move(*resolved));
  }
  for (size_t i = 0; i < plan.flows.size(); ++i) {
    const FlowClass& resolved = classes[flow_spec[i]];
    policy::FlowPlan& flow = plan.flows[i];
    flow.host = scenario.flows[flow_spec[i]].host;
    flow.tx_tclass = resolved.tx;
    flow.rx_tclass = resolved.rx;
    flow.dscp = resolved.dscp;
    flow.sl = resolved.sl;
    flow.priority = resolved.priority;
    flow.arb_class = resolved.arb_class;
    flow.switch_arb_class = resolved.switch_arb_class;
    flow.dropped = resolved.dropped;
    if (notes) flow.class_note = resolved.note;
  }
  return {};
}

}  // namespace qb::suite::detail
