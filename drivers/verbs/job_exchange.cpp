#include "job_exchange.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <optional>

namespace qb::drv::verbs {
namespace {

constexpr std::string_view kMagic = "qosbench-verbs-job 1";

struct JobRecord {
  uint64_t plan_hash = 0;
  uint32_t flows = 0;
  bool receiver = false;
  std::vector<QpEndpoint> endpoints;
};

Error malformed(uint32_t rank, std::string_view why) {
  return make_error(Errc::runtime,
                    fmt::format("verbs: rank {} sent a malformed QP exchange record ({})", rank,
                                why));
}

Result<JobRecord> parse_job_record(std::string_view text, uint32_t rank) {
  JobRecord record;
  const size_t end_of_header = text.find('\n');
  const std::string_view header = text.substr(0, end_of_header);
  if (!header.starts_with(kMagic)) {
    return malformed(rank, "not a qosbench verbs record of this version");
  }
  std::string_view rest = header.substr(kMagic.size());
  char role[16] = {};
  unsigned long long hash = 0;
  unsigned flows = 0;
  const std::string fields(rest);
  if (std::sscanf(fields.c_str(), " %llx %u %15s", &hash, &flows, role) != 3) {
    return malformed(rank, fmt::format("header \"{}\"", header));
  }
  const std::string_view role_name = role;
  if (role_name != "receiver" && role_name != "sender") {
    return malformed(rank, fmt::format("role \"{}\"", role_name));
  }
  record.plan_hash = hash;
  record.flows = flows;
  record.receiver = role_name == "receiver";
  std::string_view lines = end_of_header == std::string_view::npos
                               ? std::string_view()
                               : text.substr(end_of_header + 1);
  while (!lines.empty()) {
    const size_t end = lines.find('\n');
    const std::string_view line = lines.substr(0, end);
    lines = end == std::string_view::npos ? std::string_view() : lines.substr(end + 1);
    if (line.empty()) continue;
    auto endpoint = parse_endpoint(line);
    if (!endpoint) return malformed(rank, fmt::format("endpoint \"{}\"", line));
    if (endpoint->flow >= record.flows) {
      return malformed(rank, fmt::format("flow {} of {}", endpoint->flow, record.flows));
    }
    record.endpoints.push_back(*endpoint);
  }
  return record;
}

// Every rank must run the plan this one runs (the same suite file and options).
Status same_plan(uint32_t rank, uint64_t their_hash, uint32_t their_flows, uint64_t plan_hash,
                 uint32_t flows) {
  if (their_hash == plan_hash && their_flows == flows) return {};
  return make_error(
      Errc::invalid_config,
      fmt::format("verbs: rank {} runs a different plan ({:016x}/{} flows there, "
                  "{:016x}/{} here): give every rank the same suite file and options",
                  rank, their_hash, their_flows, plan_hash, flows),
      "driver.verbs");
}

}  // namespace

std::string format_job_record(uint64_t plan_hash, uint32_t flows, bool receiver,
                              const std::vector<QpEndpoint>& mine) {
  std::string text = fmt::format("{} {:016x} {} {}\n", kMagic, plan_hash, flows,
                                 receiver ? "receiver" : "sender");
  for (const QpEndpoint& endpoint : mine) text += format_endpoint(endpoint) + "\n";
  return text;
}

Result<std::vector<QpEndpoint>> match_job_records(const std::vector<std::string>& records,
                                                  bool receiver, uint64_t plan_hash,
                                                  uint32_t flows,
                                                  const std::vector<uint32_t>& my_flows) {
  // Per flow: the rank whose record gives the other side of it.
  std::vector<std::optional<uint32_t>> rank_of_flow(flows);
  std::vector<QpEndpoint> theirs(flows);
  std::optional<uint32_t> receiver_rank;
  for (uint32_t rank = 0; rank < records.size(); ++rank) {
    auto record = parse_job_record(records[rank], rank);
    if (!record) return std::move(record).error();
    if (auto same = same_plan(rank, record->plan_hash, record->flows, plan_hash, flows); !same) {
      return std::move(same).error();
    }
    if (record->receiver) {
      if (receiver_rank) {
        return make_error(Errc::runtime,
                          fmt::format("verbs: ranks {} and {} both receive", *receiver_rank, rank));
      }
      receiver_rank = rank;
    }
    // A receiver takes the senders' requesters; a sender the receiver's responders.
    if (record->receiver == receiver) continue;
    for (const QpEndpoint& endpoint : record->endpoints) {
      if (rank_of_flow[endpoint.flow]) {
        return make_error(Errc::runtime,
                          fmt::format("verbs: flow {} is sent by ranks {} and {}", endpoint.flow,
                                      *rank_of_flow[endpoint.flow], rank));
      }
      rank_of_flow[endpoint.flow] = rank;
      theirs[endpoint.flow] = endpoint;
    }
  }
  if (!receiver_rank) return make_error(Errc::runtime, "verbs: no rank of the job receives");
  for (const uint32_t flow : my_flows) {
    if (flow >= flows || !rank_of_flow[flow]) {
      return make_error(Errc::runtime,
                        fmt::format("verbs: flow {} has no {} in the job", flow,
                                    receiver ? "rank that sends it" : "responder at the receiver"));
    }
  }
  return theirs;
}

namespace {

constexpr std::string_view kFabricMagic = "qosbench-verbs-fabric 1";
constexpr std::string_view kRequester = "requester ";
constexpr std::string_view kResponder = "responder ";

struct FabricRecord {
  uint64_t plan_hash = 0;
  uint32_t flows = 0;
  uint32_t rank = 0;
  std::vector<QpEndpoint> requesters;
  std::vector<QpEndpoint> responders;
};

Result<FabricRecord> parse_fabric_record(std::string_view text, uint32_t rank) {
  FabricRecord record;
  const size_t end_of_header = text.find('\n');
  const std::string_view header = text.substr(0, end_of_header);
  if (!header.starts_with(kFabricMagic)) {
    return malformed(rank, "not a qosbench verbs record of a [topology] job of this version");
  }
  unsigned long long hash = 0;
  unsigned flows = 0;
  unsigned said_rank = 0;
  const std::string fields(header.substr(kFabricMagic.size()));
  if (std::sscanf(fields.c_str(), " %llx %u %u", &hash, &flows, &said_rank) != 3 ||
      said_rank != rank) {
    return malformed(rank, fmt::format("header \"{}\"", header));
  }
  record.plan_hash = hash;
  record.flows = flows;
  record.rank = said_rank;
  std::string_view lines = end_of_header == std::string_view::npos
                               ? std::string_view()
                               : text.substr(end_of_header + 1);
  while (!lines.empty()) {
    const size_t end = lines.find('\n');
    std::string_view line = lines.substr(0, end);
    lines = end == std::string_view::npos ? std::string_view() : lines.substr(end + 1);
    if (line.empty()) continue;
    const bool requester = line.starts_with(kRequester);
    if (!requester && !line.starts_with(kResponder)) {
      return malformed(rank, fmt::format("line \"{}\"", line));
    }
    line.remove_prefix(kRequester.size());  // both prefixes are as long
    auto endpoint = parse_endpoint(line);
    if (!endpoint) return malformed(rank, fmt::format("endpoint \"{}\"", line));
    if (endpoint->flow >= record.flows) {
      return malformed(rank, fmt::format("flow {} of {}", endpoint->flow, record.flows));
    }
    (requester ? record.requesters : record.responders).push_back(*endpoint);
  }
  return record;
}

}  // namespace

std::string format_fabric_record(uint64_t plan_hash, uint32_t flows, uint32_t rank,
                                 const std::vector<QpEndpoint>& requesters,
                                 const std::vector<QpEndpoint>& responders) {
  std::string text = fmt::format("{} {:016x} {} {}\n", kFabricMagic, plan_hash, flows, rank);
  for (const QpEndpoint& endpoint : requesters) {
    text += fmt::format("{}{}\n", kRequester, format_endpoint(endpoint));
  }
  for (const QpEndpoint& endpoint : responders) {
    text += fmt::format("{}{}\n", kResponder, format_endpoint(endpoint));
  }
  return text;
}

Result<FabricPeers> match_fabric_records(const std::vector<std::string>& records,
                                         uint64_t plan_hash, uint32_t flows,
                                         const std::vector<uint32_t>& sent,
                                         const std::vector<uint32_t>& received) {
  FabricPeers peers;
  peers.responder_of.resize(flows);
  peers.requester_of.resize(flows);
  // Per flow: the rank that gave its requester and the one that gave its responder.
  std::vector<std::optional<uint32_t>> sender_of(flows);
  std::vector<std::optional<uint32_t>> receiver_of(flows);
  for (uint32_t rank = 0; rank < records.size(); ++rank) {
    auto record = parse_fabric_record(records[rank], rank);
    if (!record) return std::move(record).error();
    if (auto same = same_plan(rank, record->plan_hash, record->flows, plan_hash, flows); !same) {
      return std::move(same).error();
    }
    for (const QpEndpoint& endpoint : record->requesters) {
      if (sender_of[endpoint.flow]) {
        return make_error(Errc::runtime,
                          fmt::format("verbs: flow {} is sent by ranks {} and {}", endpoint.flow,
                                      *sender_of[endpoint.flow], rank));
      }
      sender_of[endpoint.flow] = rank;
      peers.requester_of[endpoint.flow] = endpoint;
    }
    for (const QpEndpoint& endpoint : record->responders) {
      if (receiver_of[endpoint.flow]) {
        return make_error(Errc::runtime,
                          fmt::format("verbs: flow {} is received by ranks {} and {}",
                                      endpoint.flow, *receiver_of[endpoint.flow], rank));
      }
      receiver_of[endpoint.flow] = rank;
      peers.responder_of[endpoint.flow] = endpoint;
    }
  }
  for (const uint32_t flow : sent) {
    if (flow >= flows || !receiver_of[flow]) {
      return make_error(Errc::runtime,
                        fmt::format("verbs: flow {} has no rank that receives it", flow));
    }
  }
  for (const uint32_t flow : received) {
    if (flow >= flows || !sender_of[flow]) {
      return make_error(Errc::runtime,
                        fmt::format("verbs: flow {} has no rank that sends it", flow));
    }
  }
  return peers;
}

}  // namespace qb::drv::verbs
