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

}  // namespace qb::drv::verbs
