// The scenario model: a suite as loaded from TOML, before compilation. Plain data.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "qb/common/config_table.hpp"
#include "qb/common/result.hpp"
#include "qb/fabric/topology_spec.hpp"
#include "qb/fabric/traffic.hpp"
#include "qb/generators/arrival_process.hpp"
#include "qb/generators/size_distribution.hpp"
#include "qb/policies/congestion.hpp"
#include "qb/policies/opensm_conf.hpp"
#include "qb/policies/opensm_policy.hpp"
#include "qb/policies/opensm_policy_match.hpp"
#include "qb/policies/port_qos.hpp"
#include "qb/policies/sched_tree.hpp"
#include "qb/policies/traffic_class.hpp"
#include "qb/policies/wire.hpp"

namespace qb::suite {

/// The largest port rate a suite may give: what mlx5dv's u32 Mbit/s fields can hold.
inline constexpr double kMaxPortRateBps = 4294967295.0 * 1e6;

struct PortSpec {
  double rate_bps = 100e9;
  /// `rate = "auto"`: the driver's port speed, filled in by resolve_auto_port_rates() before
  /// compiling (rate_bps is 0 until then).
  bool rate_auto = false;
  SourceLoc rate_loc;
  policy::WireModel wire;              // transport, mtu, vlan, ipv6
  int64_t propagation_delay_ns = 500;  // one way, NIC to NIC (cable + PHY), model default
  SourceLoc transport_loc;             // `transport` (or [port]): port.transport errors point here
};

struct FlowSpec {
  std::string name;  // reported as name#i when count > 1, and as a group
  uint32_t count = 1;
  SourceLoc count_loc;  // the `count` value (when written)
  std::string leaf;     // scheduling leaf; empty = the implicit default leaf
  policy::RdmaOp op = policy::RdmaOp::write;
  gen::SizeSpec size;
  gen::ArrivalSpec arrival;
  std::string where;   // "flow[0]"
  SourceLoc loc;       // the [[flow]] entry
  SourceLoc leaf_loc;  // the `leaf` value (when written)

  // Traffic class and QoS keys (docs/suite-format.md). Unset tclasses inherit the domain's.
  policy::TrafficClass tx_tclass;  // `tx_tclass` (or `dscp = N`); unspec = inherit
  policy::TrafficClass rx_tclass;  // `rx_tclass`
  SourceLoc tx_tclass_loc, rx_tclass_loc;
  std::string tx_tclass_where;  // "flow[0].tx_tclass" or "flow[0].dscp", whichever was written
  std::optional<uint8_t> sl;    // `sl` (rocev2/ib, 0-15) or `pcp` (eth, 0-7)
  SourceLoc sl_loc;
  uint32_t host = 0;  // `host`: sending host (< [fabric] hosts)
  SourceLoc host_loc;
  // `start`, `start_step`: instance i's first message leaves start + i * start_step after time
  // zero (the start of the warm-up), for flows that join a running fabric.
  int64_t start_ns = 0;
  int64_t start_step_ns = 0;
  SourceLoc start_loc;           // `start` (or `start_step`) when written
  policy::PathQuery path_query;  // service_id, pkey, qos_class, source_guid, destination_guid
  bool has_path_query = false;
  std::string path_query_where;  // the first of those keys written, for errors
  SourceLoc path_query_loc;
  /// `from`/`to` or `sources`/`destinations` (a [topology]'s hosts, docs/suite-format.md
  /// "Fabrics"): one (source, destination) per flow the entry gives; empty without them.
  std::vector<fabric::FlowEndpoints> endpoints;
};

/// `[traffic_class]`: the domain's tclass, the provider profile and the label -> DSCP table.
struct TrafficClassSpec {
  bool present = false;
  policy::TrafficClass domain;  // `tclass` or `dscp`
  SourceLoc domain_loc;
  std::string domain_where;  // "traffic_class.tclass" or "traffic_class.dscp"
  policy::TcProvider provider = policy::TcProvider::none;
  SourceLoc provider_loc;
  policy::LabelDscpTable dscp_table;  // defaults with `[traffic_class.dscp_table]` overrides
  std::string where;                  // "traffic_class" or "scenario[i].traffic_class"
  SourceLoc loc;
};

/// `[eth]`: ETS/DCB settings of every NIC port (and the switch egress). Validated at load time.
struct EthQosSpec {
  bool present = false;  // the port arbitrates by ETS only with the section
  policy::EthPortQos qos;
  std::string where;
  SourceLoc loc;
};

/// `[ib]`: the OpenSM files (loaded and checked at load time) and direct table overrides.
struct IbQosSpec {
  bool present = false;
  std::optional<policy::OpensmConf> opensm_conf;   // `opensm_conf` (absent: OpenSM's defaults)
  std::string opensm_conf_path;                    // resolved against the suite's directory
  std::optional<policy::OpensmPolicy> qos_policy;  // `qos_policy`
  std::string qos_policy_path;
  policy::IbPortCaps caps;  // op_vls, vlarb_high_cap, vlarb_low_cap (NIC and switch ports alike)
  // Direct values: replace the file's (or the defaults') on every port.
  std::optional<std::array<uint8_t, 16>> sl2vl;
  std::optional<std::vector<policy::VlArbEntry>> vlarb_high, vlarb_low;
  std::optional<uint8_t> high_limit;
  /// `[ib.ca]` / `[ib.swe]`: tables for one port type (host ports / switch external ports), over
  /// the file's set and the direct values above (issue 29 part 3).
  fabric::IbTablesOverride ca_tables, swe_tables;
  std::string where;
  SourceLoc loc;
};

/// Which rank of a multi-host job (mpirun on real devices) plays a host or the receiver:
/// `rank = N`, or `hostname = "..."` (the first rank on that machine not otherwise placed);
/// neither: the ranks left over, in order.
struct RankPlacement {
  std::optional<uint32_t> rank;
  std::string hostname;
  std::string where;  // "fabric.host[1]", "fabric.receiver"
  SourceLoc loc;      // of the `rank` or `hostname` value when given, else of the table

