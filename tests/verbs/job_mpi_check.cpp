// Under `mpirun -np 3`: the verbs driver's QP exchange through a real MPI job (cluster/'s
// all-gather over MPI_Igather/MPI_Ibcast, the engine's once-per-repetition rule), ranks 0 and 1
// sending flows {0, 2} and {1, 3}, rank 2 receiving. Each rank has its own fake ConnectX (a
// fake cannot carry packets between processes: the in-process test VerbsJob.* does the data
// path), with QP numbers of its own, so rank 0 can check from what every rank's QPs were
// connected to that each flow's requester and responder point at each other, and at nothing
// else. Then a repetition where rank 1's driver fails to open: every rank must hear of it
// (naming rank 1) instead of waiting. Exit 0: both held; 1: a check failed (printed); 77: not
// under an MPI launcher of a qosbench built with MPI.
#include <fmt/format.h>

#include <cstdio>
#include <map>
#include <sstream>

#include "fake_mlx5.hpp"
#include "qb/cluster/agreement.hpp"
#include "qb/cluster/host_roles.hpp"
#include "qb/cluster/job.hpp"
#include "repetition_exchange.hpp"
#include "two_hosts_fixture.hpp"
#include "verbs_driver.hpp"

namespace qb::drv::verbs {
namespace {

// Records each QP's connection as the driver makes it: "local dest traffic_class" per RTR.
class RecordingOps final : public LockedOps {
 public:
  using LockedOps::LockedOps;
  int modify_qp(ibv_qp* qp, ibv_qp_attr* attr, int mask) override {
    if ((mask & IBV_QP_STATE) != 0 && attr->qp_state == IBV_QPS_RTR) {
      connections += fmt::format("{} {} {}\n", qp->qp_num, attr->dest_qp_num,
                                 attr->ah_attr.grh.traffic_class);
    }
    return LockedOps::modify_qp(qp, attr, mask);
  }
  std::string connections;
};

struct Connection {
  uint32_t rank = 0;
  uint32_t local = 0;
  uint32_t dest = 0;
  uint32_t traffic_class = 0;
};

// Rank 0: every requester and responder are each other's peers, one pair per flow (the flow
// told by its traffic class), the receiver's on one side; the problems found.
std::vector<std::string> check_pairs(const std::vector<std::string>& reports, uint32_t receiver,
                                     uint32_t flows) {
  std::vector<std::string> problems;
  std::map<uint32_t, Connection> by_qp;
  for (uint32_t rank = 0; rank < reports.size(); ++rank) {
    std::istringstream lines(reports[rank]);
    Connection c;
    c.rank = rank;
    while (lines >> c.local >> c.dest >> c.traffic_class) by_qp[c.local] = c;
  }
  uint32_t pairs = 0;
  for (const auto& [qp, c] : by_qp) {
    const auto peer = by_qp.find(c.dest);
    if (peer == by_qp.end()) {
      problems.push_back(fmt::format("rank {}'s QP {:#x} points at {:#x}, which no rank has",
                                     c.rank, qp, c.dest));
      continue;
    }
    if (peer->second.dest != qp) {
      problems.push_back(fmt::format("QP {:#x} points at {:#x}, which points at {:#x}", qp,
                                     c.dest, peer->second.dest));
    }
    if (peer->second.traffic_class != c.traffic_class) {
      problems.push_back(fmt::format("QP {:#x} (class {}) is paired with another flow's ({})", qp,
                                     c.traffic_class, peer->second.traffic_class));
    }
    if ((c.rank == receiver) == (peer->second.rank == receiver)) {
      problems.push_back(fmt::format("QP {:#x} of rank {} is paired with rank {}'s", qp, c.rank,
                                     peer->second.rank));
    }
    pairs += c.rank == receiver ? 1 : 0;
  }
  if (pairs != flows) problems.push_back(fmt::format("{} pairs for {} flows", pairs, flows));
  return problems;
}

int run(cluster::Communicator& comm) {
  constexpr uint32_t kReceiver = 2;
  if (comm.size() != 3) {
    fmt::print(stderr, "run with mpirun -np 3 (not {})\n", comm.size());
    return 2;
  }
  cluster::JobRoles roles;
  roles.hosts = 2;
  roles.host_ranks = {0, 1};
  roles.receiver_rank = kReceiver;
  const cluster::Wait wait;
  const engine::HostRole role = cluster::host_role(comm, roles, wait, 0);
  auto plan = two_group_plan(4);
  for (uint32_t f = 0; f < plan.flows.size(); ++f) plan.flows[f].dscp = 10 + f;
  const std::vector<std::vector<uint32_t>> sent = {{0, 2}, {1, 3}, {}};
  FakeDeviceConfig device = instant_device();
  device.first_qp_number = 0x1000 * (comm.rank() + 1);
  FakeMlx5 fake(device);
  RecordingOps ops(fake);

  // One repetition as the engine makes it: open, apply (exchanging), settle; `config` may make
  // this rank's open fail.
  auto repetition = [&](const VerbsConfig& config) -> Status {
    engine::RepetitionExchange exchange(role);
    Topology topology = topology_for(plan);
    JobPart part;
    part.exchange = &exchange;
    part.receiver = comm.rank() == kReceiver;
    part.sent_flows = sent[comm.rank()];
    topology.job = std::move(part);
    auto driver = make_verbs_driver(config, &ops);
    Status status = driver->open(topology);
    if (status) status = driver->apply(plan);
    const Status job = exchange.settle(status);
    driver->close();
    return status ? job : status;
  };

  std::vector<std::string> problems;
  const Status first = repetition(VerbsConfig{});
  auto reports = comm.gather(first ? ops.connections : "error " + first.error().to_string(), 0,
                             wait);
  if (!reports) return 1;
  if (comm.rank() == 0) {
    for (uint32_t rank = 0; rank < reports->size(); ++rank) {
      if ((*reports)[rank].starts_with("error ")) {
        problems.push_back(fmt::format("rank {}: {}", rank, (*reports)[rank]));
      }
    }
    if (problems.empty()) {
      problems = check_pairs(*reports, kReceiver, static_cast<uint32_t>(plan.flows.size()));
    }
    if (problems.empty()) fmt::print("exchange: {} flows paired across 3 ranks\n", plan.flows.size());
  }

  // Rank 1's driver cannot open (peer is refused in a job): every rank hears it.
  VerbsConfig failing;
  if (comm.rank() == 1) failing.peer = "elsewhere:18515";
  const Status second = repetition(failing);
  auto heard = comm.gather(second ? std::string("ok") : second.error().message, 0, wait);
  if (!heard) return 1;
  if (comm.rank() == 0) {
    for (uint32_t rank = 0; rank < heard->size(); ++rank) {
      const std::string& message = (*heard)[rank];
      const bool names_it = message.find("driver.verbs.peer") != std::string::npos ||
                            message.find("in an MPI job") != std::string::npos;
      if (!names_it || (rank != 1 && message.find("on rank 1") == std::string::npos)) {
        problems.push_back(fmt::format("rank {} did not hear of rank 1's failure: {}", rank,
                                       message));
      }
    }
    if (problems.empty()) fmt::print("failure: every rank heard: {}\n", (*heard)[0]);
    for (const std::string& problem : problems) fmt::print("FAIL: {}\n", problem);
  }
  if (fake.live().total() != 0) {
    fmt::print("FAIL: rank {} left {}\n", comm.rank(), fake.live().describe());
    problems.push_back("leak");
  }
  return cluster::agree_exit_code(comm, problems.empty() ? 0 : 1, wait);
}

}  // namespace
}  // namespace qb::drv::verbs

int main() {
  if (!qb::cluster::mpi_built()) {
    std::puts("SKIP: built without MPI");
    return 77;
  }
  auto job = qb::cluster::join_job();
  if (!job || *job == nullptr) {
    std::puts("SKIP: not launched by mpirun");
    return 77;
  }
  return qb::drv::verbs::run(**job);
}
