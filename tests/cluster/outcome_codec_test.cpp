// The bytes one rank sends another: every field back bit for bit, and anything else refused.
#include "qb/engine/outcome_codec.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "outcome_sample.hpp"

namespace qb::engine {
namespace {

void expect_same(const Histogram& a, const Histogram& b) {
  const Histogram::State x = a.state();
  const Histogram::State y = b.state();
  EXPECT_EQ(x.highest_trackable, y.highest_trackable);
  EXPECT_EQ(x.significant_digits, y.significant_digits);
  EXPECT_EQ(x.counts, y.counts);
  EXPECT_EQ(x.total_count, y.total_count);
  EXPECT_EQ(x.clamped_count, y.clamped_count);
  EXPECT_EQ(x.min, y.min);
  EXPECT_EQ(x.max, y.max);
  EXPECT_EQ(x.exact_sum, y.exact_sum);
  EXPECT_EQ(std::bit_cast<uint64_t>(x.sum), std::bit_cast<uint64_t>(y.sum));
}

TEST(OutcomeCodec, RoundTripsEveryFieldExactly) {
  const RepetitionOutcome sent = sample_outcome();
  auto got = decode_outcome(encode_outcome(sent));
  ASSERT_TRUE(got) << got.error().to_string();
  EXPECT_EQ(got->scenario, sent.scenario);
  EXPECT_EQ(got->repetition, sent.repetition);
  EXPECT_EQ(got->workers, sent.workers);
  EXPECT_EQ(got->clock, sent.clock);
  const auto& a = sent.measurement;
  const auto& b = got->measurement;
  ASSERT_EQ(a.flows.size(), b.flows.size());
  for (size_t f = 0; f < a.flows.size(); ++f) {
    EXPECT_EQ(a.flows[f].counts.messages, b.flows[f].counts.messages);
    EXPECT_EQ(a.flows[f].counts.packets, b.flows[f].counts.packets);
    EXPECT_EQ(a.flows[f].counts.payload_bytes, b.flows[f].counts.payload_bytes);
    EXPECT_EQ(a.flows[f].counts.wire_bytes, b.flows[f].counts.wire_bytes);
    EXPECT_EQ(a.flows[f].counts.drops, b.flows[f].counts.drops);
    EXPECT_EQ(a.flows[f].counts.posted_messages, b.flows[f].counts.posted_messages);
    EXPECT_EQ(a.flows[f].counts.late_posts, b.flows[f].counts.late_posts);
    EXPECT_EQ(a.flows[f].series_wire_bytes, b.flows[f].series_wire_bytes);
    EXPECT_EQ(a.flow_latency[f].p99_ns, b.flow_latency[f].p99_ns);
  }
  ASSERT_EQ(b.group_latency.size(), 1u);
  EXPECT_EQ(b.group_latency[0].p999_ns, 40);
  EXPECT_EQ(a.driver_stats, b.driver_stats);
  EXPECT_TRUE(b.starvation.measured);
  EXPECT_EQ(b.starvation.run_ns, a.starvation.run_ns);
  EXPECT_EQ(b.starvation.lost_ns, a.starvation.lost_ns);
  EXPECT_EQ(b.starvation.run_delay_ns, a.starvation.run_delay_ns);
  EXPECT_EQ(b.starvation.stalled_ns, a.starvation.stalled_ns);
  EXPECT_EQ(b.starvation.longest_stall_ns, a.starvation.longest_stall_ns);
  EXPECT_EQ(b.starvation.stalls, a.starvation.stalls);
  EXPECT_EQ(b.starvation.involuntary_switches, a.starvation.involuntary_switches);
  ASSERT_EQ(b.queue_depth.size(), 2u);
  EXPECT_EQ(b.queue_depth[0].name, "port");
  EXPECT_EQ(b.queue_depth[0].max_bytes, a.queue_depth[0].max_bytes);
  EXPECT_EQ(b.queue_depth[0].mean_bytes, a.queue_depth[0].mean_bytes);
  EXPECT_EQ(b.queue_depth[1].name, "TC3");
  EXPECT_EQ(std::bit_cast<uint64_t>(a.wall_seconds), std::bit_cast<uint64_t>(b.wall_seconds));
  EXPECT_EQ(a.ran, b.ran);
  EXPECT_EQ(a.complete, b.complete);
  EXPECT_EQ(a.measured_ns, b.measured_ns);
  ASSERT_EQ(got->latency.size(), sent.latency.size());
  for (size_t f = 0; f < sent.latency.size(); ++f) {
    expect_same(sent.latency[f].from_scheduled_ns, got->latency[f].from_scheduled_ns);
    expect_same(sent.latency[f].from_sent_ns, got->latency[f].from_sent_ns);
    expect_same(sent.latency[f].outstanding_age_ns, got->latency[f].outstanding_age_ns);
  }
  EXPECT_EQ(got->latency[2].outstanding_age_ns.count(), 17u);
  EXPECT_EQ(got->latency[2].outstanding_age_ns.max(), 51'200'000);
  // The restored histogram answers as the original does.
  EXPECT_EQ(got->latency[0].from_sent_ns.value_at_percentile(99.9),
            sent.latency[0].from_sent_ns.value_at_percentile(99.9));
  EXPECT_EQ(got->latency[1].from_scheduled_ns.mean(), sent.latency[1].from_scheduled_ns.mean());
}

// The fuzz target's seed (tests/fuzz/corpus-outcome/sample.bin) is in the format this build
// reads: after a format change, scripts/outcome_fuzz_seed.sh writes it again.
TEST(OutcomeCodec, TheFuzzSeedIsInThisBuildsFormat) {
  std::ifstream in(std::string(QB_SOURCE_DIR) + "/tests/fuzz/corpus-outcome/sample.bin",
                   std::ios::binary);
  ASSERT_TRUE(in) << "tests/fuzz/corpus-outcome/sample.bin is missing";
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto got = decode_outcome(bytes);
  ASSERT_TRUE(got) << got.error().to_string() << ": run scripts/outcome_fuzz_seed.sh";
  EXPECT_EQ(bytes, encode_outcome(sample_fuzz_seed())) << "run scripts/outcome_fuzz_seed.sh";
}

TEST(OutcomeCodec, RefusesEveryTruncation) {
  const std::string bytes = encode_outcome(sample_outcome());
  for (size_t size = 0; size < bytes.size(); size += 1 + size / 64) {
    EXPECT_FALSE(decode_outcome(std::string_view(bytes).substr(0, size))) << size << " bytes";
  }
  EXPECT_FALSE(decode_outcome(bytes + "x"));
}

TEST(OutcomeCodec, RefusesAnotherFormatVersionNamingIt) {
  std::string bytes = encode_outcome(sample_outcome());
  bytes[0] = static_cast<char>(bytes[0] + 1);
  auto got = decode_outcome(bytes);
  ASSERT_FALSE(got);
  EXPECT_NE(got.error().message.find("one qosbench build on every host"), std::string::npos);
}

TEST(OutcomeCodec, RefusesAHistogramNoHistogramCanBe) {
  // Each case breaks one rule only; the others hold (extremes 5..7 cover counters 5..7).
  Histogram::State state = Histogram().state();
  state.min = 5;
  state.max = 7;
  state.counts = {{5, 2}};
  state.total_count = 2;
  EXPECT_TRUE(Histogram::from_state(state));
  state.counts = {{0xFFFFFFu, 1}};  // beyond the layout
  state.total_count = 1;
  state.max = Histogram().highest_trackable();
  EXPECT_FALSE(Histogram::from_state(state));
  state.max = 7;
  state.counts = {{5, 2}};
  state.total_count = 3;  // counts do not add up
  EXPECT_FALSE(Histogram::from_state(state));
  state.total_count = 2;
  state.counts = {{5, 1}, {9, 1}};  // a counter above the maximum's
  EXPECT_FALSE(Histogram::from_state(state));
  state.counts = {{4, 1}, {5, 1}};  // a counter below the minimum's
  EXPECT_FALSE(Histogram::from_state(state));
  state.counts = {{7, 1}, {5, 1}};  // out of order: not what state() writes
  EXPECT_FALSE(Histogram::from_state(state));
  state.counts = {{5, 1}, {5, 1}};  // one counter twice
  EXPECT_FALSE(Histogram::from_state(state));
  state.counts = {{5, 2}};
  state.min = INT64_MAX;  // counts, but the extremes of an empty histogram
  state.max = 0;
  EXPECT_FALSE(Histogram::from_state(state));
  state.counts = {};
  state.total_count = 0;
  EXPECT_TRUE(Histogram::from_state(state));  // an empty one
  state.min = 5;  // no counts, but the extremes of a non-empty histogram
  state.max = 7;
  EXPECT_FALSE(Histogram::from_state(state));
  // A refused state leaves nothing behind: the counter arrays are reused, and the next
  // histogram must start at zero (from_state checks everything before it writes a counter).
  state.counts = {{5, 1}, {6, 1}, {9, 1}};  // refused at the third counter
  state.total_count = 3;
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(Histogram::from_state(state));
  for (int i = 0; i < 100; ++i) {
    Histogram fresh;
    for (int64_t v = 1; v <= 10; ++v) fresh.record(v);
    const Histogram::State got = fresh.state();
    ASSERT_EQ(got.counts.size(), 10u);
    for (const auto& [index, count] : got.counts) ASSERT_EQ(count, 1u) << "counter " << index;
  }
}

}  // namespace
}  // namespace qb::engine
