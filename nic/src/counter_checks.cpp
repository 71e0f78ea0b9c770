// The counter reconciliation: each check compares what the port counted with what the suite
// sent or assumes, and says in words what went wrong.
#include "qb/nic/counter_checks.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <initializer_list>
#include <optional>

#include "qb/nic/counter_names.hpp"

namespace qb::nic {
namespace {

std::optional<double> get(const CounterCheckInput& in, const std::string& key) {
  const auto it = in.deltas.find(key);
  if (it == in.deltas.end()) return std::nullopt;
  return it->second;
}

std::string percent(double share) {
  return fmt::format("{:.0f}%", share * 100.0);
}

// One source's per-priority counters of some kinds, by direction and priority, with the names
// the device gave them.
struct PriorityCounters {
  std::string source;  // "ethtool" or "dpdk"
  struct Value {
    double delta = 0.0;
    std::string name;
  };
  // [tx][priority][kind index]
  std::array<std::array<std::vector<std::optional<Value>>, 8>, 2> values;
  bool any = false;
  // Unset when the source has no such counter (or no source had any: empty vectors).
  const std::optional<Value>& at(bool tx, uint8_t p, size_t kind) const {
    static const std::optional<Value> kNone;
    const auto& kinds = values[tx ? 1 : 0][p];
    return kind < kinds.size() ? kinds[kind] : kNone;
  }
};

// The first source (kPrioritySources order) with a counter of one of `kinds` (in `tx` only,
// when given): a port shows one hardware counter in both, so one source is read, not summed.
PriorityCounters priority_counters(const CounterCheckInput& in,
                                   std::initializer_list<std::string_view> kinds,
                                   std::optional<bool> tx = std::nullopt) {
  for (std::string_view source : kPrioritySources) {
    PriorityCounters found;
    found.source = std::string(source);
    for (auto& dir : found.values) {
      for (auto& prio : dir) prio.resize(kinds.size());
    }
    const std::string prefix = fmt::format("{}.", source);
    for (const auto& [key, delta] : in.deltas) {
      if (!key.starts_with(prefix)) continue;
      const std::string name = key.substr(prefix.size());
      const auto counter = priority_counter(name);
      if (!counter || (tx && counter->tx != *tx)) continue;
      for (size_t k = 0; k < kinds.size(); ++k) {
        if (counter->kind != *(kinds.begin() + k)) continue;
        found.values[counter->tx ? 1 : 0][counter->priority][k] =
            PriorityCounters::Value{delta, name};
        found.any = true;
      }
    }
    if (found.any) return found;
  }
  return {};
}

// "xstats " before a DPDK counter's name in the details, so a reader knows where to look.
std::string shown(const PriorityCounters& c, const std::string& name) {
  return c.source == "dpdk" ? "xstat " + name : name;
}

CounterCheck priority_bytes(const CounterCheckInput& in) {
  CounterCheck c{"priority_bytes", true, true, {}};
  if (!in.ethernet) {
    c.checked = false;
    c.detail = "InfiniBand port: no Ethernet priorities";
    return c;
  }
  if (in.direction == CounterDirection::loopback) {
    c.checked = false;
    c.detail =
        "loopback: the NIC loops the traffic back before the wire, its per-priority "
        "counters need not see it (two hosts check it)";
    return c;
  }
  const bool tx = in.direction == CounterDirection::tx;
  const char* dir = tx ? "tx" : "rx";
  const PriorityCounters found = priority_counters(in, {"bytes"}, tx);
  std::array<double, 8> counted{};
  double counted_total = 0.0;
  for (uint8_t p = 0; p < 8; ++p) {
    if (const auto& v = found.at(tx, p, 0)) {
      counted[p] = v->delta;
      counted_total += v->delta;
    }
  }
  if (!found.any) {
    c.checked = false;
    c.detail = fmt::format(
        "no {}_prio<N>_bytes counters (not an mlx5 netdev, ethtool statistics not readable, "
        "and no PMD xstat of that name: the mlx5 PMD's have none)",
        dir);
    return c;
  }
  double sent_total = 0.0;
  for (double b : in.flow_frame_bytes) sent_total += b;
  if (sent_total <= 0.0) {
    c.checked = false;
    c.detail = "the suite's flows sent nothing in the window";
    return c;
  }
  if (counted_total <= 0.0) {
    c.passed = false;
    c.detail = fmt::format(
        "the NIC counted no byte on any priority ({}_prio0..7_bytes) while "
        "the suite's flows sent {:.0f} bytes: the traffic did not go through "
        "this port's priority queues",
        dir, sent_total);
    return c;
  }
  std::vector<std::string> wrong, where_it_went;
  for (uint8_t p = 0; p < 8; ++p) {
    const double want = in.flow_frame_bytes[p] / sent_total;
    const double got = counted[p] / counted_total;
    if (want > 0.0 && got + kPriorityShareTolerance < want) {
      wrong.push_back(fmt::format(
          "priority {}: the suite's flows of it sent {} of the bytes, "
          "the NIC counted {} there ({})",
          p, percent(want), percent(got), shown(found, fmt::format("{}_prio{}_bytes", dir, p))));
    }
    if (got > want + kPriorityShareTolerance) {
      where_it_went.push_back(
          fmt::format("priority {} counted {} ({} expected)", p, percent(got), percent(want)));
    }
  }
  if (wrong.empty() && where_it_went.empty()) {
    c.detail = fmt::format("{} bytes per priority within {:.0f} points of the flows' shares ({})",
                           dir, kPriorityShareTolerance * 100.0,
                           found.source == "dpdk" ? "PMD xstats" : "ethtool statistics");
    return c;
  }
  c.passed = false;
  c.detail = fmt::format(
      "{}{}{}: the flows' marking did not land in the class it was meant for (the port's trust "
      "mode and dscp2prio, the QP's traffic class or SL; some ConnectX firmware and post paths "
      "ignore a traffic class set per QP)",
      fmt::join(wrong, "; "), wrong.empty() || where_it_went.empty() ? "" : "; ",
      fmt::join(where_it_went, "; "));
  return c;
}

CounterCheck cnp_vs_ecn(const CounterCheckInput& in) {
  CounterCheck c{"cnp_vs_ecn", true, true, {}};
  const auto marked = get(in, "rdma.np_ecn_marked_roce_packets");
  const auto sent = get(in, "rdma.np_cnp_sent");
  const auto handled = get(in, "rdma.rp_cnp_handled");
  const auto ignored = get(in, "rdma.rp_cnp_ignored");
  if (!marked && !sent && !handled) {
    c.checked = false;
    c.detail =
        "no congestion counters (np_ecn_marked_roce_packets, np_cnp_sent, rp_cnp_handled) "
        "on this device";
    return c;
  }
  std::vector<std::string> problems;
  const std::string roce_np =
      in.netdev.empty() ? "/sys/class/net/<netdev>/ecn/roce_np/enable/<priority>"
                        : fmt::format("/sys/class/net/{}/ecn/roce_np/enable/<priority>", in.netdev);
  const std::string roce_rp =
      in.netdev.empty() ? "/sys/class/net/<netdev>/ecn/roce_rp/enable/<priority>"
                        : fmt::format("/sys/class/net/{}/ecn/roce_rp/enable/<priority>", in.netdev);
  if (marked && *marked > 0 && sent && *sent == 0) {
    problems.push_back(
        fmt::format("{:.0f} ECN-marked RoCE packets arrived and no CNP was sent: "
                    "the notification point is off for their priority ({})",
                    *marked, roce_np));
  }
  if (in.direction == CounterDirection::loopback && sent && *sent > 0 && handled && *handled == 0) {
    problems.push_back(
        fmt::format("{:.0f} CNPs were sent on this port and none handled: the "
                    "reaction point is off ({})",
                    *sent, roce_rp));
  }
  if (ignored && *ignored > 0) {
    problems.push_back(
        fmt::format("{:.0f} CNPs were ignored (rp_cnp_ignored): the reaction point "
                    "is off for their priority ({})",
                    *ignored, roce_rp));
  }
  if (!in.suite_ecn && ((marked && *marked > 0) || (handled && *handled > 0))) {
    problems.push_back(
        fmt::format("the fabric marked ECN ({:.0f} marked packets, {:.0f} CNPs "
                    "handled) but the suite models no ECN ([fabric.ecn]): DCQCN "
                    "slowed the senders the expectations do not slow",
                    marked.value_or(0), handled.value_or(0)));
  }
  if (problems.empty()) {
    c.detail = fmt::format("{:.0f} ECN-marked packets, {:.0f} CNPs sent, {:.0f} handled",
                           marked.value_or(0), sent.value_or(0), handled.value_or(0));
    return c;
  }
  c.passed = false;
  c.detail = fmt::format("{}", fmt::join(problems, "; "));
  return c;
}

CounterCheck pause_on_lossy(const CounterCheckInput& in) {
  CounterCheck c{"pause_on_lossy", true, true, {}};
  if (!in.ethernet) {
    c.checked = false;
    c.detail = "InfiniBand port: credit flow control, no pause frames";
    return c;
  }
  if (!in.lossless_known) {
    c.checked = false;
    c.detail = "the suite does not say which priorities are lossless ([eth] pfc)";
    return c;
  }
  const PriorityCounters found = priority_counters(in, {"pause"});
  std::vector<std::string> paused;
  for (uint8_t p = 0; p < 8; ++p) {
    double pauses = 0.0;
    std::vector<std::string> names;
    for (const bool tx : {true, false}) {
      if (const auto& v = found.at(tx, p, 0)) {
        pauses += v->delta;
        if (v->delta > 0)
          names.push_back(fmt::format("{} {:.0f}", shown(found, v->name), v->delta));
      }
    }
    if (pauses > 0 && ((in.lossless >> p) & 1U) == 0) {
      paused.push_back(fmt::format("priority {} ({})", p, fmt::join(names, ", ")));
    }
  }
  if (!found.any) {
    c.checked = false;
    c.detail = "no <tx|rx>_prio<N>_pause counters on this port";
    return c;
  }
  if (paused.empty()) {
    c.detail = "no pause frames on the priorities the suite thinks lossy";
    return c;
  }
  c.passed = false;
  c.detail = fmt::format(
      "pause frames on priorities the suite thinks lossy: {}: PFC is on "
      "there in the NIC or the switch, so back-pressure held flows the "
      "suite expects to drop instead",
      fmt::join(paused, "; "));
  return c;
}

CounterCheck discards_on_lossless(const CounterCheckInput& in) {
  CounterCheck c{"discards_on_lossless", true, true, {}};
  if (!in.ethernet) {
    c.checked = false;
    c.detail = "InfiniBand port: no per-priority discard counters";
    return c;
  }
  const PriorityCounters found = priority_counters(in, {"buf_discard", "cong_discard"}, false);
  if (!found.any) {
    c.checked = false;
    c.detail = "no rx_prio<N>_buf_discard / _cong_discard counters on this port";
    return c;
  }
  if (!in.lossless_known) {
    c.checked = false;
    c.detail = "the suite does not say which priorities are lossless ([eth] pfc)";
    return c;
  }
  std::vector<std::string> dropped, expected;
  for (uint8_t p = 0; p < 8; ++p) {
    std::vector<std::string> names;
    for (size_t kind = 0; kind < 2; ++kind) {
      if (const auto& v = found.at(false, p, kind); v && v->delta > 0) {
        names.push_back(fmt::format("{} {:.0f}", shown(found, v->name), v->delta));
      }
    }
    if (names.empty()) continue;
    const std::string text = fmt::format("priority {} ({})", p, fmt::join(names, ", "));
    (((in.lossless >> p) & 1U) != 0 ? dropped : expected).push_back(text);
  }
  if (dropped.empty()) {
    c.detail = expected.empty()
                   ? "no receive discards on any priority"
                   : fmt::format("receive discards only on priorities the suite thinks lossy: {}",
                                 fmt::join(expected, "; "));
    return c;
  }
  c.passed = false;
  c.detail = fmt::format(
      "the port dropped received packets on priorities the suite thinks lossless: {}: PFC is "
      "off there in the NIC (or its receive buffer for the priority is too small), so the "
      "flows lost what the suite expects back-pressure to hold",
      fmt::join(dropped, "; "));
  return c;
}

CounterCheck retransmissions(const CounterCheckInput& in) {
  CounterCheck c{"retransmissions", true, true, {}};
  std::vector<std::string> seen;
  bool any = false;
  for (const char* name : {"out_of_sequence", "packet_seq_err", "local_ack_timeout_err",
                           "rnr_nak_retry_err", "implied_nak_seq_err"}) {
    if (auto v = get(in, fmt::format("rdma.{}", name))) {
      any = true;
      if (*v > 0) seen.push_back(fmt::format("{} {:.0f}", name, *v));
    }
  }
  if (!any) {
    c.checked = false;
    c.detail = "no retransmission counters (out_of_sequence, packet_seq_err, ...) on this device";
    return c;
  }
  if (seen.empty()) {
    c.detail = "no loss or retransmission counted";
    return c;
  }
  if (in.suite_lossy) {
    c.detail = fmt::format("{} (the suite's fabric is lossy)", fmt::join(seen, ", "));
    return c;
  }
  c.passed = false;
  c.detail = fmt::format(
      "{}: packets were lost and sent again on a fabric the suite thinks "
      "lossless (PFC off on the flows' priority in the NIC or the switch?)",
      fmt::join(seen, ", "));
  return c;
}

}  // namespace

std::vector<CounterCheck> check_counters(const CounterCheckInput& input) {
  return {priority_bytes(input), cnp_vs_ecn(input), pause_on_lossy(input),
          discards_on_lossless(input), retransmissions(input)};
}

}  // namespace qb::nic
