// The QP exchange of a multi-host job (Topology::job): instead of a TCP link to one peer, every
// rank's endpoints go through the job's all-gather (cluster/, over MPI) as one record each:
//
//   "qosbench-verbs-job 1 <plan hash> <flows> receiver|sender"
//   one "ep ..." line per QP (format_endpoint): the receiver's responders, for every flow; a
//   sender's requesters, for the flows it sends
//
// The receiver connects each flow's responder to the requester of the one rank that sends it;
// each sender connects its requesters to the receiver's responders (and writes into the
// buffers they name). The job's start agreement is the receiver's "ready".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qp_exchange.hpp"

namespace qb::drv::verbs {

std::string format_job_record(uint64_t plan_hash, uint32_t flows, bool receiver,
                              const std::vector<QpEndpoint>& mine);

/// The other side's endpoint for each flow in `my_flows`, from every rank's record (rank
/// order, this rank's own included), indexed by flow (`flows` entries; the others left empty).
/// Errc::invalid_config at "driver.verbs" when a rank runs a different plan; Errc::runtime for
/// a malformed record, a job without exactly one receiver, or a flow that no rank or two
/// ranks send.
Result<std::vector<QpEndpoint>> match_job_records(const std::vector<std::string>& records,
                                                  bool receiver, uint64_t plan_hash,
                                                  uint32_t flows,
                                                  const std::vector<uint32_t>& my_flows);

/// A fabric job (a suite's [topology]: every rank sends and receives): each rank's record
///
///   "qosbench-verbs-fabric 1 <plan hash> <flows> <rank>"
///   "requester ep ..." per flow it sends, "responder ep ..." per flow destined to it
///
/// and, matched, each flow's other side: the responder of every flow this rank sends (where
/// its writes land) and the requester of every flow destined to it.
std::string format_fabric_record(uint64_t plan_hash, uint32_t flows, uint32_t rank,
                                 const std::vector<QpEndpoint>& requesters,
                                 const std::vector<QpEndpoint>& responders);

struct FabricPeers {
  std::vector<QpEndpoint> responder_of;  // by flow: for the flows this rank sends
  std::vector<QpEndpoint> requester_of;  // by flow: for the flows destined to this rank
};

/// Errc::invalid_config at "driver.verbs" when a rank runs a different plan; Errc::runtime for
/// a malformed record (or one of a one-receiver job), a flow two ranks send (or receive), or a
/// flow of `sent` without a responder in the job (of `received`, without a requester).
Result<FabricPeers> match_fabric_records(const std::vector<std::string>& records,
                                         uint64_t plan_hash, uint32_t flows,
                                         const std::vector<uint32_t>& sent,
                                         const std::vector<uint32_t>& received);

}  // namespace qb::drv::verbs
