// The verbs driver's overhead per message: `qosbench run`'s own path (engine worker loop:
// generators, post, poll, counters, latency histograms; the driver: work requests, completions,
// rings) against a device that completes every work request at once, so the figure is the
// software's cost. Target: <= 50 ns per message per worker (perftest's software post_send loop
// tops out near 10 M messages/s, ~100 ns each).
//
//   build/benchmarks/verbs/verbs_overhead_bench
//
// Two devices behind the seam: InstantDevice (below: the fake's control path, and a fast path
// that only moves completions, as a NIC's would cost the host nothing), and the fake ConnectX
// itself with fake_timing = "instant" (its rule checks and bookkeeping included).
// ns_per_message = workers x measured seconds / messages completed; messages_per_s is the sum
// over workers. On a 2-core machine the 2-worker figure only means something when nothing else
// runs.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "fake_mlx5.hpp"
#include "qb/drivers/registry.hpp"
#include "qb/engine/run.hpp"
#include "qb/suite/compile.hpp"
#include "qb/suite/suite_loader.hpp"
#include "verbs_driver.hpp"

namespace {

using namespace qb::drv::verbs;

// A circular FIFO of completions: a store per push, a load per pop. Inline, and filled field by
// field: a call per push that copied a WorkCompletion built on the stack (narrow stores, then a
// 16-byte load that cannot be forwarded from them) cost more than the driver's own work per
// message. 256 entries (8 KiB) hold a worker's in-flight messages in the benchmark (8 QPs x 16)
// and stay in L1; it doubles when full.
struct Fifo {
  std::vector<WorkCompletion> items = std::vector<WorkCompletion>(256);
  uint64_t mask = 255;
  uint64_t head = 0;
  uint64_t tail = 0;
  void push_back(uint64_t wr_id, ibv_wc_opcode opcode, uint32_t byte_len) {
    if (tail - head > mask) [[unlikely]]
      grow();
    WorkCompletion& wc = items[tail++ & mask];
    wc.wr_id = wr_id;
    wc.status = IBV_WC_SUCCESS;
    wc.opcode = opcode;
    wc.byte_len = byte_len;
    wc.timestamp = 0;
  }
  /// Moves up to out.size() completions to `out`; returns how many.
  size_t pop_into(std::span<WorkCompletion> out) {
    const size_t n = std::min<uint64_t>(out.size(), tail - head);
    for (size_t i = 0; i < n; ++i) out[i] = items[(head + i) & mask];
    head += n;
    return n;
  }
  void grow() {
    std::vector<WorkCompletion> bigger(items.size() * 2);
    for (uint64_t i = head; i < tail; ++i) bigger[i - head] = items[i & mask];
    tail -= head;
    head = 0;
    items = std::move(bigger);
    mask = items.size() - 1;
  }
};

// The fake's control path (objects, QP states, the tree), and a fast path that delivers at once
// with nothing but queues: what the driver costs when the device costs nothing.
class InstantDevice final : public VerbsOps {
 public:
  explicit InstantDevice(FakeDeviceConfig config) : fake_(std::move(config)) {}
  std::vector<std::string> device_names() override { return fake_.device_names(); }
  ibv_context* open_device(std::string_view n) override { return fake_.open_device(n); }
  int close_device(ibv_context* c) override { return fake_.close_device(c); }
  int query_device(ibv_context* c, ibv_device_attr_ex* a) override {
    return fake_.query_device(c, a);
  }
  int query_port(ibv_context* c, uint8_t p, ibv_port_attr* a) override {
    return fake_.query_port(c, p, a);
  }
  int query_gid(ibv_context* c, uint8_t p, int i, ibv_gid* g) override {
    return fake_.query_gid(c, p, i, g);
  }
  int get_clock_info(ibv_context*, mlx5dv_clock_info*) override { return EOPNOTSUPP; }
  int query_gid_ex(ibv_context* c, uint32_t p, uint32_t i, ibv_gid_entry* e) override {
    return fake_.query_gid_ex(c, p, i, e);
  }
  int query_mlx5_device(ibv_context*, mlx5dv_context*) override { return EOPNOTSUPP; }
  int read_device_clock(ibv_context*, uint64_t*) override { return EOPNOTSUPP; }
  ibv_pd* alloc_pd(ibv_context* c) override { return fake_.alloc_pd(c); }
  int dealloc_pd(ibv_pd* p) override { return fake_.dealloc_pd(p); }
  ibv_mr* reg_mr(ibv_pd* p, void* a, size_t l, int x) override { return fake_.reg_mr(p, a, l, x); }
  int dereg_mr(ibv_mr* m) override { return fake_.dereg_mr(m); }
  ibv_cq_ex* create_cq(ibv_context* c, ibv_cq_init_attr_ex* a) override {
    ibv_cq_ex* cq = fake_.create_cq(c, a);
    if (cq != nullptr) queues_[ibv_cq_ex_to_cq(cq)];
    return cq;
  }
  int destroy_cq(ibv_cq_ex* c) override {
    queues_.erase(ibv_cq_ex_to_cq(c));
    return fake_.destroy_cq(c);
  }
  ibv_qp* create_qp(ibv_pd* p, ibv_qp_init_attr* a) override { return fake_.create_qp(p, a); }
  // Every map is filled on the control path: the workers' fast paths only read them (and
  // each touches only its own CQs' queues).
  int modify_qp(ibv_qp* q, ibv_qp_attr* a, int m) override {
    const int rc = fake_.modify_qp(q, a, m);
    by_num_[q->qp_num] = q;
    if (rc == 0 && (m & IBV_QP_DEST_QPN) != 0) {
      ibv_qp* dest = by_num_.at(a->dest_qp_num);
      paths_[q] = Path{&queues_.at(q->send_cq), &queues_.at(dest->recv_cq), dest};
    }
    return rc;
  }
  int modify_qp_rate_limit(ibv_qp* q, ibv_qp_rate_limit_attr* a) override {
    return fake_.modify_qp_rate_limit(q, a);
  }
  int destroy_qp(ibv_qp* q) override {
    paths_.erase(q);
    recv_id_.erase(q);
    by_num_.erase(q->qp_num);
    return fake_.destroy_qp(q);
  }
  mlx5dv_sched_node* sched_node_create(ibv_context* c, const mlx5dv_sched_attr* a) override {
    return fake_.sched_node_create(c, a);
  }
  mlx5dv_sched_leaf* sched_leaf_create(ibv_context* c, const mlx5dv_sched_attr* a) override {
    return fake_.sched_leaf_create(c, a);
  }
  int sched_node_destroy(mlx5dv_sched_node* n) override { return fake_.sched_node_destroy(n); }
  int sched_leaf_destroy(mlx5dv_sched_leaf* l) override { return fake_.sched_leaf_destroy(l); }
  int modify_qp_sched_elem(ibv_qp* q, const mlx5dv_sched_leaf* r,
                           const mlx5dv_sched_leaf* s) override {
    return fake_.modify_qp_sched_elem(q, r, s);
  }

