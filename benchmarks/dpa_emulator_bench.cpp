// The DPA emulator's cost per event (figures in docs/dpa.md, "The emulator's cost per event"):
// ns of host time per Emulator::post() with a trivial handler and with a PCC-like one, for 1 and
// 16 DPA threads and 16 and 1024 flows. Events arrive at random (exponential gaps) so each
// thread is about 70 % busy: some wait, few are dropped, as in a loaded incast.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "qb/common/rng.hpp"
#include "qb/dpa/emulator.hpp"

namespace {

constexpr int64_t kHandlerCostNs = 100;
constexpr double kThreadLoad = 0.7;

// ---- The programs: C handlers against the device API, as shipped programs are. ----

extern "C" void count_only(const qb_dpa_event*, qb_dpa_flow flow, qb_dpa_actions*) {
  ++*static_cast<uint64_t*>(flow.context);
}

// A representative RTT-based congestion control in the DOCA PCC reference's shape: line rate
// when the flow starts, multiplicative decrease by how far the RTT is over target and on CNP and
// NACK (at most once per RTT), additive increase below target turning faster after a run of
// increases, the utilisation sample holding the rate near line, and a new RTT probe after each
// answer. Integer arithmetic only, 20-bit fixed point.
struct PccLikeContext {
  uint32_t rate;  // 0: the flow has not been seen yet
  uint32_t increases_in_a_row;
  uint64_t last_rtt_ns;
  uint64_t last_decrease_ns;
};
static_assert(sizeof(PccLikeContext) <= QB_DPA_FLOW_CONTEXT_BYTES);

enum PccLikeParam : uint32_t { kTargetRttNs, kAdditiveStep, kDecreaseGain, kHyperAfter, kParams };

const qb_dpa_param_spec kPccLikeParams[kParams] = {
    {"target_rtt", QB_DPA_PARAM_TIME_NS, 13'000, 1'000, 1'000'000, "bench: RTT target"},
    {"ai_step", QB_DPA_PARAM_FRACTION, QB_DPA_RATE_LINE / 1000, 1, QB_DPA_RATE_LINE,
     "bench: additive increase per step"},
    {"md_gain", QB_DPA_PARAM_FRACTION, QB_DPA_FRACTION_ONE / 2, 1, QB_DPA_FRACTION_ONE,
     "bench: decrease gain"},
    {"hyper_after", QB_DPA_PARAM_INTEGER, 5, 1, 1000, "bench: increases before hyper increase"},
};

uint32_t decreased(uint32_t rate, int64_t fraction) {
  return static_cast<uint32_t>(
      rate - ((static_cast<uint64_t>(rate) * static_cast<uint64_t>(fraction)) >> 20));
}

extern "C" void pcc_like(const qb_dpa_event* event, qb_dpa_flow flow, qb_dpa_actions* actions) {
  auto* context = static_cast<PccLikeContext*>(flow.context);
  const int64_t* params = flow.params;
  if (context->rate == 0) {
    context->rate = QB_DPA_RATE_LINE;
    actions->flags |= QB_DPA_ACT_REQUEST_RTT;
  }
  const bool may_decrease = event->now_ns - context->last_decrease_ns >= context->last_rtt_ns;
  switch (event->kind) {
    case QB_DPA_EV_RTT: {
      context->last_rtt_ns = event->rtt_ns;
      const auto target_ns = static_cast<uint64_t>(params[kTargetRttNs]);
      if (event->rtt_ns > target_ns) {
        const int64_t over =
            static_cast<int64_t>(((event->rtt_ns - target_ns) << 20) / event->rtt_ns);
        context->rate = decreased(context->rate, (over * params[kDecreaseGain]) >> 20);
        context->last_decrease_ns = event->now_ns;
        context->increases_in_a_row = 0;
      } else {
        const bool hyper =
            ++context->increases_in_a_row > static_cast<uint32_t>(params[kHyperAfter]);
        context->rate += static_cast<uint32_t>(params[kAdditiveStep]) * (hyper ? 4u : 1u);
      }
      actions->flags |= QB_DPA_ACT_REQUEST_RTT;
      break;
    }
    case QB_DPA_EV_CNP:
      if (may_decrease) {
        context->rate = decreased(context->rate, params[kDecreaseGain]);
        context->last_decrease_ns = event->now_ns;
      }
      break;
    case QB_DPA_EV_NACK:
      if (may_decrease) {
        context->rate /= 2;
        context->last_decrease_ns = event->now_ns;
      }
      break;
    case QB_DPA_EV_TX_SAMPLE:
      // Near line rate already: stop hyper increase.
      if (event->port_utilisation > QB_DPA_RATE_LINE - QB_DPA_RATE_LINE / 20)
        context->increases_in_a_row = 0;
      break;
    default:
      break;
  }
  if (context->rate > QB_DPA_RATE_LINE) context->rate = QB_DPA_RATE_LINE;
  actions->flags |= QB_DPA_ACT_SET_RATE;
  actions->rate = context->rate;
}

constexpr uint32_t kPccLikeEvents =
    QB_DPA_EVENT_BIT(QB_DPA_EV_ACK) | QB_DPA_EVENT_BIT(QB_DPA_EV_NACK) |
    QB_DPA_EVENT_BIT(QB_DPA_EV_CNP) | QB_DPA_EVENT_BIT(QB_DPA_EV_RTT) |
    QB_DPA_EVENT_BIT(QB_DPA_EV_TX_SAMPLE);

const qb_dpa_program kTrivialProgram = {
    "count_only", "bench: counts events", kPccLikeEvents, sizeof(uint64_t), nullptr, 0, count_only,
    QB_DPA_ROLE_SENDER};
const qb_dpa_program kPccLikeProgram = {"pcc_like",     "bench: RTT-based rate control",
                                        kPccLikeEvents, sizeof(PccLikeContext),
                                        kPccLikeParams, kParams,
                                        pcc_like,       QB_DPA_ROLE_SENDER};

// ---- The event stream: one lap of a ring, replayed with time moving on. ----

struct EventRing {
  std::vector<qb_dpa_event> events;  // times from 0 within one lap
  uint64_t lap_ns = 0;
};

// A congestion-control mix: mostly RTT answers and ACKs, some CNPs, Tx samples and NACKs.
uint32_t event_kind(uint64_t draw_percent) {
  if (draw_percent < 40) return QB_DPA_EV_RTT;
  if (draw_percent < 70) return QB_DPA_EV_ACK;
  if (draw_percent < 85) return QB_DPA_EV_CNP;
  if (draw_percent < 95) return QB_DPA_EV_TX_SAMPLE;
  return QB_DPA_EV_NACK;
}

EventRing event_ring(uint32_t threads, uint32_t flows) {
  constexpr size_t kEvents = 1 << 16;
  const double mean_gap_ns = static_cast<double>(kHandlerCostNs) / (kThreadLoad * threads);
  qb::Rng rng(2026);
  EventRing ring;
  ring.events.resize(kEvents);
  double now_ns = 0;
  for (auto& event : ring.events) {
    now_ns += rng.next_exponential(mean_gap_ns);
    event = qb_dpa_event{};
    event.kind = event_kind(rng.next_below(100));
    event.flow = static_cast<uint32_t>(rng.next_below(flows));
    event.now_ns = static_cast<uint64_t>(now_ns);
    event.bytes = 4096;
    event.rtt_ns = 8'000 + rng.next_below(16'000);  // around the 13 us target
    event.port_utilisation = static_cast<uint32_t>(rng.next_below(QB_DPA_RATE_LINE + 1));
  }
  ring.lap_ns = static_cast<uint64_t>(now_ns + mean_gap_ns);
  return ring;
}