  bool given() const noexcept { return rank.has_value() || !hostname.empty(); }
};

/// `[fabric]`: sending hosts and the switch between them and the receiver, and its congestion
/// signals (`[fabric.ecn]`, `cnp_interval`).
struct FabricSpec {
  uint32_t hosts = 1;
  bool switched = false;         // default: hosts > 1
  double switch_rate_bps = 0.0;  // default: the port rate
  /// `[fabric.ecn]`: RED marking at the switch egress (classes: every class unless listed).
  bool ecn = false;
  policy::EcnMarking ecn_marking;
  std::vector<uint32_t> ecn_classes;          // empty: all
  std::vector<SourceLoc> ecn_class_locs;      // where each was written
  int64_t cnp_interval_ns = 4'000;            // mlx5 roce_np min_time_between_cnps default (4 us)
  bool lossy = false;                         // mode = "lossy": tail drop at the switch, go-back-N
  int64_t buffer_bytes = 0;                   // lossy: `buffer`, per switch egress class
  int64_t retransmit_timeout_ns = 1'048'576;  // lossy: 4.096 us * 2^8 (an RC QP's timeout 8)
  SourceLoc retransmit_timeout_loc;           // where it was written (line 0: the default)
  /// `[[fabric.host]]` (one per host, in host order, or none) and `[fabric.receiver]`: the
  /// ranks of a multi-host job; unused on one machine.
  std::vector<RankPlacement> host_ranks;
  RankPlacement receiver_rank;
  std::string where;
  SourceLoc loc;
};

/// `[dpa]`: the congestion-control program the sender NICs' DPA runs (and the receiver's),
/// with its named parameters (`[dpa.params]`, `[dpa.receiver_params]`), converted to the
/// program's units and checked against its parameter specs at load time.
struct DpaSpec {
  bool present = false;
  policy::DpaPlan plan;
  std::string where;
  SourceLoc loc;
};

struct LatencyGate {
  std::string flow;                      // a flow instance ("g1-qp#0") or a group ("g1-qp")
  enum class Basis { scheduled, sent };  // which histogram (default: from scheduled time)
  Basis basis = Basis::scheduled;
  std::optional<int64_t> p50_ns, p90_ns, p99_ns, p999_ns, max_ns;
  std::string where;   // "gates.latency[0]"
  SourceLoc loc;       // the entry
  SourceLoc flow_loc;  // the `flow` value
};

/// The judgements every run makes unless the suite turns them off with "off"
/// (docs/suite-format.md, "Gates"): per-flow and per-group shares, fairness and caps, and, with
/// joins or a DPA program, convergence. The defaults are met by every shipped suite.
inline constexpr double kDefaultMaxShareError = 0.05;
inline constexpr double kDefaultMaxGroupShareError = 0.05;
inline constexpr double kDefaultMinJain = 0.99;
inline constexpr double kDefaultMaxCapOvershoot = 0.01;
/// convergence_time's default: every change settles before the next one (or the window's end),
/// however long it takes.
inline constexpr int64_t kSettleWithinEpoch = std::numeric_limits<int64_t>::max();

/// The keys of [gates] that hold a judgement made by default (the ones "off" applies to).
inline constexpr const char* kDefaultJudgements[] = {"max_share_error", "max_group_share_error",
                                                     "min_jain", "max_cap_overshoot",
                                                     "convergence_time"};

struct GateSpec {
  // An empty limit is a judgement the suite turned off ("off"; listed in `off`).
  std::optional<double> max_share_error = kDefaultMaxShareError;  // per flow |measured/expected-1|
  std::optional<double> max_group_share_error = kDefaultMaxGroupShareError;  // per flow group
  std::optional<double> min_jain = kDefaultMinJain;  // normalised Jain over measured/expected
  std::optional<double> max_cap_overshoot = kDefaultMaxCapOvershoot;  // (measured/cap - 1)
  /// Congestion control: the longest time the flows took to settle on their shares after a
  /// flow joined (within convergence_tolerance), and the deepest switch egress queue.
  std::optional<int64_t> convergence_time_ns = kSettleWithinEpoch;
  double convergence_tolerance = 0.05;
  std::optional<int64_t> max_queue_depth_bytes;
  std::vector<LatencyGate> latency;
  /// The keys of kDefaultJudgements the suite turned off, in the order written.
  std::vector<std::string> off;
  /// The keys of kDefaultJudgements whose limit the suite wrote (the others hold the default).
  std::vector<std::string> from_suite;
  std::string where;  // "gates" or "scenario[i].gates"
  SourceLoc max_share_error_loc, convergence_time_loc, max_queue_depth_loc;  // when written

