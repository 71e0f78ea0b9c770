// The DPDK driver's control path: EAL, ports, pool, templates and the worker's fast path (the
// generic Driver checks call order, topology and plan first), and its registry entry.
// Roles: Tx and Rx (loopback or two ports), Tx only (rx_port = "none"), Rx only
// (tx_port = "none": a receiver process for a sender in another process or host).
#include "dpdk_driver.hpp"

#include <fmt/format.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "device_timing.hpp"
#include "dpdk_worker.hpp"
#include "eal.hpp"
#include "fabric_addressing.hpp"
#include "netns.hpp"
#include "port.hpp"
#include "port_state_hooks.hpp"
#include "qb/drivers/registry.hpp"

namespace qb::drv {
namespace {

using dpdk::DpdkWorker;

constexpr std::string_view kNoPort = "none";
// rocev2: flow f goes to destination QP kFirstDestQp + f (QP numbers below 0x10 are special).
constexpr uint32_t kFirstDestQp = 0x100;

// Receive only: the engine's messages are accepted and dropped without a tx_done, so each
// flow's window fills once and the engine stops generating; poll() gives what arrives. With
// nothing to send, the engine waits for the end of the run: the wait is cut into short slices
// so that frames reach it (and get their arrival time) promptly, not only when the worker's
// receive buffer is nearly full.
class ReceiveOnlyQueue final : public Queue, public Clock {
 public:
  static constexpr int64_t kWaitSliceNs = 2'000;

  explicit ReceiveOnlyQueue(DpdkWorker& worker) : worker_(worker) {}
  uint32_t tx_burst(std::span<const Message> messages) noexcept override {
    return static_cast<uint32_t>(messages.size());
  }
  uint32_t poll(std::span<Completion> out) noexcept override { return worker_.poll(out); }
  int64_t now_ns() noexcept override { return worker_.now_ns(); }
  void wait_until(int64_t deadline_ns) noexcept override {
    worker_.wait_until(std::min(deadline_ns, worker_.now_ns() + kWaitSliceNs));
  }
  std::string_view name() const noexcept override { return worker_.name(); }

 private:
  DpdkWorker& worker_;
};

// net_af_xdp works in queue pairs: one AF_XDP socket per pair, made when the Rx queue is set
// up, so a Tx-only port needs Rx queues (never polled; drained at stop) and an Rx-only port
// Tx queues (never used); and its UMEM chunks must hold at least 2048 bytes (the kernel's
// minimum), so its mbufs get the default data room at least.
bool queue_pairs_only(const std::string& driver_name) {
  return driver_name == "net_af_xdp";
}

// The smallest mbuf data room the PMD takes: net_af_xdp's UMEM chunks (above); net_af_packet
// refuses an Rx queue whose mbufs cannot hold a whole Ethernet frame (ENOMEM) even when every
// frame of the suite is small.
uint32_t min_data_room(const std::string& driver_name) {
  if (driver_name == "net_af_xdp" || driver_name == "net_af_packet") {
    return RTE_MBUF_DEFAULT_BUF_SIZE;
  }
  return 0;
}

class DpdkDriver final : public DriverBackend {
 public:
  DpdkDriver(DpdkConfig config, std::unique_ptr<dpdk::DeviceOps> ops)
      : config_(std::move(config)), ops_(std::move(ops)) {}
  ~DpdkDriver() override { close(); }
  DpdkDriver(const DpdkDriver&) = delete;
  DpdkDriver& operator=(const DpdkDriver&) = delete;

  Capabilities capabilities() const override {
    Capabilities caps;
    caps.virtual_time = false;
    caps.hw_sched_tree = false;  // mlx5 on DPDK 22.11 has no rte_tm: the tree is in software
    caps.hw_timestamps = timing_.rx_hw_timestamps;
    caps.max_workers = dpdk_worker_count(config_);  // one Tx/Rx queue pair per worker
    caps.max_outstanding_per_flow = std::max(1u, config_.send_queue_depth);
    caps.receives = config_.rx_port != kNoPort;
    caps.max_flows = dpdk::kMaxFlows;  // the payload header carries a 16-bit flow id
    caps.needs_tree = config_.software_shaper;
    return caps;
  }

