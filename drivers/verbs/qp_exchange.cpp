#include "qp_exchange.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstring>

namespace qb::drv::verbs {
namespace {

constexpr int kReplyWaitMs = 30'000;

std::string gid_hex(const ibv_gid& gid) {
  std::string out;
  for (const uint8_t byte : gid.raw) out += fmt::format("{:02x}", byte);
  return out;
}

bool parse_gid(std::string_view hex, ibv_gid& gid) {
  if (hex.size() != 32) return false;
  for (size_t i = 0; i < 16; ++i) {
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(hex.data() + 2 * i, hex.data() + 2 * i + 2, value, 16);
    if (ec != std::errc{} || end != hex.data() + 2 * i + 2) return false;
    gid.raw[i] = static_cast<uint8_t>(value);
  }
  return true;
}

template <class T>
bool parse_number(std::string_view text, T& value) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc{} && end == text.data() + text.size();
}

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

struct Fnv1a {
  uint64_t value = 0xcbf29ce484222325ULL;
  void add(std::string_view text) {
    for (const char c : text) {
      value ^= static_cast<uint8_t>(c);
      value *= 0x100000001b3ULL;
    }
    value ^= 0xff;  // a separator, so ("ab","c") and ("a","bc") differ
    value *= 0x100000001b3ULL;
  }
  void add(double number) { add(fmt::format("{:.17g}", number)); }
};

}  // namespace

std::string format_endpoint(const QpEndpoint& e) {
  return fmt::format("ep {} {} {} {} {} {} {}", e.flow, e.qp_num, e.psn, e.lid, gid_hex(e.gid),
                     e.rkey, e.address);
}

Result<QpEndpoint> parse_endpoint(std::string_view line) {
  const auto w = words(line);
  QpEndpoint e;
  if (w.size() != 8 || w[0] != "ep" || !parse_number(w[1], e.flow) ||
      !parse_number(w[2], e.qp_num) || !parse_number(w[3], e.psn) || !parse_number(w[4], e.lid) ||
      !parse_gid(w[5], e.gid) || !parse_number(w[6], e.rkey) || !parse_number(w[7], e.address)) {
    return make_error(Errc::runtime,
                      fmt::format("verbs: the peer sent a malformed endpoint: \"{}\"", line));
  }
  return e;
}

uint64_t plan_hash(const policy::QosPlan& plan, const Topology& topology) {
  Fnv1a h;
  h.add(topology.port_rate_bps);
  h.add(policy::transport_name(plan.wire.transport));
  h.add(static_cast<double>(plan.wire.mtu_bytes));
  for (const auto& e : plan.tree.elements) {
    h.add(e.name);
    h.add(static_cast<double>(e.parent));
    h.add(static_cast<double>(e.bw_share));
    h.add(e.max_avg_bw_bps);
  }
  for (const auto& f : plan.flows) {
    h.add(f.name);
    h.add(static_cast<double>(f.leaf));
    h.add(policy::op_name(f.op));
    h.add(static_cast<double>(f.sl));
    h.add(static_cast<double>(f.dscp));
    h.add(std::isfinite(f.offered_wire_bps) ? f.offered_wire_bps : -1.0);
  }
  return h.value;
}

Status exchange_hello(PeerLink& link, bool receiver, uint64_t hash, uint32_t flows) {
  const std::string where = receiver ? "driver.verbs.listen" : "driver.verbs.peer";
  auto mismatch = [&](std::string_view theirs) {
    return make_error(Errc::invalid_config,
                      fmt::format("verbs: the peer runs a different suite (plan {} here, {} "
                                  "there): run the same suite file, with the same options, on "
                                  "both hosts",
                                  fmt::format("{:016x}/{} flows", hash, flows), theirs),
                      where);
  };
  if (!receiver) {
    if (Status s = link.send_line(fmt::format("qosbench-verbs 1 {:016x} {}", hash, flows)); !s) {
      return s;
    }
    auto reply = link.read_line(kReplyWaitMs);
    if (!reply) return std::move(reply).error();
    if (*reply == "ok") return {};
    const auto w = words(*reply);
    if (w.size() == 3 && w[0] == "mismatch") {
      return mismatch(fmt::format("{}/{} flows", w[1], w[2]));
    }
    return make_error(Errc::runtime, fmt::format("verbs: unexpected reply \"{}\"", *reply));
  }
  auto hello = link.read_line(kPeerWaitMs);
  if (!hello) return std::move(hello).error();
  const auto w = words(*hello);
  if (w.size() != 4 || w[0] != "qosbench-verbs" || w[1] != "1") {
    return make_error(Errc::runtime,
                      fmt::format("verbs: the peer is not a qosbench verbs sender of this "
                                  "version (it said \"{}\")",
                                  *hello));
  }
  const std::string mine = fmt::format("{:016x}", hash);
  uint32_t their_flows = 0;
  if (w[2] != mine || !parse_number(w[3], their_flows) || their_flows != flows) {
    (void)link.send_line(fmt::format("mismatch {} {}", mine, flows));
    return mismatch(fmt::format("{}/{} flows", w[2], w[3]));
  }
  return link.send_line("ok");
}

Result<std::vector<QpEndpoint>> exchange_endpoints(PeerLink& link, bool receiver,
                                                   const std::vector<QpEndpoint>& mine) {
  auto send_mine = [&]() -> Status {
    for (const auto& e : mine) {
      if (Status s = link.send_line(format_endpoint(e)); !s) return s;
    }
    return {};
  };
  if (receiver) {
    if (Status s = send_mine(); !s) return std::move(s).error();
  }
  std::vector<QpEndpoint> theirs;
  for (size_t i = 0; i < mine.size(); ++i) {
    auto line = link.read_line(kReplyWaitMs);
    if (!line) return std::move(line).error();
    auto endpoint = parse_endpoint(*line);
    if (!endpoint) return std::move(endpoint).error();
    if (endpoint->flow != mine[i].flow) {
      return make_error(Errc::runtime, fmt::format("verbs: the peer sent flow {} for flow {}",
                                                   endpoint->flow, mine[i].flow));
    }
    theirs.push_back(*endpoint);
  }
  if (!receiver) {
    if (Status s = send_mine(); !s) return std::move(s).error();
  }
  return theirs;
}

Status exchange_ready(PeerLink& link, bool receiver) {
  if (receiver) return link.send_line("ready");
  auto ready = link.read_line(kPeerWaitMs);
  if (!ready) return std::move(ready).error();
  if (*ready != "ready") {
    return make_error(Errc::runtime,
                      fmt::format("verbs: expected \"ready\", got \"{}\"", *ready));
  }
  return {};
}

}  // namespace qb::drv::verbs
