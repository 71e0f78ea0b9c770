// What two hosts tell each other before their QPs can connect, over a PeerLink: a hello that
// proves both run the same suite (a hash of the plan), each side's QP endpoints, and a "ready"
// that starts both runs together: the receiver says it once its QPs can take traffic.
//
//   sender -> receiver: "qosbench-verbs 1 <plan hash> <flows>"
//   receiver -> sender: "ok" | "mismatch <plan hash> <flows>"
//   receiver -> sender: one "ep ..." line per flow (responder QPs, their buffer and rkey)
//   sender -> receiver: one "ep ..." line per flow (requester QPs)
//   receiver -> sender: "ready" (its QPs connected and its receives posted: start)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "peer_link.hpp"
#include "qb/drivers/backend.hpp"
#include "verbs_ops.hpp"

namespace qb::drv::verbs {

struct QpEndpoint {
  uint32_t flow = 0;
  uint32_t qp_num = 0;
  uint32_t psn = 0;
  uint16_t lid = 0;
  ibv_gid gid{};
  uint32_t rkey = 0;     // receiver: its buffer's rkey (RDMA WRITE, READ)
  uint64_t address = 0;  // receiver: its buffer's address
};

std::string format_endpoint(const QpEndpoint& endpoint);
/// Errc::runtime for a malformed line.
Result<QpEndpoint> parse_endpoint(std::string_view line);

/// FNV-1a over what both sides must agree on: the tree, the flows (name, leaf, op, SL, DSCP,
/// offered rate), the wire model, the port rate. The same suite file gives the same hash.
uint64_t plan_hash(const policy::QosPlan& plan, const Topology& topology);

/// The hello. A different plan is Errc::invalid_config on both sides ("driver.verbs.peer" /
/// "driver.verbs.listen"): run the same suite file on both hosts.
Status exchange_hello(PeerLink& link, bool receiver, uint64_t hash, uint32_t flows);
/// Sends ours and returns the peer's endpoints, one per flow, in flow order.
Result<std::vector<QpEndpoint>> exchange_endpoints(PeerLink& link, bool receiver,
                                                   const std::vector<QpEndpoint>& mine);
/// The receiver says ready (its QPs can take traffic); the sender waits for it (bounded).
Status exchange_ready(PeerLink& link, bool receiver);

/// How long one side waits for the other's hello or ready (the other may start later).
inline constexpr int kPeerWaitMs = 120'000;

}  // namespace qb::drv::verbs