  // Known before anything opens (no EAL yet): the frames this driver can build.
  Status check_plan(const policy::QosPlan& plan, const PlanContext&) const override {
    return wire_fits(plan.wire);
  }

  static Status wire_fits(const policy::WireModel& wire) {
    if (wire.transport == policy::Transport::ib) {
      return make_error(Errc::invalid_config,
                        "dpdk: sends Ethernet frames; set the port's transport to \"eth\" or "
                        "\"rocev2\"",
                        "port.transport");
    }
    if (wire.transport == policy::Transport::rocev2 && wire.ipv6) {
      return make_error(Errc::invalid_config, "dpdk: RoCEv2 frames are IPv4 only",
                        "port.transport");
    }
    return {};
  }

  Status open(const Topology& topology) override {
    // The suite asks for what this driver cannot be: a config error at the suite's key (exit 2),
    // not a run-time failure.
    if (Status s = wire_fits(topology.wire); !s) return s;
    transmit_ = config_.tx_port != kNoPort;
    receive_ = config_.rx_port != kNoPort;
    if (!transmit_ && !receive_) {
      return make_error(Errc::invalid_config,
                        "dpdk: tx_port and rx_port are both \"none\": nothing to do",
                        "driver.dpdk.tx_port");
    }
    // The ports are made and driven from the rank's namespace (netns.hpp).
    if (auto s = dpdk::enter_netns(config_.netns); !s) return s;
    if (auto s = dpdk::ensure_eal(config_.eal_args); !s) return s;
    // rte_eal_init cannot be cut short (a few hundred ms with -m 512): a signal that came
    // during it ends the run here, before any port is set up.
    if (topology.stop != nullptr && topology.stop->load(std::memory_order_relaxed)) {
      return make_error(Errc::runtime, "dpdk: interrupted while the EAL was initialised");
    }
    if (transmit_) {
      auto tx = dpdk::find_port(config_.tx_port);
      if (!tx) return std::move(tx).error();
      tx_port_ = *tx;
    }
    rx_port_ = tx_port_;
    // Rx only with an empty rx_port: the first port.
    if (receive_ && (!config_.rx_port.empty() || !transmit_)) {
      auto rx = dpdk::find_port(config_.rx_port);
      if (!rx) return std::move(rx).error();
      rx_port_ = *rx;
    }
    if (!transmit_) tx_port_ = rx_port_;  // counters and socket come from the one port
    const auto workers = static_cast<uint16_t>(topology.workers);
    // A receiver has nothing to pace: hw_pacing applies to the sender only.
    auto timing =
        dpdk::plan_timing(*ops_, tx_port_, rx_port_, receive_, transmit_ && config_.hw_pacing);
    if (!timing) return std::move(timing).error();
    timing_ = *timing;
    const bool same = receive_ && rx_port_ == tx_port_;
    const bool pairs = queue_pairs_only(ops_->driver_name(tx_port_));
    tx_port_rx_queues_ = transmit_ && !receive_ && pairs ? workers : 0;
    const uint16_t tx_queues = transmit_ || pairs ? workers : 0;
    const uint16_t rx_queues = receive_ ? workers : tx_port_rx_queues_;
    // rocev2: the largest packet (a path-MTU payload with RETH); eth: the largest frame.
    const uint32_t largest_frame = topology.wire.transport == policy::Transport::rocev2
                                       ? dpdk::kMaxHeaderBytes + dpdk::kBthBytes +
                                             dpdk::kRethBytes + topology.wire.mtu_bytes + 3 +
                                             dpdk::kIcrcBytes
                                       : static_cast<uint32_t>(topology.wire.max_message_bytes());
    uint32_t data_room = RTE_PKTMBUF_HEADROOM + largest_frame;
    data_room = std::max({data_room, min_data_room(ops_->driver_name(tx_port_)),
                          min_data_room(ops_->driver_name(rx_port_))});
    const uint32_t mbufs = config_.mbufs != 0
                               ? config_.mbufs
                               : dpdk::pool_mbufs_for(tx_queues, config_.tx_descriptors, rx_queues,
                                                      config_.rx_descriptors, rte_lcore_count());
    const int socket = rte_eth_dev_socket_id(tx_port_);
    auto pool = dpdk::shared_pool(mbufs, data_room, socket < 0 ? 0 : socket);
    if (!pool) return std::move(pool).error();
    pool_ = *pool;

    if (transmit_ || same) {
      dpdk::PortQueues txq{tx_port_,
                           tx_queues,
                           static_cast<uint16_t>(same ? workers : tx_port_rx_queues_),
                           config_.tx_descriptors,
                           config_.rx_descriptors,
                           timing_.tx_offloads,
                           same ? timing_.rx_offloads : 0};
      if (auto s = dpdk::configure_port(txq, pool_); !s) return s;
    }
    if (receive_ && !same) {
      dpdk::PortQueues rxq{
          rx_port_,           0, workers, config_.tx_descriptors, config_.rx_descriptors, 0,
          timing_.rx_offloads};
      if (auto s = dpdk::configure_port(rxq, pool_); !s) return s;
    }
    topology_ = topology;
    return {};
  }

