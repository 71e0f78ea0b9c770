// Tx-only throughput of qosbench on DPDK: the engine's FlowWorker (per-flow generators,
// sequence numbers, timestamps in every frame) driving the DPDK driver on one core.
//   qb_dpdk_txonly [seconds] [flows] [frame bytes] [shaper 0|1] [EAL args...]
// Prints "qosbench_mpps <value>" on the last line.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "flow_worker.hpp"
#include "qb/drivers/dpdk_driver.hpp"
#include "qb/engine/compile.hpp"
#include "qb/engine/suite_loader.hpp"

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 2.0;
  const int flows = argc > 2 ? std::atoi(argv[2]) : 4;
  const int bytes = argc > 3 ? std::atoi(argv[3]) : 64;
  const bool shaper = argc > 4 ? std::atoi(argv[4]) != 0 : false;
  qb::drv::DpdkConfig config;
  for (int i = 5; i < argc; ++i) config.eal_args.emplace_back(argv[i]);
  if (config.eal_args.empty()) {
    config.eal_args = {"--no-huge", "-m", "512", "--no-pci", "-l", "0", "--vdev", "net_null0"};
  }
  config.rx_port = "none";
  config.software_shaper = shaper;

  const std::string suite_text =
      "[suite]\nname = \"txonly\"\nwarmup = \"0s\"\nduration = \"" +
      std::to_string(static_cast<int>(seconds * 1000)) +
      "ms\"\nbin = \"100ms\"\n[port]\nrate = \"100Gbps\"\ntransport = \"eth\"\nmtu = 1500\n"
      "[[flow]]\nname = \"f\"\ncount = " +
      std::to_string(flows) + "\nsize = " + std::to_string(bytes) +
      "\nrate = \"saturate\"\noutstanding = 256\n";
  auto suite = qb::engine::load_suite_string(suite_text, "txonly.toml");
  if (!suite) {
    std::fprintf(stderr, "%s\n", suite.error().to_string().c_str());
    return 2;
  }
  std::vector<qb::policy::Warning> warnings;
  auto compiled = qb::engine::compile_scenario(suite->scenarios[0], warnings);
  if (!compiled) {
    std::fprintf(stderr, "%s\n", compiled.error().to_string().c_str());
    return 2;
  }
  auto driver = qb::drv::make_dpdk_driver(config);
  qb::drv::Topology topology;
  topology.port_rate_bps = 100e9;
  topology.wire = compiled->plan.wire;
  topology.flow_count = static_cast<uint32_t>(compiled->plan.flows.size());
  for (const qb::Status& s :
       {driver->open(topology), driver->apply(compiled->plan), driver->start()}) {
    if (!s) {
      std::fprintf(stderr, "%s\n", s.error().to_string().c_str());
      return 3;
    }
  }
  qb::engine::WorkerWindow window;
  window.warmup_ns = 0;
  window.duration_ns = static_cast<int64_t>(seconds * 1e9);
  window.bin_ns = 100'000'000;
  window.max_outstanding = driver->capabilities().max_outstanding_per_flow;
  qb::engine::FlowWorker worker(*compiled, 1, window);
  std::vector<qb::engine::FlowCounters> counters(compiled->plan.flows.size());
  std::vector<qb::engine::FlowLatency> latency(compiled->plan.flows.size());
  const int64_t start_ns = driver->clock(0).now_ns();
  worker.run(driver->queue(0), driver->clock(0), nullptr, counters, latency);
  const int64_t elapsed_ns = driver->clock(0).now_ns() - start_ns;
  (void)driver->stop();
  double tx_packets = 0;
  for (const auto& [name, value] : driver->stats()) {
    if (name == "tx_packets") tx_packets = value;
    std::printf("%s %.0f\n", name.c_str(), value);
  }
  driver->close();
  std::printf("qosbench_mpps %.3f\n", tx_packets / static_cast<double>(elapsed_ns) * 1e3);
  return 0;
}