  int post_send(ibv_qp* qp, ibv_send_wr* wr, ibv_send_wr** bad) noexcept override {
    const Path& path = paths_.find(qp)->second;
    const uint64_t recv_id = recv_id_.find(path.dest)->second;
    for (; wr != nullptr; wr = wr->next) {
      const uint32_t bytes = wr->sg_list[0].length;
      if (wr->opcode != IBV_WR_RDMA_WRITE) path.received->push_back(recv_id, IBV_WC_RECV, bytes);
      path.sent->push_back(wr->wr_id, IBV_WC_SEND, bytes);
    }
    *bad = nullptr;
    return 0;
  }
  // Receives are not counted: every message finds one (the driver keeps a ring's worth
  // posted). Their wr_id (the flow's slot) is what a receive completion carries.
  int post_recv(ibv_qp* qp, ibv_recv_wr* wr, ibv_recv_wr** bad) noexcept override {
    if (!recv_id_.contains(qp)) recv_id_[qp] = wr->wr_id;
    *bad = nullptr;
    return 0;
  }
  int poll_cq(ibv_cq_ex* cq, std::span<WorkCompletion> out, bool) noexcept override {
    return static_cast<int>(queues_.find(ibv_cq_ex_to_cq(cq))->second.pop_into(out));
  }
  std::string_view provider_name() const noexcept override { return "instant"; }