  Status apply(const policy::QosPlan& plan) override {
    // The port's QoS against the suite's before anything is sent (an mlx5 port).
    port_state_ = dpdk::open_port_state(
        tx_port_, ops_->driver_name(tx_port_),
        dpdk::NicOptions{config_.nic_qos == "apply" ? nic::QosMode::apply
                         : config_.nic_qos == "off" ? nic::QosMode::off
                                                    : nic::QosMode::check,
                         config_.nic_counters, config_.nic_root, config_.nic_netdev});
    if (port_state_) {
      // The PMD's xstats go through the same checks as the kernel's counters, by name.
      port_state_->add_counter_source([this] { return dpdk::xstats_counter_set(*ops_, tx_port_); });
      std::vector<uint8_t> dscps;
      for (const policy::FlowPlan& flow : plan.flows) dscps.push_back(flow.dscp);
      if (Status s = port_state_->check_qos(plan, dscps, "DPDK port " + dpdk::port_name(tx_port_));
          !s) {
        return s;
      }
    }
    for (const policy::FlowPlan& flow : plan.flows) {
      if (flow.op == policy::RdmaOp::read) {
        return make_error(Errc::invalid_config,
                          fmt::format("dpdk: flow '{}' has op = \"read\": the frames it sends "
                                      "are RDMA WRITE and SEND only (READ runs on --driver sim "
                                      "and --driver verbs)",
                                      flow.name),
                          "flow.op");
      }
    }
    plan_ = plan;
    // A fabric job: every rank's address through the job, each flow's frames to its receiver.
    std::optional<dpdk::FabricAddresses> fabric;
    own_mac_.reset();
    hello_sent_ = false;
    if (topology_.job && topology_.job->fabric) {
      if (!transmit_ || !receive_ || rx_port_ != tx_port_) {
        return make_error(Errc::invalid_config,
                          "dpdk: a rank of a [topology] job sends and receives on one port: "
                          "give tx_port (or none: the first port) and leave rx_port unset",
                          transmit_ ? "driver.dpdk.rx_port" : "driver.dpdk.tx_port");
      }
      auto learned = dpdk::exchange_addresses(*topology_.job, dpdk::port_mac(tx_port_));
      if (!learned) return std::move(learned).error();
      fabric = std::move(*learned);
    }
    dpdk::WorkerSetup setup;
    setup.tx_port = tx_port_;
    setup.receive = receive_;
    setup.rx_port = rx_port_;
    setup.pool = pool_;
    setup.wire = topology_.wire;
    setup.udp_dst_port = config_.udp_dst_port;
    setup.send_queue_depth = std::max(1u, config_.send_queue_depth);
    setup.shaper_plan = config_.software_shaper && transmit_ ? &plan_ : nullptr;
    setup.port_rate_bps = topology_.port_rate_bps;
    setup.job_clock_offset_ns = topology_.job_clock_offset_ns;
    setup.tx_ts_offset = timing_.tx_ts_offset;
    setup.tx_ts_flag = timing_.tx_ts_flag;
    setup.rx_ts_offset = timing_.rx_ts_offset;
    setup.rx_ts_flag = timing_.rx_ts_flag;
    setup.clock_name = timing_.clock;
    // A job's frames carry the receiver's job clock (job_clock_stamps.hpp): say so.
    if (topology_.job_clock_offset_ns) setup.clock_name += " in the job clock";
    const bool roce = topology_.wire.transport == policy::Transport::rocev2;
    if (roce) setup.udp_dst_port = dpdk::kRoceUdpPort;
    setup.templates.reserve(plan.flows.size());
    for (uint32_t f = 0; f < plan.flows.size(); ++f) {
      DpdkFlowMarking mark = config_.marking;
      if (f < config_.flow_marking.size()) {
        mark = config_.flow_marking[f];
      } else {  // the traffic-class plan: DSCP, and PCP = the Ethernet priority
        mark.dscp = static_cast<uint8_t>(plan.flows[f].dscp & 0x3f);
        mark.pcp = static_cast<uint8_t>(plan.flows[f].priority & 0x7);
      }
      dpdk::FrameSpec spec;
      spec.src_mac = config_.src_mac;
      spec.dst_mac = config_.dst_mac;
      spec.vlan = topology_.wire.vlan;
      spec.vlan_id = config_.vlan_id;
      spec.pcp = mark.pcp;
      spec.dscp = mark.dscp;
      spec.ecn = mark.ecn;
      spec.src_ip = config_.src_ip;
      spec.dst_ip = config_.dst_ip;
      spec.src_port = static_cast<uint16_t>(config_.udp_src_base + f % 16384);
      spec.dst_port = config_.udp_dst_port;
      if (fabric) fabric->address(*topology_.job, f, spec);
      if (roce) {
        dpdk::RoceSpec roce_spec;
        roce_spec.frame = spec;
        roce_spec.frame.dst_port = dpdk::kRoceUdpPort;
        roce_spec.write = plan.flows[f].op == policy::RdmaOp::write;
        roce_spec.dest_qp = kFirstDestQp + f;  // one RC QP per flow
        roce_spec.rkey = kFirstDestQp + f;
        setup.roce_templates.emplace_back(roce_spec);
      } else {
        setup.templates.emplace_back(spec);
      }
    }
    if (fabric) {
      setup.rx_accept.assign(plan.flows.size(), 0);
      for (const uint32_t f : topology_.job->received_flows) {
        if (f < setup.rx_accept.size()) setup.rx_accept[f] = 1;
      }
      own_mac_ = fabric->mac_of_rank[topology_.job->rank];
    }
    workers_.clear();
    for (uint32_t w = 0; w < topology_.workers; ++w) {
      dpdk::WorkerSetup one = setup;
      one.index = w;
      one.tx_queue = static_cast<uint16_t>(w);
      one.rx_queue = static_cast<uint16_t>(w);
      workers_.push_back(std::make_unique<DpdkWorker>(std::move(one)));
    }
    receive_only_.clear();
    if (!transmit_) {
      for (auto& worker : workers_)
        receive_only_.push_back(std::make_unique<ReceiveOnlyQueue>(*worker));
    }
    return {};
  }