  bool written(std::string_view key) const noexcept {
    for (const auto& name : from_suite) {
      if (name == key) return true;
    }
    return false;
  }
  bool turned_off(std::string_view key) const noexcept {
    for (const auto& name : off) {
      if (name == key) return true;
    }
    return false;
  }
};

struct Scenario {
  std::string name;
  uint64_t seed = 1;
  uint32_t repetitions = 1;
  std::string repetitions_where;  // "suite.repetitions" or "scenario[i].repetitions" if written
  SourceLoc repetitions_loc;
  int64_t warmup_ns = 10'000'000;
  int64_t duration_ns = 100'000'000;
  int64_t bin_ns = 1'000'000;  // throughput time-series bin
  PortSpec port;
  std::vector<policy::SchedElementSpec> sched;
  std::vector<FlowSpec> flows;
  GateSpec gates;
  TrafficClassSpec traffic_class;
  EthQosSpec eth;
  IbQosSpec ib;
  FabricSpec fabric;
  DpaSpec dpa;
  /// `[topology]`: a multi-switch fabric (issue 29); loaded and checked, not yet compiled.
  std::optional<fabric::TopologySpec> topology;
  std::string where;  // "" for the single-scenario form, else "scenario[i]"
  SourceLoc loc;      // the file (and the [[scenario]] entry, when there is one)
};

struct Suite {
  std::string name;
  std::string description;     // [suite] description, free text
  std::string file;            // path as given
  std::string driver = "sim";  // [driver] name
  /// Every [driver.<name>] table, as written: each driver parses its own (drivers/registry.hpp).
  std::vector<ConfigTable> driver_tables;
  std::string config_hash;          // FNV-1a of the file bytes, hex
  std::vector<Scenario> scenarios;  // the single-scenario form gives exactly one
  std::vector<Warning> warnings;
};

/// The suite's [driver.<driver>] table, or an empty one at that path.
ConfigTable driver_table(const Suite& suite, std::string_view driver);

/// The first scenario port whose rate is "auto", or nullptr.
const PortSpec* first_auto_port(const Suite& suite) noexcept;
/// Gives every "auto" port `rate_bps` (a driver's port speed). Errc::invalid_config at the
/// first auto port's `rate` when it is not a usable rate (not > 0, above the largest the device
/// takes).
Status resolve_auto_port_rates(Suite& suite, double rate_bps);

}  // namespace qb::suite
