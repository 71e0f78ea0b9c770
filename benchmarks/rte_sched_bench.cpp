// Our TreeScheduler side by side with DPDK's hierarchical scheduler (rte_sched, DPDK 22.11) on
// the same closed-loop enqueue/dequeue workload: 256 leaves in 16 groups, every leaf keeps
// kPerQueue packets of 4194 wire bytes queued, and each iteration dequeues a burst of 32 and
// enqueues the same 32 mbufs back on their queues (so the number of backlogged leaves never
// changes). Both sides hold real rte_mbufs in per-queue FIFOs; the reported ns_per_pkt is CPU
// time / packets dequeued (printed as seconds per packet, e.g. "39.5ns"). benchmarks/sched_vs_rte_sched.sh runs both in alternating rounds.
//
// The mapping onto rte_sched (port -> subport -> pipe -> traffic class -> queue):
//   port      the link: 100 Gbit/s (12.5e9 bytes/s), frame_overhead 0 (our wire bytes already
//             include the Ethernet overhead), mtu 4194.
//   subport   one per group (16). A capped group's cap is the subport token bucket rate (and its
//             TC rates); an uncapped group gets the port rate.
//   pipe      one per leaf (16 per subport, 256 in all). A capped leaf's cap is the pipe token
//             bucket rate; an uncapped leaf gets the port rate.
//   TC/queue  every leaf's packets go to the best-effort TC (12), queue 0 of its 4 WRR queues.
// What rte_sched cannot express of the mlx5 semantics (so this is the closest equivalent, not
// the same scheduler):
//   - weights between siblings: rte_sched serves the pipes of a subport round robin (grinders
//     over the active-queue bitmap) and the subports of a port in turn, a whole dequeue burst at
//     a time; weighted sharing exists only among the 4 best-effort queues of one pipe (WRR) or
//     as fixed token-bucket rates, which are not work conserving (a leaf's unused share is not
//     redistributed by weight). mlx5's bw_share is work-conserving DWRR at every level.
//   - caps are token buckets in both, but rte_sched's are credited per "period" in port bytes,
//     with an extra per-TC period budget; ours are bit buckets in ticks with a fixed depth.
//   - a tree deeper than port/subport/pipe, or groups with both weight and cap, map only
//     partially; 13 TCs with strict priority have no mlx5 counterpart here (mlx5 tsar DWRR).
// Saturation: rte_sched's clock is port->time in bytes, advanced by every packet it sends and
// resynchronised to the TSC (rte_get_tsc_cycles) only when the TSC is ahead. A 32-packet burst
// of 4194 B is 10.7 us of link time, far more than the CPU time it takes, so port->time runs
// ahead of the TSC and the shaper never waits for real time: both sides run in virtual time
// (ours: now += 335,520 ps per packet) and measure the decision cost only. With capped=1 the
// same caps as scheduler_bench's BM_Decision/groups:16/capped:1 bind (every fourth leaf at
// 100 Mbit/s, every even group at 2 Gbit/s), but the uncapped groups always have work, so
// neither side ever idles (idle_picks / idle_bursts count it if it did).
#include <benchmark/benchmark.h>
#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_sched.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "qb/policies/tree_scheduler.hpp"

