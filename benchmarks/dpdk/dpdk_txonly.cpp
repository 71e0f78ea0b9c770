// Throughput of qosbench on DPDK: the engine's FlowWorkers (per-flow generators and pacing,
// sequence numbers, timestamps in every frame) driving the DPDK driver directly, as
// engine/src/run.cpp does, without the judge (so Tx-only ports such as net_null work).
//   qb_dpdk_txonly [--seconds S] [--flows N] [--bytes B] [--flow-pps R] [--workers W]
//                  [--shaper] [--rx] [--tx-port P] [--rx-port P] [-- EAL args...]
// --flow-pps 0 (default): saturating flows (256 outstanding each); R > 0: every flow CBR at
// R frames/s (the pacing path; set R above what a core can send to measure its ceiling).
// --rx: receive on the Tx port (net_ring loopback) or on --rx-port; the receiver's packets
// are printed too. Prints "qosbench_mpps <Tx Mpps>" on the last line.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "flow_worker.hpp"
#include "dpdk_driver.hpp"
#include "qb/suite/compile.hpp"
#include "qb/suite/suite_loader.hpp"

namespace {

struct Options {
  double seconds = 2.0;
  int flows = 4;
  int bytes = 64;
  double flow_pps = 0.0;
  unsigned workers = 1;
  bool shaper = false;
  bool rx = false;
  std::string tx_port;
  std::string rx_port;
  std::vector<std::string> eal;
};

int usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--seconds S] [--flows N] [--bytes B] [--flow-pps R] [--workers W] "
               "[--shaper] [--rx] [--tx-port P] [--rx-port P] [-- EAL args...]\n",
               argv0);
  return 2;
}

double stat(const qb::drv::DriverStats& stats, const char* key) {
  for (const auto& [name, value] : stats) {
    if (name == key) return value;
  }
  return 0.0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (arg == "--") {
      for (++i; i < argc; ++i) o.eal.emplace_back(argv[i]);
    } else if (arg == "--shaper") {
      o.shaper = true;
    } else if (arg == "--rx") {
      o.rx = true;
    } else if ((v = value()) == nullptr) {
      return usage(argv[0]);
    } else if (arg == "--seconds") {
      o.seconds = std::atof(v);
    } else if (arg == "--flows") {
      o.flows = std::atoi(v);
    } else if (arg == "--bytes") {
      o.bytes = std::atoi(v);
    } else if (arg == "--flow-pps") {
      o.flow_pps = std::atof(v);
    } else if (arg == "--workers") {
      o.workers = static_cast<unsigned>(std::atoi(v));
    } else if (arg == "--tx-port") {
      o.tx_port = v;
    } else if (arg == "--rx-port") {
      o.rx_port = v;
    } else {
      return usage(argv[0]);
    }
  }
  if (o.seconds <= 0 || o.flows <= 0 || o.bytes < 64 || o.workers == 0) return usage(argv[0]);

  qb::drv::DpdkConfig config;
  config.eal_args = o.eal;
  if (config.eal_args.empty()) {
    config.eal_args = {"--no-huge", "-m", "512", "--no-pci", "-l", "0", "--vdev", "net_null0"};
  }
  config.tx_port = o.tx_port;
  config.rx_port = o.rx ? o.rx_port : "none";
  config.software_shaper = o.shaper;

  const std::string rate = o.flow_pps > 0 ? "\"" + std::to_string(o.flow_pps) + "pps\""
                                          : "\"saturate\"\noutstanding = 256";
  const std::string suite_text =
      "[suite]\nname = \"txonly\"\nwarmup = \"0s\"\nduration = \"" +
      std::to_string(static_cast<int64_t>(o.seconds * 1000)) +
      "ms\"\nbin = \"100ms\"\n[port]\nrate = \"100Gbps\"\ntransport = \"eth\"\nmtu = 1500\n"
      "[[flow]]\nname = \"f\"\ncount = " +
      std::to_string(o.flows) + "\nsize = " + std::to_string(o.bytes) + "\nrate = " + rate + "\n";
  auto suite = qb::suite::load_suite_string(suite_text, "txonly.toml");
  if (!suite) {
    std::fprintf(stderr, "%s\n", suite.error().to_string().c_str());
    return 2;
  }
  std::vector<qb::Warning> warnings;
  auto compiled = qb::suite::compile_scenario(suite->scenarios[0], warnings);
  if (!compiled) {
    std::fprintf(stderr, "%s\n", compiled.error().to_string().c_str());
    return 2;
  }
  auto driver = qb::drv::make_dpdk_driver(config);
  const auto flow_count = static_cast<uint32_t>(compiled->plan.flows.size());
  qb::drv::Topology topology;
  topology.port_rate_bps = 100e9;
  topology.wire = compiled->plan.wire;
  topology.flow_count = flow_count;
  topology.workers = o.workers;
  for (const qb::Status& s :
       {driver->open(topology), driver->apply(compiled->plan), driver->start()}) {
    if (!s) {
      std::fprintf(stderr, "%s\n", s.error().to_string().c_str());
      return 3;
    }
  }
  qb::engine::WorkerWindow window;
  window.warmup_ns = 0;
  window.duration_ns = static_cast<int64_t>(o.seconds * 1e9);
  window.bin_ns = 100'000'000;
  window.max_outstanding = driver->capabilities().max_outstanding_per_flow;
  // Flow f on worker f mod W, as the engine splits them.
  std::vector<std::unique_ptr<qb::engine::FlowWorker>> workers;
  for (uint32_t w = 0; w < o.workers; ++w) {
    std::vector<uint32_t> owned;
    for (uint32_t f = w; f < flow_count; f += o.workers) owned.push_back(f);
    workers.push_back(std::make_unique<qb::engine::FlowWorker>(*compiled, 1, window, owned));
  }
  std::vector<std::vector<qb::engine::FlowCounters>> counters(
      o.workers, std::vector<qb::engine::FlowCounters>(flow_count));
  std::vector<std::vector<qb::engine::FlowLatency>> latency(
      o.workers, std::vector<qb::engine::FlowLatency>(flow_count));
  const auto wall_start = std::chrono::steady_clock::now();
  {
    auto drive = [&](uint32_t w) {
      workers[w]->run(driver->queue(w), driver->clock(w), nullptr, counters[w], latency[w]);
    };
    std::vector<std::jthread> threads;
    for (uint32_t w = 1; w < o.workers; ++w) threads.emplace_back(drive, w);
    drive(0);
  }
  const double elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  (void)driver->stop();
  const qb::drv::DriverStats stats = driver->stats();
  driver->close();
  for (const char* key : {"tx_packets", "rx_packets", "rx_seq_gaps", "tx_pmd_full",
                          "mbuf_alloc_failures", "workers"}) {
    std::printf("%s %.0f\n", key, stat(stats, key));
  }
  uint64_t late_posts = 0;
  for (const auto& per_worker : counters) {
    for (const auto& flow : per_worker) late_posts += flow.counts.late_posts;
  }
  std::printf("late_posts %llu\n", static_cast<unsigned long long>(late_posts));
  if (o.rx) std::printf("rx_mpps %.3f\n", stat(stats, "rx_packets") / elapsed_s / 1e6);
  std::printf("qosbench_mpps %.3f\n", stat(stats, "tx_packets") / elapsed_s / 1e6);
  return 0;
}
