// Port arbiter decision cost: one pick() + sent() per simulated packet, all classes backlogged.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "qb/policies/port_arbiter.hpp"

namespace {

using qb::policy::PortArbiter;
using qb::policy::PortQos;
using qb::policy::TcSelect;

void run_picks(benchmark::State& state, PortArbiter& arbiter, uint32_t mask, uint32_t bytes) {
  int64_t now_ps = 0;
  for (auto _ : state) {
    const int c = arbiter.pick(mask, now_ps);
    benchmark::DoNotOptimize(c);
    if (c != PortArbiter::kNone) arbiter.sent(static_cast<uint32_t>(c), bytes, now_ps);
    now_ps += 330'000;  // a 4 KiB packet at 100 Gbit/s
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_PickNone(benchmark::State& state) {
  PortArbiter arbiter(PortQos{}, 100e9);
  run_picks(state, arbiter, 1, 4122);
}

void BM_PickEtsStrictPlus60_40Capped(benchmark::State& state) {
  PortQos qos;
  qos.kind = PortQos::Kind::ets;
  qos.eth = qb::policy::default_eth_port_qos();
  qos.eth.tsa = {TcSelect::ets,    TcSelect::ets,    TcSelect::strict, TcSelect::vendor,
                 TcSelect::vendor, TcSelect::vendor, TcSelect::vendor, TcSelect::vendor};
  qos.eth.ets_percent = {60, 40, 0, 0, 0, 0, 0, 0};
  qos.eth.tc_max_rate_bps[2] = 10e9;  // the strict TC is capped, so the ETS TCs get turns
  PortArbiter arbiter(qos, 100e9);
  run_picks(state, arbiter, 0b111, 4122);
}

void BM_PickVlArb(benchmark::State& state) {
  PortQos qos;
  qos.kind = PortQos::Kind::vlarb;
  qos.ib.tables.vlarb_high = {{0, 255}};
  qos.ib.tables.vlarb_low = {{1, 64}, {2, 128}, {3, 192}, {4, 0}};
  qos.ib.tables.high_limit = 6;
  PortArbiter arbiter(qos, 100e9);
  run_picks(state, arbiter, 0b11111, 4122);
}

BENCHMARK(BM_PickNone);
BENCHMARK(BM_PickEtsStrictPlus60_40Capped);
BENCHMARK(BM_PickVlArb);

}  // namespace