  Status start() override {
    if (auto s = dpdk::start_port(tx_port_, topology_.stop); !s) return s;
    if (receive_ && rx_port_ != tx_port_) {
      if (auto s = dpdk::start_port(rx_port_, topology_.stop); !s) {
        dpdk::stop_port(tx_port_);
        return s;
      }
    }
    rte_eth_stats_reset(tx_port_);
    if (rx_port_ != tx_port_) rte_eth_stats_reset(rx_port_);
    rte_eth_xstats_reset(tx_port_);
    if (rx_port_ != tx_port_) rte_eth_xstats_reset(rx_port_);
    if (timing_.hw_pacing) {
      auto map = dpdk::map_device_clock(*ops_, tx_port_, [] { return rte_rdtsc(); });
      if (!map) {
        halt_ports();
        return std::move(map).error();
      }
      for (auto& worker : workers_) worker->set_device_clock(*map);
    }
    // A fabric job: one frame to this rank's own address, so that the switch learns where
    // it is before any flow is sent to it (the job starts the flows after every rank started;
    // a switch floods frames to addresses it has not learned). Sent back to its own port, the
    // switch delivers it nowhere.
    if (own_mac_) hello_sent_ = dpdk::send_hello(tx_port_, pool_, *own_mac_);
    if (port_state_) port_state_->counters_before();
    dpdk::pin_main_thread();  // worker 0 runs here, on the main lcore
    for (auto& worker : workers_) worker->start();
    started_ = true;
    return {};
  }