 private:
  FakeMlx5 fake_;
  std::unordered_map<uint32_t, ibv_qp*> by_num_;
  struct Path {
    Fifo* sent = nullptr;
    Fifo* received = nullptr;
    ibv_qp* dest = nullptr;
  };
  std::unordered_map<ibv_qp*, Path> paths_;
  std::unordered_map<ibv_cq*, Fifo> queues_;
  std::unordered_map<ibv_qp*, uint64_t> recv_id_;
};

// One repetition of `config` per iteration on `driver`; the figures over the time measured.
void run_verbs_benchmark(benchmark::State& state, const std::string& config,
                         const qb::drv::DriverFactory& driver, uint32_t workers) {
  auto suite = qb::suite::load_suite_file(std::string(QB_SOURCE_DIR) + "/configs/" + config);
  if (!suite) {
    state.SkipWithError(suite.error().to_string().c_str());
    return;
  }
  qb::engine::RunOptions options;
  options.jobs = 1;
  options.repetitions = 1;
  options.workers = workers;
  options.duration_ns = 200'000'000;
  double messages = 0;
  double measured_s = 0;
  for (auto _ : state) {
    // What `qosbench run` does per suite: compile, then run.
    std::vector<qb::Warning> warnings;
    auto compiled = qb::suite::compile_suite(*suite, warnings);
    if (!compiled) {
      state.SkipWithError(compiled.error().to_string().c_str());
      return;
    }
    auto run = qb::engine::run_suite(*suite, std::move(*compiled), driver, options);
    if (!run) {
      state.SkipWithError(run.error().to_string().c_str());
      return;
    }
    for (const auto& scenario : run->scenarios) {
      for (const auto& rep : scenario.reps) {
        for (const auto& [name, value] : rep.driver_stats) {
          if (name == "send_completions") messages += value;
        }
        // Warmup included: the driver works then too.
        measured_s += static_cast<double>(scenario.warmup_ns + rep.measured_ns) / 1e9;
      }
    }
  }
  // The total too: callgrind's instructions of a run divided by it give instructions per
  // message, a figure this shared machine's noise does not move.
  state.counters["messages"] = messages;
  state.counters["messages_per_s"] = messages / measured_s;
  state.counters["ns_per_message_per_worker"] = measured_s * 1e9 * workers / messages;
}

struct NoOptions final : qb::drv::DriverOptions {};

void BM_VerbsInstantDevice(benchmark::State& state) {
  const auto workers = static_cast<uint32_t>(state.range(0));
  static qb::drv::DriverEntry entry;
  static uint32_t entry_workers = 1;
  static std::unique_ptr<InstantDevice> device;
  entry.name = "verbs";
  entry.available = true;
  entry_workers = workers;
  entry.create =
      [](const qb::drv::DriverOptions&) -> qb::Result<std::unique_ptr<qb::drv::DriverBackend>> {
    // A fresh device per repetition, for the suite's port (100 Gbit/s RoCE).
    device = std::make_unique<InstantDevice>(
        fake_device_for_port(100e9, qb::policy::WireModel{qb::policy::Transport::rocev2, 4096}, 0));
    VerbsConfig config;
    config.workers = entry_workers;
    return make_verbs_backend(config, device.get());
  };
  qb::drv::DriverFactory factory(entry, std::make_shared<NoOptions>());
  run_verbs_benchmark(state, "mlx5_two_groups.toml", factory, workers);
}
BENCHMARK(BM_VerbsInstantDevice)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);

void BM_VerbsFakeInstant(benchmark::State& state) {
  const auto workers = static_cast<uint32_t>(state.range(0));
  auto driver =
      qb::drv::configure_driver("verbs", qb::ConfigTable("driver.verbs"),
                                {qb::ConfigOverride{"provider", "fake", "bench"},
                                 qb::ConfigOverride{"fake_timing", "instant", "bench"},
                                 qb::ConfigOverride{"workers", std::to_string(workers), "bench"}});
  if (!driver) {
    state.SkipWithError(driver.error().to_string().c_str());
    return;
  }
  run_verbs_benchmark(state, "mlx5_two_groups.toml", *driver, workers);
}
BENCHMARK(BM_VerbsFakeInstant)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);

}  // namespace
