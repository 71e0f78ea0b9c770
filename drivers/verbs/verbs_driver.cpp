// The verbs driver's control path (the generic Driver has checked call order, topology and
// plan): device and port, protection domain, CQs and buffers per worker, the NIC tree, QPs,
// and a teardown that runs in reverse order whatever state a failure left. Its registry entry.
#include "verbs_driver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <tuple>

#include "driver_notes.hpp"
#include "fake_mlx5.hpp"
#include "gid_select.hpp"
#include "job_exchange.hpp"
#include "nic_sched_tree.hpp"
#include "peer_link.hpp"
#include "qb/drivers/registry.hpp"
#include "qb/nic/port_state.hpp"
#include "qp_exchange.hpp"
#include "software_tree.hpp"
#include "verbs_port.hpp"
#include "verbs_worker.hpp"

namespace qb::drv::verbs {
namespace {

constexpr uint32_t kRingSlots = 2 * kSendQueueDepth;  // room for a receiver a window behind
constexpr uint32_t kNvidiaVendorId = 0x02c9;          // Mellanox's IEEE OUI: ConnectX
constexpr int kAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;

// How often a worker reads the clock info again: half the period mlx5dv_get_clock_info(3)
// requires (mlx5dv_query_device's max_clock_info_update_nsec), at most every 0.5 s, every 0.1 s
// when the device does not say.
int64_t clock_info_refresh_ns(uint64_t max_update_ns) {
  if (max_update_ns == 0) return 100'000'000;
  return static_cast<int64_t>(std::min<uint64_t>(max_update_ns, 1'000'000'000) / 2);
}

Error verbs_error(Errc code, std::string message, std::string where = {}) {
  return make_error(code, "verbs: " + std::move(message), std::move(where));
}

Error call_failed(const char* call, int error, const std::string& what) {
  return verbs_error(Errc::runtime, fmt::format("{} failed for {}: {} (errno {})", call, what,
                                                std::strerror(error), error));
}

// A page-aligned buffer for an MR.
struct Buffer {
  void* data = nullptr;
  size_t bytes = 0;
  Buffer() = default;
  explicit Buffer(size_t n) : bytes(n) {
    const size_t rounded = (n + 4095) / 4096 * 4096;
    data = std::aligned_alloc(4096, rounded);
    if (data != nullptr) std::memset(data, 0, rounded);
  }
  ~Buffer() { std::free(data); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

struct WorkerResources {
  ibv_cq_ex* send_cq = nullptr;
  ibv_cq_ex* recv_cq = nullptr;
  std::unique_ptr<Buffer> source;  // what requesters send (and reads land in)
  std::unique_ptr<Buffer> target;  // what responders expose (writes, receives, reads)
  ibv_mr* source_mr = nullptr;
  ibv_mr* target_mr = nullptr;
  uint32_t flows = 0;
};

struct FlowQps {
  ibv_qp* requester = nullptr;
  ibv_qp* responder = nullptr;
  bool attached = false;            // the requester, to the flow's leaf
  bool responder_attached = false;  // a READ flow's responder, as responder
};

FlowOp flow_op(policy::RdmaOp op) {
  switch (op) {
    case policy::RdmaOp::send:
      return FlowOp::send;
    case policy::RdmaOp::read:
      return FlowOp::read;
    case policy::RdmaOp::write:
      break;
  }
  return FlowOp::write;
}

class VerbsDriver final : public DriverBackend {
 public:
  VerbsDriver(VerbsConfig config, VerbsOps* ops) : config_(std::move(config)), ops_(ops) {}
  ~VerbsDriver() override { close(); }
  VerbsDriver(const VerbsDriver&) = delete;
  VerbsDriver& operator=(const VerbsDriver&) = delete;

  bool simulated() const {
    if (ops_ != nullptr) return ops_->simulated_clock() != nullptr;
    return config_.provider == Provider::fake && config_.fake_timing == FakeTiming::simulated;
  }

  Capabilities capabilities() const override {
    Capabilities caps;
    caps.virtual_time = simulated();
    caps.hw_sched_tree = config_.tree == TreeMode::nic;
    caps.hw_timestamps = port_.completion_timestamps && port_.clock_info;
    caps.max_workers = caps.virtual_time ? 1 : config_.workers;
    caps.max_flows = 1U << 16;  // two QPs each
    caps.max_outstanding_per_flow = kSendQueueDepth;
    caps.max_hosts = 1;
    caps.receives = role() != Role::sender;  // a sender's receiver is on the other host
    caps.exchanges_endpoints = true;         // a job's ranks connect their QPs to each other's
    caps.message_buffers_per_worker = 2;     // open_worker: a source and a target buffer
    if (config_.provider == Provider::fake) {
      caps.no_data_between_processes =
          "the verbs fake device (provider = \"fake\") lives in one process and carries no data "
          "to another rank's: it tests the job's QP exchange only; run a multi-host verbs job on "
          "RDMA devices (provider = \"rdma-core\"), or the fabric on --driver sim";
    }
    return caps;
  }

  Status open(const Topology& topology) override {
    topology_ = topology;
    if (topology.job && (!config_.peer.empty() || config_.listen != 0)) {
      return verbs_error(Errc::invalid_config,
                         "in an MPI job the ranks exchange their QPs over MPI: remove "
                         "driver.verbs.peer and driver.verbs.listen",
                         config_.peer.empty() ? "driver.verbs.listen" : "driver.verbs.peer");
    }
    if (topology.job && topology.job->exchange == nullptr) {
      return verbs_error(Errc::runtime, "the MPI job gave no exchange for the QPs");
    }
    if (Status s = wire_fits(topology.wire); !s) return s;
    // A fake made for the suite's port is made again for each open (the topology may differ).
    if (ops_ == nullptr || mirror_fake_) {
      mirror_fake_ = config_.provider == Provider::fake;
      if (mirror_fake_) {
        FakeDeviceConfig fake = fake_device_for_port(topology.port_rate_bps, topology.wire,
                                                     topology.propagation_delay_ns);
        fake.timing = config_.fake_timing;
        fake.sched_support = config_.fake_sched_support;
        // A fabric job's ranks each make their own fake (one per process): QP numbers of their
        // own, so that no rank's write lands on a QP of its own that has another's number
        // (counted as an arrival of the wrong flow). The data stays in its process.
        if (topology.job && topology.job->fabric) {
          fake.first_qp_number = 0x100 + 0x10000 * topology.job->rank;
        }
        owned_ops_ = std::make_unique<FakeMlx5>(std::move(fake));
      } else {
        owned_ops_ = make_rdma_core_ops();
      }
      ops_ = owned_ops_.get();
    }
    auto context = open_verbs_device(*ops_, config_.device, &device_);
    if (!context) return std::move(context).error();
    context_ = *context;
    auto port = query_verbs_port(*ops_, context_, device_, config_);
    if (!port) return std::move(port).error();
    port_ = *port;
    print_note_once(port_.gid_note);
    open_nic_state();
    const bool ib_suite = topology.wire.transport == policy::Transport::ib;
    if (ib_suite != port_.infiniband) {
      return verbs_error(
          Errc::invalid_config,
          fmt::format("{} is {}, the suite's transport is \"{}\": set transport = "
                      "\"{}\" (or pick another device/port)",
                      port_.describe(), port_.infiniband ? "InfiniBand" : "Ethernet (RoCE)",
                      policy::transport_name(topology.wire.transport),
                      port_.infiniband ? "ib" : "rocev2"),
          "port.transport");
    }
    const auto mtu = ib_mtu_for_bytes(topology.wire.mtu_bytes);
    if (!mtu) {
      return verbs_error(Errc::invalid_config,
                         fmt::format("a path MTU of {} bytes is not an InfiniBand MTU: use 256, "
                                     "512, 1024, 2048 or 4096",
                                     topology.wire.mtu_bytes),
                         "port.mtu");
    }
    // Refused rather than capped: the oracle's wire accounting uses the suite's MTU.
    if (*mtu > port_.active_mtu) {
      return verbs_error(
          Errc::invalid_config,
          fmt::format("the suite's MTU {} exceeds the active MTU of {}: set mtu = "
                      "{}",
                      topology.wire.mtu_bytes, port_.describe(), ib_mtu_bytes(port_.active_mtu)),
          "port.mtu");
    }
    path_mtu_ = *mtu;
    // The oracle divides the suite's port rate: on a device it must be the port's speed. (A
    // fake made for the suite has the suite's rate by construction.) With tree = "software" a
    // lower rate is the capacity the pacing divides (Soft-RoCE reports its netdev's nominal
    // speed, far above what it sustains): the flows are held to their shares of it.
    const bool paced_below_port =
        config_.tree == TreeMode::software && topology.port_rate_bps < port_.speed_bps;
    if (!mirror_fake_ && port_.speed_bps > 0.0 && !paced_below_port &&
        std::abs(topology.port_rate_bps - port_.speed_bps) > 0.01 * port_.speed_bps) {
      return verbs_error(
          Errc::invalid_config,
          fmt::format("the suite's port rate is {:g} Gbit/s but {} : set rate = "
                      "\"{:g}Gbps\"",
                      topology.port_rate_bps / 1e9, port_.describe(), port_.speed_bps / 1e9),
          "port.rate");
    }
    if (Status s = check_pinned_memory(topology); !s) return s;
    errno = 0;
    pd_ = ops_->alloc_pd(context_);
    if (pd_ == nullptr) return call_failed("ibv_alloc_pd", errno, device_);
    const uint32_t workers = std::max(1U, topology.workers);
    resources_.resize(workers);
    // CQs sized for the QPs this host has (a job's sender: its own flows only).
    for (const uint32_t f : flows_here()) ++resources_[worker_of_flow(f, workers)].flows;
    const uint32_t buffer_bytes = std::max<uint32_t>(64, topology.max_message_bytes);
    for (uint32_t w = 0; w < workers; ++w) {
      if (Status s = open_worker(resources_[w], w, buffer_bytes, context_, pd_); !s) return s;
    }
    buffer_bytes_ = buffer_bytes;
    if (!config_.responder_device.empty()) {
      if (Status s = open_responder_device(workers, buffer_bytes); !s) return s;
    }
    // Two hosts: the TCP connection that carries the QP exchange (apply) and the start (start).
    // (A job's exchange and start go through the job instead.)
    constexpr int kConnectWaitMs = 60'000;
    if (topology.job) {
      return {};
    } else if (role() == Role::sender) {
      auto link = PeerLink::connect_to(config_.peer, kConnectWaitMs, topology.stop);
      if (!link) return std::move(link).error();
      link_ = std::move(*link);
    } else if (role() == Role::receiver) {
      auto link = PeerLink::accept_one(config_.listen, kPeerWaitMs, topology.stop);
      if (!link) return std::move(link).error();
      link_ = std::move(*link);
    }
    return {};
  }

  // The port's own state (qb/nic/port_state.hpp): on a device rdma-core opened, or under
  // nic_root or the given seams (a fake, made here or by a test, has no netdev of its own).
  void open_nic_state() {
    nic_.reset();
    const bool real_device = owned_ops_ != nullptr && !mirror_fake_;
    if (!real_device && config_.nic_root.empty() && !config_.nic_seams) return;
    nic::NicSeams seams =
        config_.nic_seams ? *config_.nic_seams : nic::system_nic_seams(config_.nic_root);
    const nic::QosMode mode = config_.nic_qos == VerbsConfig::NicQos::apply ? nic::QosMode::apply
                              : config_.nic_qos == VerbsConfig::NicQos::off ? nic::QosMode::off
                                                                            : nic::QosMode::check;
    std::string netdev;
    if (!port_.infiniband) {
      netdev = nic::netdev_of_rdma_port(seams.root, device_, config_.port, port_.gid_index);
    }
    nic_ = std::make_unique<nic::PortState>(mode, config_.nic_counters, std::move(seams),
                                            "driver.verbs.nic_qos", print_note_once);
    nic_->open(device_, config_.port, std::move(netdev), port_.infiniband);
  }

  // Before anything is made: can the locked-memory limit hold what open() and apply() pin?
  Status check_pinned_memory(const Topology& topology) {
    std::vector<uint32_t> flows_per_worker(std::max(1U, topology.workers), 0);
    const auto workers = static_cast<uint32_t>(flows_per_worker.size());
    for (const uint32_t f : flows_here()) ++flows_per_worker[worker_of_flow(f, workers)];
    PinnedShape shape;
    shape.flows_per_worker = flows_per_worker;
    shape.buffer_bytes = std::max<uint32_t>(64, topology.max_message_bytes);
    shape.requesters = role() != Role::receiver;
    shape.responders = role() != Role::sender;
    shape.send_queue_depth = kSendQueueDepth;
    shape.ring_slots = kRingSlots;
    shape.mlx5_queues = port_.vendor_id == kNvidiaVendorId;
    return check_locked_memory(ops_->locked_memory_limit(), pinned_bytes_lower_bound(shape),
                               device_);
  }

  // responder_device: a second device whose QPs answer this one's (loopback across a wire),
  // with its own protection domain, CQs and buffers per worker.
  Status open_responder_device(uint32_t workers, uint32_t buffer_bytes) {
    if (role() != Role::loopback || mirror_fake_) {
      return verbs_error(Errc::invalid_config,
                         "responder_device is for a loopback run on two real devices (no "
                         "peer/listen, not the fake)",
                         "driver.verbs.responder_device");
    }
    auto context = open_verbs_device(*ops_, config_.responder_device, &responder_device_);
    if (!context) return std::move(context).error();
    responder_context_ = *context;
    auto port = query_verbs_port(*ops_, responder_context_, responder_device_, config_);
    if (!port) return std::move(port).error();
    responder_port_ = *port;
    print_note_once(responder_port_.gid_note);
    if (responder_port_.infiniband != port_.infiniband) {
      return verbs_error(Errc::invalid_config,
                         fmt::format("{} and {} are not the same link layer", port_.describe(),
                                     responder_port_.describe()),
                         "driver.verbs.responder_device");
    }
    errno = 0;
    responder_pd_ = ops_->alloc_pd(responder_context_);
    if (responder_pd_ == nullptr) return call_failed("ibv_alloc_pd", errno, responder_device_);
    responder_resources_.resize(workers);
    for (uint32_t w = 0; w < workers; ++w) {
      responder_resources_[w].flows = resources_[w].flows;
      if (Status s = open_worker(responder_resources_[w], w, buffer_bytes, responder_context_,
                                 responder_pd_);
          !s) {
        return s;
      }
    }
    print_note_once(
        fmt::format("{}: the responder QPs are on {} (responder_device): the flows "
                    "cross the wire between the two ports",
                    device_, responder_device_));
    return {};
  }

  // Where a flow's responder QP lives: this device's worker resources, or responder_device's.
  const WorkerResources& responder_resources(uint32_t worker) const {
    return responder_resources_.empty() ? resources_[worker] : responder_resources_[worker];
  }

  Status open_worker(WorkerResources& r, uint32_t w, uint32_t buffer_bytes, ibv_context* context,
                     ibv_pd* pd) {
    const std::string what = fmt::format("worker {}", w);
    // A responder_device's CQs: host stamps (its clock is not this device's).
    const bool timestamps = port_.completion_timestamps && port_.clock_info && context == context_;
    ibv_cq_init_attr_ex cq_attr{};
    cq_attr.wc_flags = IBV_WC_EX_WITH_BYTE_LEN |
                       (timestamps ? uint64_t{IBV_WC_EX_WITH_COMPLETION_TIMESTAMP} : uint64_t{0});
    cq_attr.cqe = std::max(1U, r.flows * kSendQueueDepth);
    errno = 0;
    r.send_cq = ops_->create_cq(context, &cq_attr);
    if (r.send_cq == nullptr) return call_failed("ibv_create_cq_ex", errno, what + "'s send CQ");
    cq_attr.cqe = std::max(1U, r.flows * kRingSlots);
    errno = 0;
    r.recv_cq = ops_->create_cq(context, &cq_attr);
    if (r.recv_cq == nullptr) return call_failed("ibv_create_cq_ex", errno, what + "'s recv CQ");
    r.source = std::make_unique<Buffer>(buffer_bytes);
    r.target = std::make_unique<Buffer>(buffer_bytes);
    if (r.source->data == nullptr || r.target->data == nullptr) {
      return verbs_error(Errc::runtime, fmt::format("cannot allocate 2 x {} bytes of message "
                                                    "buffers",
                                                    buffer_bytes));
    }
    for (auto [buffer, mr, access] : {std::tuple{r.source.get(), &r.source_mr, kAccess},
                                      std::tuple{r.target.get(), &r.target_mr, kAccess}}) {
      errno = 0;
      *mr = ops_->reg_mr(pd, buffer->data, buffer->bytes, access);
      if (*mr == nullptr) {
        const int error = errno;
        return verbs_error(Errc::runtime,
                           fmt::format("ibv_reg_mr of {} bytes failed: {} (errno {}): raise the "
                                       "locked-memory limit (ulimit -l) or use smaller messages",
                                       buffer->bytes, std::strerror(error), error));
      }
    }
    return {};
  }

  // Known from the options before anything opens: a READ between two hosts (its data lands on
  // the sender, which does not judge), and hw_pacing naming flows the plan has and can pace.
  Status check_plan(const policy::QosPlan& plan, const PlanContext& context) const override {
    if (Status s = wire_fits(plan.wire); !s) return s;
    const bool two_hosts = context.in_job || !config_.peer.empty() || config_.listen != 0;
    if (two_hosts) {
      for (size_t f = 0; f < plan.flows.size(); ++f) {
        const policy::FlowPlan& flow = plan.flows[f];
        if (flow.op == policy::RdmaOp::read) {
          return verbs_error(Errc::invalid_config,
                             fmt::format("flow '{}' has op = \"read\": on two hosts its data "
                                         "leaves the receiver and lands on the sender, which "
                                         "does not judge; run READ flows in loopback",
                                         flow.name),
                             fmt::format("flows[{}].op", f));
        }
      }
    }
    return check_hw_pacing(plan);
  }

  Status apply(const policy::QosPlan& plan) override {
    release_plan();
    if (Status s = check_plan(plan, PlanContext{topology_.job.has_value()}); !s) return s;
    // The port's QoS against the suite's, before the tree and any QP (and programmed for the
    // run with nic_qos = "apply").
    if (nic_) {
      std::vector<uint8_t> dscps;
      for (const uint32_t f : flows_here()) dscps.push_back(plan.flows[f].dscp);
      if (Status s = nic_->check_qos(plan, dscps, fmt::format("{} port {}", device_, config_.port));
          !s) {
        return s;
      }
    }
    // A receiver's NIC does not schedule what the sender sends: only senders build the tree
    // (in the NIC, or as each QP's pace).
    // In software, also without a tree: the port's classes and a suite rate below the port's
    // speed hold only through the pace.
    pace_bps_.clear();
    if (role() != Role::receiver) {
      if (config_.tree == TreeMode::software) {
        pace_software_tree(plan);
      } else if (policy::is_implicit_tree(plan.tree)) {
        // nothing to build: the device's default scheduling
      } else if (Status s = tree_.build(*ops_, context_, plan.tree, device_); !s) {
        return s;
      }
    }
    qps_.resize(plan.flows.size());
    const auto workers = static_cast<uint32_t>(resources_.size());
    for (const uint32_t f : flows_here()) {
      const uint32_t w = worker_of_flow(f, workers);
      if (Status s =
              make_flow_qps(f, plan.flows[f], resources_[w], responder_resources(w), qps_[f]);
          !s) {
        return s;
      }
    }
    std::vector<QpEndpoint> remote;
    if (topology_.job) {
      auto exchanged = exchange_over_job(plan);
      if (!exchanged) return std::move(exchanged).error();
      remote = std::move(*exchanged);
    } else if (role() == Role::loopback) {
      for (uint32_t f = 0; f < plan.flows.size(); ++f) {
        const policy::FlowPlan& flow = plan.flows[f];
        if (Status s =
                connect(qps_[f].responder, local_endpoint(f, qps_[f].requester), flow, false);
            !s) {
          return s;
        }
        if (Status s = connect(qps_[f].requester, local_endpoint(f, qps_[f].responder), flow, true);
            !s) {
          return s;
        }
      }
    } else {
      auto exchanged = exchange_with_peer(plan);
      if (!exchanged) return std::move(exchanged).error();
      remote = std::move(*exchanged);
    }
    for (uint32_t f = 0; f < plan.flows.size(); ++f) {
      const policy::FlowPlan& flow = plan.flows[f];
      const bool asked = config_.hw_rate_limit || asks_hw_pacing(flow);
      if (asked && qps_[f].requester != nullptr && std::isfinite(flow.offered_wire_bps)) {
        if (Status s = rate_limit(qps_[f].requester, flow); !s) return s;
      }
    }
    return make_workers(plan, remote);
  }

  // tree = "software": each flow's pace, and the line that says so.
  void pace_software_tree(const policy::QosPlan& plan) {
    pace_bps_ = software_pace_bps(plan);
    uint32_t paced = 0;
    for (const double bps : pace_bps_) paced += bps > 0.0 ? 1 : 0;
    const auto flows = static_cast<uint32_t>(plan.flows.size());
    print_note_once(fmt::format(
        "{}: tree = \"software\": the scheduling tree is not built in the NIC; {} QPs are paced "
        "at their oracle share in software{}{}",
        device_,
        paced == flows ? fmt::format("all {}", flows) : fmt::format("{} of {}", paced, flows),
        paced == flows ? ""
                       : fmt::format(", the other {} offer less than their share", flows - paced),
        plan.port_rate_bps < port_.speed_bps * 0.99
            ? fmt::format(
                  " (shares of the suite's port rate, {:g} Mbit/s, below the port's {:g} Mbit/s)",
                  plan.port_rate_bps / 1e6, port_.speed_bps / 1e6)
            : ""));
  }

  // fabric: a rank of a [topology] job, sending its own flows and receiving those to it.
  enum class Role { loopback, sender, receiver, fabric };
  Role role() const {
    if (topology_.job && topology_.job->fabric) return Role::fabric;
    if (topology_.job) return topology_.job->receiver ? Role::receiver : Role::sender;
    if (!config_.peer.empty()) return Role::sender;
    return config_.listen != 0 ? Role::receiver : Role::loopback;
  }

  // The flows this host has QPs for: in a job, a sender's own flows only; else every flow.
  // (The plan has the opened topology's flows: the generic Driver checks it.)
  std::vector<uint32_t> flows_here() const {
    if (role() == Role::fabric) {
      std::vector<uint32_t> both = topology_.job->sent_flows;
      both.insert(both.end(), topology_.job->received_flows.begin(),
                  topology_.job->received_flows.end());
      std::sort(both.begin(), both.end());
      both.erase(std::unique(both.begin(), both.end()), both.end());
      return both;
    }
    if (topology_.job && !topology_.job->receiver) return topology_.job->sent_flows;
    std::vector<uint32_t> all(topology_.flow_count);
    for (uint32_t f = 0; f < all.size(); ++f) all[f] = f;
    return all;
  }

  // Whether this host has flow f's requester (it sends f) and its responder (f arrives here).
  bool sends(uint32_t f) const {
    if (role() == Role::fabric) {
      return std::binary_search(topology_.job->sent_flows.begin(), topology_.job->sent_flows.end(),
                                f);
    }
    return role() != Role::receiver;
  }
  bool receives(uint32_t f) const {
    if (role() == Role::fabric) {
      return std::binary_search(topology_.job->received_flows.begin(),
                                topology_.job->received_flows.end(), f);
    }
    return role() != Role::sender;
  }

  // A fabric job's exchange: this rank's requesters (its flows) and responders (the flows to
  // it) out, every rank's in; each connected to its flow's other side. Returns, by flow, the
  // responders this rank's writes land in.
  Result<std::vector<QpEndpoint>> exchange_over_fabric(const policy::QosPlan& plan) {
    const auto flows = static_cast<uint32_t>(plan.flows.size());
    const uint64_t hash = plan_hash(plan, topology_);
    const JobPart& part = *topology_.job;
    std::vector<QpEndpoint> requesters;
    std::vector<QpEndpoint> responders;
    for (const uint32_t f : part.sent_flows) {
      requesters.push_back(local_endpoint(f, qps_[f].requester));
    }
    for (const uint32_t f : part.received_flows) {
      responders.push_back(local_endpoint(f, qps_[f].responder));
    }
    auto records = part.exchange->all_gather(
        format_fabric_record(hash, flows, part.rank, requesters, responders));
    if (!records) return std::move(records).error();
    auto peers = match_fabric_records(*records, hash, flows, part.sent_flows, part.received_flows);
    if (!peers) return std::move(peers).error();
    for (const uint32_t f : part.sent_flows) {
      if (Status s = connect(qps_[f].requester, peers->responder_of[f], plan.flows[f], true); !s) {
        return std::move(s).error();
      }
    }
    for (const uint32_t f : part.received_flows) {
      if (Status s = connect(qps_[f].responder, peers->requester_of[f], plan.flows[f], false);
          !s) {
        return std::move(s).error();
      }
    }
    return std::move(peers->responder_of);
  }

  // A job's exchange: this rank's QPs out, every rank's in; each of ours connected to the
  // other side of its flow. Returns the other sides, by flow (a sender writes into the
  // receiver's buffers).
  Result<std::vector<QpEndpoint>> exchange_over_job(const policy::QosPlan& plan) {
    if (role() == Role::fabric) return exchange_over_fabric(plan);
    const bool receiver = role() == Role::receiver;
    const auto flows = static_cast<uint32_t>(plan.flows.size());
    const uint64_t hash = plan_hash(plan, topology_);
    const std::vector<uint32_t> mine_flows = flows_here();
    std::vector<QpEndpoint> mine;
    for (const uint32_t f : mine_flows) {
      mine.push_back(local_endpoint(f, receiver ? qps_[f].responder : qps_[f].requester));
    }
    auto records = topology_.job->exchange->all_gather(
        format_job_record(hash, flows, receiver, mine));
    if (!records) return std::move(records).error();
    auto theirs = match_job_records(*records, receiver, hash, flows, mine_flows);
    if (!theirs) return std::move(theirs).error();
    for (const uint32_t f : mine_flows) {
      ibv_qp* qp = receiver ? qps_[f].responder : qps_[f].requester;
      if (Status s = connect(qp, (*theirs)[f], plan.flows[f], !receiver); !s) {
        return std::move(s).error();
      }
    }
    return theirs;
  }

  // The hello (same plan on both hosts), then each side's endpoints, then the QPs connected to
  // the peer's. Returns the peer's endpoints (a sender writes into the receiver's buffer).
  Result<std::vector<QpEndpoint>> exchange_with_peer(const policy::QosPlan& plan) {
    const bool receiver = role() == Role::receiver;
    const auto flows = static_cast<uint32_t>(plan.flows.size());
    if (Status s = exchange_hello(link_, receiver, plan_hash(plan, topology_), flows); !s) {
      return std::move(s).error();
    }
    std::vector<QpEndpoint> mine;
    for (uint32_t f = 0; f < flows; ++f) {
      mine.push_back(local_endpoint(f, receiver ? qps_[f].responder : qps_[f].requester));
    }
    auto theirs = exchange_endpoints(link_, receiver, mine);
    if (!theirs) return std::move(theirs).error();
    for (uint32_t f = 0; f < flows; ++f) {
      ibv_qp* qp = receiver ? qps_[f].responder : qps_[f].requester;
      if (Status s = connect(qp, (*theirs)[f], plan.flows[f], !receiver); !s) {
        return std::move(s).error();
      }
    }
    return theirs;
  }

  // What a peer (or the other QP of a loopback pair) needs to reach `qp`, and the buffer of
  // the flow's worker that RDMA WRITEs land in.
  QpEndpoint local_endpoint(uint32_t flow, ibv_qp* qp) const {
    const uint32_t w = worker_of_flow(flow, static_cast<uint32_t>(resources_.size()));
    // A responder on responder_device answers from that device's port and buffers.
    const bool other =
        responder_context_ != nullptr && flow < qps_.size() && qp == qps_[flow].responder;
    const WorkerResources& r = other ? responder_resources_[w] : resources_[w];
    const PortInfo& port = other ? responder_port_ : port_;
    QpEndpoint e;
    e.flow = flow;
    e.qp_num = qp->qp_num;
    e.psn = 0;
    e.lid = port.lid;
    e.gid = port.gid;
    e.rkey = r.target_mr->rkey;
    e.address = reinterpret_cast<uintptr_t>(r.target->data);
    return e;
  }

  Status make_workers(const policy::QosPlan& plan, const std::vector<QpEndpoint>& remote) {
    const auto workers = static_cast<uint32_t>(resources_.size());
    std::vector<std::vector<WorkerFlowSetup>> flows_of(workers);
    for (const uint32_t f : flows_here()) {
      const uint32_t w = worker_of_flow(f, workers);
      WorkerFlowSetup setup;
      setup.flow = f;
      setup.op = flow_op(plan.flows[f].op);
      setup.requester = qps_[f].requester;
      setup.responder = qps_[f].responder;
      const QpEndpoint target = remote.empty() ? local_endpoint(f, qps_[f].responder) : remote[f];
      setup.remote_address = target.address;
      setup.remote_key = target.rkey;
      setup.pace_bps = f < pace_bps_.size() ? pace_bps_[f] : 0.0;
      flows_of[w].push_back(setup);
    }
    Clock* simulated = ops_->simulated_clock();
    for (uint32_t w = 0; w < workers; ++w) {
      const WorkerResources& r = resources_[w];
      const WorkerResources& responder_r = responder_resources(w);  // arrivals land there
      WorkerSetup setup;
      setup.ops = ops_;
      setup.send_cq = r.send_cq;
      setup.recv_cq = responder_r.recv_cq;
      setup.local_address = reinterpret_cast<uintptr_t>(r.source->data);
      setup.local_key = r.source_mr->lkey;
      setup.recv_address = reinterpret_cast<uintptr_t>(responder_r.target->data);
      setup.recv_key = responder_r.target_mr->lkey;
      setup.buffer_bytes = buffer_bytes_;
      setup.ring_slots = kRingSlots;
      setup.wire = topology_.wire;
      setup.simulated_clock = simulated;
      setup.nic_timestamps =
          port_.completion_timestamps && port_.clock_info && responder_context_ == nullptr;
      setup.clock_info = port_.clock;
      setup.context = context_;
      setup.clock_info_refresh_ns = clock_info_refresh_ns(port_.clock_info_update_ns);
      workers_.push_back(std::make_unique<VerbsWorker>(std::move(setup), std::move(flows_of[w]),
                                                       static_cast<uint32_t>(plan.flows.size())));
      if (!workers_.back()->post_receives()) {
        return verbs_error(Errc::runtime, fmt::format("ibv_post_recv failed on worker {}", w));
      }
    }
    return {};
  }

  Result<ibv_qp*> create_qp(const policy::FlowPlan& flow, const WorkerResources& r,
                            bool requester) {
    ibv_qp_init_attr attr{};
    attr.qp_type = IBV_QPT_RC;
    ibv_cq_ex* cq = requester ? r.send_cq : r.recv_cq;
    attr.send_cq = ibv_cq_ex_to_cq(cq);
    attr.recv_cq = ibv_cq_ex_to_cq(cq);
    attr.cap.max_send_wr = requester ? kSendQueueDepth : 1;
    attr.cap.max_recv_wr = requester ? 1 : kRingSlots;
    attr.cap.max_send_sge = 1;
    attr.cap.max_recv_sge = 1;
    errno = 0;
    ibv_qp* qp =
        ops_->create_qp(requester || responder_pd_ == nullptr ? pd_ : responder_pd_, &attr);
    if (qp == nullptr) {
      return call_failed("ibv_create_qp", errno,
                         fmt::format("flow '{}'{}", flow.name, requester ? "" : " (responder)"));
    }
    ibv_qp_attr init{};
    init.qp_state = IBV_QPS_INIT;
    init.pkey_index = 0;
    init.port_num = config_.port;
    init.qp_access_flags = kAccess;
    if (int rc = ops_->modify_qp(
            qp, &init, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
      if (ops_->destroy_qp(qp) != 0) ++teardown_failures_;  // not yet in qps_: ours to free
      return call_failed("ibv_modify_qp(INIT)", rc, fmt::format("flow '{}'", flow.name));
    }
    return qp;
  }

  // The QPs this host has for one flow, in INIT; the requester attached to the flow's leaf.
  Status make_flow_qps(uint32_t f, const policy::FlowPlan& flow, const WorkerResources& r,
                       const WorkerResources& responder_r, FlowQps& qps) {
    if (sends(f)) {
      auto requester = create_qp(flow, r, true);
      if (!requester) return std::move(requester).error();
      qps.requester = *requester;
    }
    if (receives(f)) {
      auto responder = create_qp(flow, responder_r, false);
      if (!responder) return std::move(responder).error();
      qps.responder = *responder;
    }
    const mlx5dv_sched_leaf* leaf = tree_.leaf(flow.leaf);
    if (leaf == nullptr) return {};
    // The requester's requests go by the flow's leaf; a READ's data is the responder's
    // responses, which go by the responder QP's responder leaf (mlx5dv_modify_qp_sched_elem(3)).
    if (qps.requester != nullptr) {
      if (Status s = attach(qps.requester, leaf, nullptr, flow); !s) return s;
      qps.attached = true;
    }
    if (flow.op == policy::RdmaOp::read && qps.responder != nullptr) {
      if (responder_context_ != nullptr) {
        return verbs_error(Errc::invalid_config,
                           fmt::format("flow '{}' is a READ, whose responses go by the tree's "
                                       "leaf on {}: with responder_device its responder is on "
                                       "{}; use tree = \"software\"",
                                       flow.name, device_, responder_device_),
                           "driver.verbs.responder_device");
      }
      if (Status s = attach(qps.responder, nullptr, leaf, flow); !s) return s;
      qps.responder_attached = true;
    }
    return {};
  }

  Status attach(ibv_qp* qp, const mlx5dv_sched_leaf* requester, const mlx5dv_sched_leaf* responder,
                const policy::FlowPlan& flow) {
    if (int rc = ops_->modify_qp_sched_elem(qp, requester, responder)) {
      return verbs_error(rc == EOPNOTSUPP ? Errc::unavailable : Errc::runtime,
                         fmt::format("mlx5dv_modify_qp_sched_elem for flow '{}' failed: {} "
                                     "(errno {})",
                                     flow.name, std::strerror(rc), rc));
    }
    return {};
  }

  // INIT -> RTR -> RTS towards `remote`, with the flow's SL and traffic class.
  Status connect(ibv_qp* qp, const QpEndpoint& remote, const policy::FlowPlan& flow,
                 bool requester) {
    if (!port_.infiniband) {
      if (Status s = check_peer_gid_family(port_.gid, remote.gid); !s) return s;
    }
    ibv_qp_attr rtr{};
    rtr.qp_state = IBV_QPS_RTR;
    rtr.path_mtu = path_mtu_;
    rtr.dest_qp_num = remote.qp_num;
    rtr.rq_psn = remote.psn;
    rtr.max_dest_rd_atomic = 16;
    rtr.min_rnr_timer = 12;  // 0.64 ms
    rtr.ah_attr.port_num = config_.port;
    rtr.ah_attr.sl = flow.sl;
    rtr.ah_attr.dlid = remote.lid;
    if (!port_.infiniband || topology_.wire.ib_grh) {
      rtr.ah_attr.is_global = 1;
      rtr.ah_attr.grh.dgid = remote.gid;
      const bool other = !requester && responder_context_ != nullptr;
      rtr.ah_attr.grh.sgid_index =
          static_cast<uint8_t>(other ? responder_port_.gid_index : port_.gid_index);
      rtr.ah_attr.grh.hop_limit = 64;
      // The GRH's traffic class is the IP TOS byte on RoCEv2: DSCP in its upper six bits.
      rtr.ah_attr.grh.traffic_class = static_cast<uint8_t>(flow.dscp << 2);
    }
    const std::string what = fmt::format("flow '{}'{}", flow.name, requester ? "" : " (responder)");
    if (int rc =
            ops_->modify_qp(qp, &rtr,
                            IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                                IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)) {
      return call_failed("ibv_modify_qp(RTR)", rc, what);
    }
    ibv_qp_attr rts{};
    rts.qp_state = IBV_QPS_RTS;
    rts.timeout = 14;  // 4.096 us x 2^14 = 67 ms
    rts.retry_cnt = 7;
    rts.rnr_retry = 7;  // forever: a receiver that is behind is waited for
    rts.sq_psn = 0;     // our PSN (the peer's rq_psn: 0 on both hosts)
    rts.max_rd_atomic = 16;
    if (int rc = ops_->modify_qp(qp, &rts,
                                 IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                                     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)) {
      return call_failed("ibv_modify_qp(RTS)", rc, what);
    }
    return {};
  }

  static Status wire_fits(const policy::WireModel& wire) {
    if (wire.transport != policy::Transport::eth) return {};
    return verbs_error(Errc::invalid_config,
                       "sends RDMA messages on RC QPs: set the port's transport to \"rocev2\" "
                       "or \"ib\" (Ethernet frame suites run on --driver dpdk)",
                       "port.transport");
  }

  // hw_pacing names a [[flow]] entry or a flow instance.
  bool asks_hw_pacing(const policy::FlowPlan& flow) const {
    for (const auto& name : config_.hw_pacing) {
      if (name == flow.group || name == flow.name) return true;
    }
    return false;
  }

  // Every name in hw_pacing is a flow of the plan, and a paced one.
  Status check_hw_pacing(const policy::QosPlan& plan) const {
    for (const auto& name : config_.hw_pacing) {
      bool found = false;
      for (const policy::FlowPlan& flow : plan.flows) {
        if (name != flow.group && name != flow.name) continue;
        found = true;
        if (!std::isfinite(flow.offered_wire_bps)) {
          return verbs_error(Errc::invalid_config,
                             fmt::format("flow '{}' asks for hardware pacing but has no rate to "
                                         "pace at (it saturates): give it a rate, or remove it "
                                         "from hw_pacing",
                                         flow.name),
                             "driver.verbs.hw_pacing");
        }
      }
      if (!found) {
        return verbs_error(
            Errc::invalid_config,
            fmt::format("hw_pacing names '{}', which is no [[flow]] of the suite", name),
            "driver.verbs.hw_pacing");
      }
    }
    return {};
  }

  Status rate_limit(ibv_qp* qp, const policy::FlowPlan& flow) {
    const char* key =
        config_.hw_rate_limit ? "driver.verbs.hw_rate_limit" : "driver.verbs.hw_pacing";
    const ibv_packet_pacing_caps& caps = port_.pacing;
    if ((caps.supported_qpts & (1U << IBV_QPT_RC)) == 0) {
      return verbs_error(Errc::unavailable,
                         fmt::format("{} has no packet pacing for RC QPs (packet_pacing_caps): "
                                     "set hw_rate_limit = false and hw_pacing = []",
                                     device_),
                         key);
    }
    const double kbps = std::ceil(flow.offered_wire_bps / 1e3);
    if (kbps < caps.qp_rate_limit_min || kbps > caps.qp_rate_limit_max) {
      return verbs_error(
          Errc::invalid_config,
          fmt::format("flow '{}' offers {:g} kbit/s, outside the device's packet "
                      "pacing range [{}, {}] kbit/s",
                      flow.name, kbps, caps.qp_rate_limit_min, caps.qp_rate_limit_max),
          key);
    }
    ibv_qp_rate_limit_attr attr{};
    attr.rate_limit = static_cast<uint32_t>(kbps);
    if (int rc = ops_->modify_qp_rate_limit(qp, &attr)) {
      return call_failed("ibv_modify_qp_rate_limit", rc, fmt::format("flow '{}'", flow.name));
    }
    return {};
  }

  Status start() override {
    // Two hosts: the sender starts when the receiver is ready, which may take up to
    // kPeerWaitMs. The run's zero is taken after that wait: the device clock and the host
    // clock read together (the clock info read just before, to convert the device's ticks), so
    // NIC-timed latencies are not inflated by the wait.
    if (role() != Role::loopback && !topology_.job) {
      if (Status s = exchange_ready(link_, role() == Role::receiver); !s) return s;
    }
    int64_t device0_ns = 0;
    mlx5dv_clock_info clock = port_.clock;
    if (port_.completion_timestamps && port_.clock_info) {
      // A fresh one; should the read fail, the one read at open (moments ago) still converts.
      if (ops_->get_clock_info(context_, &clock) != 0) clock = port_.clock;
      uint64_t ticks = 0;
      if (int rc = ops_->read_device_clock(context_, &ticks)) {
        return call_failed("ibv_query_rt_values_ex", rc, device_);
      }
      device0_ns = static_cast<int64_t>(mlx5dv_ts_to_ns(&clock, ticks));
    }
    if (nic_) nic_->counters_before();
    const int64_t host0_ns = workers_.empty() ? 0 : workers_.front()->host_now_ns();
    for (auto& worker : workers_) worker->start(host0_ns, device0_ns, clock);
    return {};
  }

  Queue& queue(uint32_t worker) override { return *workers_[worker]; }
  Clock& clock(uint32_t worker) override { return *workers_[worker]; }

  Status stop() override {
    for (auto& worker : workers_) worker->stop();
    if (nic_) nic_->counters_after();
    return {};
  }

  DriverStats stats() const override {
    WorkerStats sum;
    for (const auto& worker : workers_) {
      const WorkerStats& s = worker->stats();
      sum.posted += s.posted;
      sum.send_completions += s.send_completions;
      sum.recv_completions += s.recv_completions;
      sum.error_completions += s.error_completions;
      sum.post_failures += s.post_failures;
      sum.ring_full += s.ring_full;
      sum.poll_errors += s.poll_errors;
    }
    DriverStats stats{
        {"posted_messages", static_cast<double>(sum.posted)},
        {"send_completions", static_cast<double>(sum.send_completions)},
        {"recv_completions", static_cast<double>(sum.recv_completions)},
        {"error_completions", static_cast<double>(sum.error_completions)},
        {"post_retries", static_cast<double>(sum.post_failures)},
        {"ring_full", static_cast<double>(sum.ring_full)},
        {"poll_errors", static_cast<double>(sum.poll_errors)},
        {"port_speed_bps", port_.speed_bps},
        {"gid_index", static_cast<double>(port_.gid_index)},
        {"nic_sched_tree", tree_.built() ? 1.0 : 0.0},
        {"software_tree", config_.tree == TreeMode::software ? 1.0 : 0.0},
        {"software_paced_flows",
         static_cast<double>(std::count_if(pace_bps_.begin(), pace_bps_.end(),
                                           [](double bps) { return bps > 0.0; }))},
        {"teardown_failures", static_cast<double>(teardown_failures_)},
    };
    if (nic_) {
      nic_->add_stats(stats, role() == Role::sender     ? nic::CounterDirection::tx
                             : role() == Role::receiver ? nic::CounterDirection::rx
                                                        : nic::CounterDirection::loopback);
    }
    return stats;
  }

  // QPs (detached, then destroyed), then the tree (children first): what apply() made.
  void release_plan() noexcept {
    workers_.clear();
    for (FlowQps& qps : qps_) {
      if (qps.attached && ops_->modify_qp_sched_elem(qps.requester, nullptr, nullptr) != 0) {
        ++teardown_failures_;
      }
      if (qps.responder_attached &&
          ops_->modify_qp_sched_elem(qps.responder, nullptr, nullptr) != 0) {
        ++teardown_failures_;
      }
      for (ibv_qp* qp : {qps.requester, qps.responder}) {
        if (qp != nullptr && ops_->destroy_qp(qp) != 0) ++teardown_failures_;
      }
    }
    qps_.clear();
    tree_.destroy();
  }

  void close() noexcept override {
    if (ops_ == nullptr) return;
    release_plan();
    for (WorkerResources& r : resources_) {
      for (ibv_mr* mr : {r.source_mr, r.target_mr}) {
        if (mr != nullptr && ops_->dereg_mr(mr) != 0) ++teardown_failures_;
      }
      for (ibv_cq_ex* cq : {r.send_cq, r.recv_cq}) {
        if (cq != nullptr && ops_->destroy_cq(cq) != 0) ++teardown_failures_;
      }
    }
    resources_.clear();
    for (WorkerResources& r : responder_resources_) {
      for (ibv_mr* mr : {r.source_mr, r.target_mr}) {
        if (mr != nullptr && ops_->dereg_mr(mr) != 0) ++teardown_failures_;
      }
      for (ibv_cq_ex* cq : {r.send_cq, r.recv_cq}) {
        if (cq != nullptr && ops_->destroy_cq(cq) != 0) ++teardown_failures_;
      }
    }
    responder_resources_.clear();
    if (responder_pd_ != nullptr && ops_->dealloc_pd(responder_pd_) != 0) ++teardown_failures_;
    responder_pd_ = nullptr;
    if (responder_context_ != nullptr && ops_->close_device(responder_context_) != 0) {
      ++teardown_failures_;
    }
    responder_context_ = nullptr;
    if (pd_ != nullptr && ops_->dealloc_pd(pd_) != 0) ++teardown_failures_;
    pd_ = nullptr;
    if (context_ != nullptr && ops_->close_device(context_) != 0) ++teardown_failures_;
    context_ = nullptr;
    link_ = PeerLink{};
    teardown_failures_ += tree_.failed_destroys();
    // The port's QoS as it was before the run (nic_qos = "apply"); a failure is said on stderr
    // with the commands that put it back.
    if (nic_) {
      if (Status s = nic_->close(); !s) {
        ++teardown_failures_;
        std::fprintf(stderr, "qosbench: error: verbs: %s\n", s.error().message.c_str());
      }
    }
  }

 private:
  VerbsConfig config_;
  VerbsOps* ops_ = nullptr;
  std::unique_ptr<VerbsOps> owned_ops_;
  bool mirror_fake_ = false;  // owned_ops_ is a fake made for the suite's port
  Topology topology_;
  std::string device_;
  ibv_context* context_ = nullptr;
  PortInfo port_;
  ibv_mtu path_mtu_ = IBV_MTU_4096;
  ibv_pd* pd_ = nullptr;
  uint32_t buffer_bytes_ = 0;
  std::vector<WorkerResources> resources_;
  // responder_device (loopback across two devices): its context, port, PD and worker resources.
  std::string responder_device_;
  ibv_context* responder_context_ = nullptr;
  PortInfo responder_port_;
  ibv_pd* responder_pd_ = nullptr;
  std::vector<WorkerResources> responder_resources_;
  NicSchedTree tree_;
  std::vector<double> pace_bps_;  // tree = "software": per plan flow (software_tree.hpp)
  std::vector<FlowQps> qps_;
  std::vector<std::unique_ptr<VerbsWorker>> workers_;
  PeerLink link_;                        // two hosts: the connection to the peer
  std::unique_ptr<nic::PortState> nic_;  // the port's QoS and counters (null: a fake, no nic_root)
  uint32_t teardown_failures_ = 0;
};

struct VerbsOptions final : DriverOptions {
  VerbsConfig config;
};

}  // namespace

Result<double> read_port_speed_bps(const VerbsConfig& config, VerbsOps* ops) {
  std::unique_ptr<VerbsOps> owned;
  if (ops == nullptr) {
    // The fake has no suite to mirror here: it is the default ConnectX of fake_mlx5.hpp.
    owned = config.provider == Provider::fake ? std::make_unique<FakeMlx5>(FakeDeviceConfig{})
                                              : make_rdma_core_ops();
    ops = owned.get();
  }
  std::string device;
  auto context = open_verbs_device(*ops, config.device, &device);
  if (!context) return std::move(context).error();
  auto port = query_verbs_port(*ops, *context, device, config);
  ops->close_device(*context);
  if (!port) return std::move(port).error();
  if (!(port->speed_bps > 0.0)) {
    return verbs_error(
        Errc::unavailable,
        fmt::format("{} reports no known speed: give the suite's rate", port->describe()),
        "port.rate");
  }
  return port->speed_bps;
}

std::unique_ptr<DriverBackend> make_verbs_backend(VerbsConfig config, VerbsOps* ops) {
  return std::make_unique<VerbsDriver>(std::move(config), ops);
}

std::unique_ptr<Driver> make_verbs_driver(VerbsConfig config, VerbsOps* ops) {
  return std::make_unique<Driver>("verbs", make_verbs_backend(std::move(config), ops));
}

}  // namespace qb::drv::verbs

namespace qb::drv {

DriverEntry verbs_driver_entry() {
  DriverEntry entry;
  entry.available = true;
  entry.contract_options = {"provider = \"fake\"",
                            "provider = \"fake\"\nfake_timing = \"instant\"\nworkers = 2",
                            // A device without mlx5dv_sched, the tree paced in software.
                            "provider = \"fake\"\nfake_sched_support = false\ntree = \"software\""};
  entry.parse_options = [](const ConfigTable& table) -> std::unique_ptr<const DriverOptions> {
    auto options = std::make_unique<verbs::VerbsOptions>();
    options->config = verbs::parse_verbs_config(table);
    return options;
  };
  entry.create = [](const DriverOptions& options) -> Result<std::unique_ptr<DriverBackend>> {
    return std::unique_ptr<DriverBackend>(std::make_unique<verbs::VerbsDriver>(
        static_cast<const verbs::VerbsOptions&>(options).config, nullptr));
  };
  entry.port_rate_bps = [](const DriverOptions& options) -> Result<double> {
    const verbs::VerbsConfig& config = static_cast<const verbs::VerbsOptions&>(options).config;
    return verbs::read_port_speed_bps(config);
  };
  entry.machine_status = [] {
    const auto names = verbs::make_rdma_core_ops()->device_names();
    if (names.empty()) return std::string("no RDMA device found (provider = \"fake\" still runs)");
    return fmt::format("devices: {}", fmt::join(names, ", "));
  };
  return entry;
}

}  // namespace qb::drv