  Queue& queue(uint32_t worker) override {
    if (!transmit_) return *receive_only_.at(worker);
    return *workers_.at(worker);
  }
  Clock& clock(uint32_t worker) override {
    if (!transmit_) return *receive_only_.at(worker);
    return *workers_.at(worker);
  }

  Status stop() override {
    halt();
    // The run is over: judging and writing the results may use any CPU (a signal's exit
    // waited up to 5x longer pinned to a CPU a compiler was busy on).
    dpdk::unpin_main_thread();
    started_ = false;
    return {};
  }

  DriverStats stats() const override {
    DriverStats out;
    if (workers_.empty()) return out;
    dpdk::WorkerStats s;
    for (const auto& worker : workers_) s.add(worker->stats());
    auto add = [&](const char* key, double value) { out.emplace_back(key, value); };
    add("tx_packets", static_cast<double>(s.tx_packets));
    add("tx_frame_bytes", static_cast<double>(s.tx_frame_bytes));
    add("tx_pmd_full", static_cast<double>(s.tx_pmd_full));
    add("mbuf_alloc_failures", static_cast<double>(s.mbuf_alloc_failures));
    add("rx_packets", static_cast<double>(s.rx_packets));
    add("rx_frame_bytes", static_cast<double>(s.rx_frame_bytes));
    add("rx_foreign", static_cast<double>(s.rx_foreign));
    add("rx_seq_gaps", static_cast<double>(s.rx_seq_gaps));
    add("rx_late", static_cast<double>(s.rx_late));
    add("shaper_rejected", static_cast<double>(s.shaper_rejected));
    add("shaper_bypassed", static_cast<double>(s.shaper_bypassed));
    add("rx_hw_timestamps", static_cast<double>(s.rx_hw_timestamps));
    if (topology_.job_clock_offset_ns) {
      add("rx_stamped_after_arrival", static_cast<double>(s.rx_stamped_after_arrival));
    }
    if (own_mac_) {
      // A fabric job's rank: frames of other ranks' flows, and per flow destined here what
      // arrived (warm-up included), so that every flow's receiving rank can be told. (Not
      // ".rx_packets": the job's note on late stamps adds up the ranks' rx_packets.)
      add("rx_stray", static_cast<double>(s.rx_stray));
      add("tx_hello", hello_sent_ ? 1.0 : 0.0);
      for (const uint32_t f : topology_.job->received_flows) {
        uint64_t packets = 0;
        for (const auto& worker : workers_) packets += worker->flow_rx_packets(f);
        out.emplace_back("flow." + plan_.flows[f].name + ".received_packets",
                         static_cast<double>(packets));
      }
    }
    if (topology_.wire.transport == policy::Transport::rocev2) {
      add("roce_truncated_messages", static_cast<double>(s.roce_truncated));
    }
    add("workers", static_cast<double>(workers_.size()));
    add("hw_pacing", timing_.hw_pacing ? 1.0 : 0.0);
    add("transmit", transmit_ ? 1.0 : 0.0);
    add("receive", receive_ ? 1.0 : 0.0);
    add("tsc_hz", workers_.front()->tsc_hz());
    if (port_stats_) {
      add("port_opackets", static_cast<double>(port_stats_->tx.opackets));
      add("port_oerrors", static_cast<double>(port_stats_->tx.oerrors));
      add("port_ipackets", static_cast<double>(port_stats_->rx.ipackets));
      add("port_imissed", static_cast<double>(port_stats_->rx.imissed));
      add("port_rx_nombuf", static_cast<double>(port_stats_->rx.rx_nombuf));
    }
    if (receive_) {
      // Per flow, only where something went wrong (results stay small with many flows).
      for (uint32_t f = 0; f < plan_.flows.size(); ++f) {
        uint64_t gaps = 0;
        uint64_t late = 0;
        for (const auto& worker : workers_) {
          gaps += worker->flow_seq_gaps(f);
          late += worker->flow_late(f);
        }
        const std::string prefix = "flow." + plan_.flows[f].name + ".";
        if (gaps != 0) out.emplace_back(prefix + "rx_seq_gaps", static_cast<double>(gaps));
        if (late != 0) out.emplace_back(prefix + "rx_late", static_cast<double>(late));
      }
    }
    out.insert(out.end(), xstats_.begin(), xstats_.end());
    if (port_state_) {
      port_state_->add_stats(out, transmit_ && !receive_   ? nic::CounterDirection::tx
                                  : receive_ && !transmit_ ? nic::CounterDirection::rx
                                                           : nic::CounterDirection::loopback);
    }
    return out;
  }