// ---- The benchmark: one post() per iteration, so the reported time is ns per event. ----

void post_events(benchmark::State& state, const qb_dpa_program& program) {
  const auto threads = static_cast<uint32_t>(state.range(0));
  const auto flows = static_cast<uint32_t>(state.range(1));
  qb::dpa::EmulatorConfig config;
  config.program = &program;
  config.threads = threads;
  config.handler_cost_ns = kHandlerCostNs;
  config.queue_events = 64;
  config.line_rate_mbps = 100'000;
  qb::dpa::Emulator emulator;
  emulator.configure(config, flows);
  const EventRing ring = event_ring(threads, flows);

  size_t next = 0;
  uint64_t lap_start_ns = 0;
  for (auto _ : state) {
    qb_dpa_event event = ring.events[next];
    event.now_ns += lap_start_ns;
    benchmark::DoNotOptimize(emulator.post(event));
    if (++next == ring.events.size()) {
      next = 0;
      lap_start_ns += ring.lap_ns;
    }
  }
  const qb::dpa::EmulatorStats& stats = emulator.stats();
  const double posted = static_cast<double>(stats.events + stats.dropped_events);
  state.SetItemsProcessed(state.iterations());
  state.counters["dropped_pct"] =
      posted > 0 ? 100.0 * static_cast<double>(stats.dropped_events) / posted : 0;
  state.counters["mean_delay_ns"] =
      stats.events > 0
          ? static_cast<double>(stats.queue_delay_total_ns) / static_cast<double>(stats.events)
          : 0;
}

void BM_DpaEmulatorPostTrivial(benchmark::State& state) {
  post_events(state, kTrivialProgram);
}
void BM_DpaEmulatorPostPccLike(benchmark::State& state) {
  post_events(state, kPccLikeProgram);
}

// An event the program does not take (a Tx per packet to a program without QB_DPA_EV_TX in its
// mask): what the emulator costs a runtime that posts every event.
void BM_DpaEmulatorPostIgnored(benchmark::State& state) {
  qb::dpa::EmulatorConfig config;
  config.program = &kPccLikeProgram;
  config.handler_cost_ns = kHandlerCostNs;
  config.line_rate_mbps = 100'000;
  qb::dpa::Emulator emulator;
  emulator.configure(config, 16);
  qb_dpa_event event{};
  event.kind = QB_DPA_EV_TX;
  event.bytes = 4096;
  for (auto _ : state) {
    event.now_ns += 10;
    event.flow = (event.flow + 1) & 15;
    benchmark::DoNotOptimize(emulator.post(event));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DpaEmulatorPostIgnored);

BENCHMARK(BM_DpaEmulatorPostTrivial)
    ->ArgsProduct({{1, 16}, {16, 1024}})
    ->ArgNames({"threads", "flows"});
BENCHMARK(BM_DpaEmulatorPostPccLike)
    ->ArgsProduct({{1, 16}, {16, 1024}})
    ->ArgNames({"threads", "flows"});

}  // namespace