namespace {

using qb::policy::SchedTree;
using qb::policy::TreeScheduler;

constexpr uint32_t kGroups = 16;
constexpr uint32_t kLeavesPerGroup = 16;
constexpr uint32_t kLeaves = kGroups * kLeavesPerGroup;
constexpr uint32_t kBurst = 32;
constexpr uint32_t kPerQueue = 8;       // packets kept queued per leaf
constexpr uint16_t kQueueSize = 16;     // rte_sched qsize (power of 2, >= kPerQueue)
constexpr uint32_t kWireBytes = 4194;   // one MTU-4096 RoCE packet on the wire
constexpr double kPortBps = 100e9;
constexpr int64_t kPacketPs = 335'520;  // kWireBytes at 100 Gbit/s, in ps
constexpr double kLeafCapBps = 1e8;     // every fourth leaf (capped runs)
constexpr double kGroupCapBps = 2e9;    // every even group (capped runs)

rte_mempool* g_pool = nullptr;

bool leaf_capped(uint32_t leaf) { return leaf % 4 == 0; }
bool group_capped(uint32_t group) { return group % 2 == 0; }

std::vector<rte_mbuf*> take_mbufs(size_t n) {
  std::vector<rte_mbuf*> mbufs(n);
  if (rte_pktmbuf_alloc_bulk(g_pool, mbufs.data(), static_cast<unsigned>(n)) != 0) {
    std::fprintf(stderr, "rte_sched_bench: mempool exhausted\n");
    std::abort();
  }
  for (rte_mbuf* m : mbufs) m->pkt_len = kWireBytes;
  return mbufs;
}

void give_back(std::vector<rte_mbuf*>& mbufs) {
  rte_pktmbuf_free_bulk(mbufs.data(), static_cast<unsigned>(mbufs.size()));
  mbufs.clear();
}

// ---- ours: the tree of scheduler_bench's BM_Decision(16 groups), queues of mbufs ----------

SchedTree make_tree(bool capped, std::vector<uint32_t>& queue_leaf) {
  SchedTree tree = SchedTree::with_root();
  for (uint32_t i = 0; i < kLeaves; ++i) {
    if (i % kLeavesPerGroup == 0) {
      const uint32_t g = i / kLeavesPerGroup;
      tree.add_child(0, "n" + std::to_string(g), false, 1 + g % 4,
                     capped && group_capped(g) ? kGroupCapBps : 0.0);
    }
    const uint32_t parent =
        static_cast<uint32_t>(tree.elements.size()) - 1 - (i % kLeavesPerGroup);
    queue_leaf.push_back(tree.add_child(parent, "l" + std::to_string(i), true, 1 + i % 7,
                                        capped && leaf_capped(i) ? kLeafCapBps : 0.0));
  }
  return tree;
}

struct Fifo {
  std::array<rte_mbuf*, kQueueSize> slots{};
  uint32_t head = 0;
  uint32_t count = 0;
  void push(rte_mbuf* m) { slots[(head + count++) % kQueueSize] = m; }
  rte_mbuf* pop() {
    rte_mbuf* m = slots[head];
    head = (head + 1) % kQueueSize;
    --count;
    return m;
  }
};

void BM_TreeScheduler(benchmark::State& state) {
  const bool capped = state.range(0) != 0;
  std::vector<uint32_t> queue_leaf;
  const SchedTree tree = make_tree(capped, queue_leaf);
  TreeScheduler::Config config;
  config.quantum_bytes = kWireBytes;
  TreeScheduler scheduler(tree, queue_leaf, config);
  std::vector<Fifo> fifos(kLeaves);
  std::vector<rte_mbuf*> mbufs = take_mbufs(size_t{kLeaves} * kPerQueue);
  int64_t now = 0;
  for (uint32_t q = 0; q < kLeaves; ++q) {
    for (uint32_t k = 0; k < kPerQueue; ++k) {
      rte_mbuf* m = mbufs[q * kPerQueue + k];
      m->hash.usr = q;  // the queue, where rte_sched keeps its path (hash.sched)
      fifos[q].push(m);
    }
    scheduler.on_backlogged(q, now);
  }
  std::array<rte_mbuf*, kBurst> burst{};
  uint64_t packets = 0, idle = 0;
  for (auto _ : state) {
    // Dequeue a burst: pick, pop the head packet, charge it.
    uint32_t n = 0;
    for (; n < kBurst; ++n) {
      const uint32_t q = scheduler.pick(now);
      if (q == TreeScheduler::kNone) {
        ++idle;
        now = scheduler.next_eligible();
        break;
      }
      rte_mbuf* m = fifos[q].pop();
      burst[n] = m;
      scheduler.on_sent(q, m->pkt_len, fifos[q].count != 0, now);
      now += kPacketPs;
    }
    // Enqueue the same packets back (an empty queue becomes backlogged).
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t q = burst[i]->hash.usr;
      fifos[q].push(burst[i]);
      if (fifos[q].count == 1) scheduler.on_backlogged(q, now);
    }
    packets += n;
    benchmark::DoNotOptimize(burst.data());
  }
  give_back(mbufs);
  state.counters["idle_picks"] = static_cast<double>(idle);
  state.counters["mbufs_not_freed"] = static_cast<double>(rte_mempool_in_use_count(g_pool));
  state.counters["ns_per_pkt"] = benchmark::Counter(
      static_cast<double>(packets), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.SetItemsProcessed(static_cast<int64_t>(packets));
}

// ---- rte_sched: the closest configuration (see the mapping at the top) --------------------

constexpr uint64_t kPortBytesPerS = static_cast<uint64_t>(kPortBps / 8);

rte_sched_pipe_params pipe_profile(uint64_t rate_bytes_per_s) {
  rte_sched_pipe_params p{};
  p.tb_rate = rate_bytes_per_s;
  // Depth as ours: 20 us of the rate, at least two packets.
  p.tb_size = std::max<uint64_t>(2 * kWireBytes, rate_bytes_per_s / 50'000);
  p.tc_rate[RTE_SCHED_TRAFFIC_CLASS_BE] = rate_bytes_per_s;  // the other TCs: no queues
  p.tc_period = 10;  // ms (DPDK's examples' value)
  p.tc_ov_weight = 1;
  for (auto& w : p.wrr_weights) w = 1;
  return p;
}

rte_sched_subport_profile_params subport_profile(uint64_t rate_bytes_per_s) {
  rte_sched_subport_profile_params p{};
  p.tb_rate = rate_bytes_per_s;
  p.tb_size = std::max<uint64_t>(2 * kWireBytes, rate_bytes_per_s / 50'000);
  for (auto& r : p.tc_rate) r = rate_bytes_per_s;
  p.tc_period = 10;
  return p;
}

rte_sched_port* make_port(bool capped) {
  // Profile 0: uncapped (the port rate); 1: capped.
  static std::array<rte_sched_subport_profile_params, 2> subport_profiles;
  subport_profiles[0] = subport_profile(kPortBytesPerS);
  subport_profiles[1] = subport_profile(static_cast<uint64_t>(kGroupCapBps / 8));
  static std::array<rte_sched_pipe_params, 2> pipe_profiles;
  pipe_profiles[0] = pipe_profile(kPortBytesPerS);
  pipe_profiles[1] = pipe_profile(static_cast<uint64_t>(kLeafCapBps / 8));

  rte_sched_port_params port_params{};
  port_params.name = capped ? "qb_sched_capped" : "qb_sched";
  port_params.socket = 0;
  port_params.rate = kPortBytesPerS;
  port_params.mtu = kWireBytes;
  port_params.frame_overhead = 0;
  port_params.n_subports_per_port = kGroups;
  port_params.subport_profiles = subport_profiles.data();
  port_params.n_subport_profiles = 2;
  port_params.n_max_subport_profiles = 2;
  port_params.n_pipes_per_subport = kLeavesPerGroup;
  rte_sched_port* port = rte_sched_port_config(&port_params);
  if (port == nullptr) return nullptr;

  rte_sched_subport_params subport{};
  subport.n_pipes_per_subport_enabled = kLeavesPerGroup;
  subport.qsize[RTE_SCHED_TRAFFIC_CLASS_BE] = kQueueSize;
  subport.pipe_profiles = pipe_profiles.data();
  subport.n_pipe_profiles = 2;
  subport.n_max_pipe_profiles = 2;
  subport.cman_params = nullptr;
  for (uint32_t g = 0; g < kGroups; ++g) {
    const uint32_t sp = capped && group_capped(g) ? 1 : 0;
    if (rte_sched_subport_config(port, g, &subport, sp) != 0) return nullptr;
    for (uint32_t p = 0; p < kLeavesPerGroup; ++p) {
      const int32_t pp = capped && leaf_capped(g * kLeavesPerGroup + p) ? 1 : 0;
      if (rte_sched_pipe_config(port, g, p, pp) != 0) return nullptr;
    }
  }
  return port;
}

void BM_RteSched(benchmark::State& state) {
  const bool capped = state.range(0) != 0;
  rte_sched_port* port = make_port(capped);
  if (port == nullptr) {
    state.SkipWithError("rte_sched configuration failed");
    return;  // (a partly configured port is left allocated: this run is over anyway)
  }
  std::vector<rte_mbuf*> mbufs = take_mbufs(size_t{kLeaves} * kPerQueue);
  for (uint32_t leaf = 0; leaf < kLeaves; ++leaf) {
    for (uint32_t k = 0; k < kPerQueue; ++k) {
      rte_sched_port_pkt_write(port, mbufs[leaf * kPerQueue + k], leaf / kLeavesPerGroup,
                               leaf % kLeavesPerGroup, RTE_SCHED_TRAFFIC_CLASS_BE, 0,
                               RTE_COLOR_GREEN);
    }
  }
  // Enqueued in leaf order, kPerQueue at a time per leaf.
  if (rte_sched_port_enqueue(port, mbufs.data(), static_cast<uint32_t>(mbufs.size())) !=
      static_cast<int>(mbufs.size())) {
    state.SkipWithError("rte_sched dropped packets on the initial enqueue");
    rte_sched_port_free(port);  // frees what it still holds; the dropped ones it freed itself
    return;
  }
  std::array<rte_mbuf*, kBurst> burst{};
  uint64_t packets = 0, idle = 0;
  for (auto _ : state) {
    const int n = rte_sched_port_dequeue(port, burst.data(), kBurst);
    if (n == 0) {
      ++idle;
      continue;
    }
    // The same packets back on their queues (the path stays in mbuf->hash.sched).
    rte_sched_port_enqueue(port, burst.data(), static_cast<uint32_t>(n));
    packets += static_cast<uint64_t>(n);
  }
  // Free what the shaper still gives, then the port, which frees what is left in its queues
  // (credit-blocked pipes: port->time is far ahead of the TSC by now). Not give_back(): an
  // mbuf freed twice would come back twice from the pool in the next repetition.
  for (int n; (n = rte_sched_port_dequeue(port, burst.data(), kBurst)) > 0;) {
    rte_pktmbuf_free_bulk(burst.data(), static_cast<unsigned>(n));
  }
  rte_sched_port_free(port);
  state.counters["idle_bursts"] = static_cast<double>(idle);
  state.counters["mbufs_not_freed"] = static_cast<double>(rte_mempool_in_use_count(g_pool));
  state.counters["ns_per_pkt"] = benchmark::Counter(
      static_cast<double>(packets), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.SetItemsProcessed(static_cast<int64_t>(packets));
}

}  // namespace

// Args: {capped}
BENCHMARK(BM_TreeScheduler)->ArgName("capped")->Arg(0)->Arg(1);
BENCHMARK(BM_RteSched)->ArgName("capped")->Arg(0)->Arg(1);

// The EAL (for the mempool; rte_sched itself needs no device): no hugepages, no PCI, 256 MB,
// on the first CPU this process may run on (taskset -c N gives lcore N), nothing left in
// /var/run/dpdk.
int main(int argc, char** argv) {
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  int core = 0;
  if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &cpus)) {
        core = c;
        break;
      }
    }
  }
  std::vector<std::string> eal_args = {argv[0],  "--no-huge", "--no-pci", "-m",
                                       "256",    "-l",        std::to_string(core),
                                       "--no-shconf", "--no-telemetry", "--log-level=4",
                                       "--file-prefix=qb_rte_sched_bench_" + std::to_string(getpid())};
  std::vector<char*> eal_argv;
  for (auto& a : eal_args) eal_argv.push_back(a.data());
  if (rte_eal_init(static_cast<int>(eal_argv.size()), eal_argv.data()) < 0) {
    std::fprintf(stderr, "rte_sched_bench: rte_eal_init failed\n");
    return 1;
  }
  g_pool = rte_pktmbuf_pool_create("qb_sched_bench", 8191, 256, 0, RTE_MBUF_DEFAULT_DATAROOM,
                                   static_cast<int>(rte_socket_id()));
  if (g_pool == nullptr) {
    std::fprintf(stderr, "rte_sched_bench: mempool creation failed\n");
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  rte_mempool_free(g_pool);
  const std::string runtime_dir = rte_eal_get_runtime_dir();
  rte_eal_cleanup();
  std::error_code ignored;
  std::filesystem::remove_all(runtime_dir, ignored);
  return 0;
}