  void close() noexcept override {
    if (started_) halt();
    started_ = false;
    // The port's own QoS back (nic_qos = "apply"): said on stderr when it cannot be.
    if (port_state_) {
      if (Status s = port_state_->close(); !s) {
        std::fprintf(stderr, "qosbench: error: dpdk: %s\n", s.error().message.c_str());
      }
      port_state_.reset();
    }
    receive_only_.clear();
    workers_.clear();
  }

 private:
  struct PortStats {
    rte_eth_stats tx{};
    rte_eth_stats rx{};
  };

  // Stops the worker, reads the port counters, frees what the rx queue still holds, stops
  // the ports (they stay configured: a later driver in this process reconfigures them).
  void halt() noexcept {
    for (auto& worker : workers_) worker->stop();
    PortStats ps;
    rte_eth_stats_get(tx_port_, &ps.tx);
    rte_eth_stats_get(rx_port_, &ps.rx);
    port_stats_ = ps;
    if (port_state_) port_state_->counters_after();
    xstats_ = dpdk::xstats_for_results(*ops_, tx_port_, dpdk::port_name(tx_port_));
    if (receive_ && rx_port_ != tx_port_) {
      auto rx = dpdk::xstats_for_results(*ops_, rx_port_, dpdk::port_name(rx_port_));
      xstats_.insert(xstats_.end(), rx.begin(), rx.end());
    }
    halt_ports();
  }

  void halt_ports() noexcept {
    if (receive_) dpdk::drain_rx(rx_port_, static_cast<uint16_t>(topology_.workers));
    if (tx_port_rx_queues_ != 0) dpdk::drain_rx(tx_port_, tx_port_rx_queues_);
    dpdk::stop_port(tx_port_);
    if (receive_ && rx_port_ != tx_port_) dpdk::stop_port(rx_port_);
  }

  DpdkConfig config_;
  bool started_ = false;
  Topology topology_;
  policy::QosPlan plan_;
  uint16_t tx_port_ = 0;
  uint16_t rx_port_ = 0;
  bool transmit_ = true;
  bool receive_ = false;
  uint16_t tx_port_rx_queues_ = 0;  // Rx queues a Tx-only port needs (net_af_xdp)
  rte_mempool* pool_ = nullptr;
  std::vector<std::unique_ptr<DpdkWorker>> workers_;
  std::vector<std::unique_ptr<ReceiveOnlyQueue>> receive_only_;
  std::optional<PortStats> port_stats_;
  std::unique_ptr<dpdk::DeviceOps> ops_;
  dpdk::TimingPlan timing_;
  DriverStats xstats_;
  std::optional<std::array<uint8_t, 6>> own_mac_;  // a fabric job's rank: its port's address
  bool hello_sent_ = false;
  std::unique_ptr<nic::PortState> port_state_;  // an mlx5 port's QoS and counters
};

}  // namespace

uint32_t dpdk_worker_count(const DpdkConfig& config) {
  if (config.software_shaper) return 1;  // the tree has one arbiter
  return std::min<uint32_t>(dpdk::eal_lcore_count(config.eal_args), RTE_MAX_LCORE);
}

std::unique_ptr<Driver> make_dpdk_driver(DpdkConfig config) {
  return std::make_unique<Driver>(
      "dpdk", std::make_unique<DpdkDriver>(std::move(config), dpdk::make_device_ops()));
}

namespace dpdk {

std::unique_ptr<Driver> make_dpdk_driver_with_ops(DpdkConfig config,
                                                  std::unique_ptr<DeviceOps> ops) {
  return std::make_unique<Driver>("dpdk",
                                  std::make_unique<DpdkDriver>(std::move(config), std::move(ops)));
}

}  // namespace dpdk

namespace {

struct DpdkOptions final : DriverOptions {
  DpdkConfig config;
};

std::unique_ptr<const DriverOptions> parse_dpdk_options(const ConfigTable& table) {
  auto options = std::make_unique<DpdkOptions>();
  options->config = parse_dpdk_config(table);
  return options;
}

}  // namespace

DpdkConfig parse_dpdk_config(const ConfigTable& table) {
  table.allow_only({"eal", "tx_port", "rx_port", "software_shaper", "hw_pacing", "nic_qos",
                    "nic_counters", "nic_root", "nic_netdev", "netns"});
  DpdkConfig config;
  config.eal_args = table.string_list("eal").value_or(std::vector<std::string>{});
  config.tx_port = table.string("tx_port").value_or("");
  config.rx_port = table.string("rx_port").value_or("");
  config.software_shaper = table.boolean("software_shaper").value_or(config.software_shaper);
  config.hw_pacing = table.boolean("hw_pacing").value_or(config.hw_pacing);
  config.nic_qos = table.string("nic_qos").value_or(config.nic_qos);
  if (config.nic_qos != "check" && config.nic_qos != "apply" && config.nic_qos != "off") {
    table.fail_at("nic_qos",
                  "must be \"check\" (the port's QoS must be the suite's), \"apply\" "
                  "(programmed for the run, put back after) or \"off\"");
  }
  config.nic_counters = table.boolean("nic_counters").value_or(true);
  config.netns = table.string("netns").value_or("");
  config.nic_root = table.string("nic_root").value_or("");
  config.nic_netdev = table.string("nic_netdev").value_or("");
  if (config.nic_root.empty() != config.nic_netdev.empty()) {
    table.fail_at(config.nic_root.empty() ? "nic_netdev" : "nic_root",
                  "nic_root (a recorded machine) and nic_netdev (its netdev) go together");
  }
  return config;
}

DriverEntry dpdk_driver_entry() {
  DriverEntry entry;
  entry.available = true;
  entry.release_process = dpdk::release_eal;
  entry.aliases = {OptionAlias{"--eal", "eal",
                               "DPDK EAL arguments, e.g. \"--no-huge -m 512 --no-pci -l 0 --vdev "
                               "net_ring0\" (replaces [driver.dpdk] eal)",
                               true}};
  // One EAL per process, so every option set shares its arguments: a net_ring loopback port, and
  // a send-only net_null port (net_null's Rx would deliver frames forever).
  const std::string eal =
      R"(eal = ["--no-huge", "-m", "512", "--no-pci", "-l", "0", "--vdev", "net_ring0", "--vdev", "net_null0"])";
  entry.contract_options = {eal + "\ntx_port = \"net_ring0\"",
                            eal + "\ntx_port = \"net_null0\"\nrx_port = \"none\""};
  entry.parse_options = parse_dpdk_options;
  entry.create = [](const DriverOptions& options) -> Result<std::unique_ptr<DriverBackend>> {
    return std::unique_ptr<DriverBackend>(std::make_unique<DpdkDriver>(
        static_cast<const DpdkOptions&>(options).config, dpdk::make_device_ops()));
  };
  return entry;
}

}  // namespace qb::drv
