// An overloaded DPA's verdict (qb/dpa/overload.hpp): the drops of the worse DPA read from a
// repetition's driver stats, and the bounds at which they are a warning and an invalid run.
#include "qb/dpa/overload.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace qb::dpa {
namespace {

using Stats = std::vector<std::pair<std::string, double>>;

TEST(DpaDrops, NoProgramNoDrops) {
  const Stats stats = {{"packets", 10.0}, {"events", 99.0}};  // the simulator's steps: not DPA
  const DpaDrops drops = dpa_drops_of(stats);
  EXPECT_FALSE(drops.present);
  EXPECT_FALSE(drops.unreliable());
}

TEST(DpaDrops, TheWorseOfTheSendersAndTheReceiversDpa) {
  const Stats stats = {{"dpa_events", 900.0},
                       {"dpa_dropped_events", 100.0},
                       {"receiver_dpa_events", 10.0},
                       {"receiver_dpa_dropped_events", 90.0}};
  const DpaDrops drops = dpa_drops_of(stats);
  ASSERT_TRUE(drops.present);
  EXPECT_TRUE(drops.receiver);
  EXPECT_EQ(drops.handled, 10u);
  EXPECT_EQ(drops.dropped, 90u);
  EXPECT_DOUBLE_EQ(drops.dropped_fraction(), 0.9);
}

TEST(DpaDrops, BoundsAreStrictAboveTheDocumentedFractions) {
  DpaDrops drops;
  drops.present = true;
  drops.handled = 99;
  drops.dropped = 1;  // exactly 1 %: not yet
  EXPECT_FALSE(drops.unreliable());
  drops.handled = 98;
  drops.dropped = 2;
  EXPECT_TRUE(drops.unreliable());
  EXPECT_FALSE(drops.invalid());
  drops.handled = 90;
  drops.dropped = 10;  // exactly 10 %: unreliable, not invalid
  EXPECT_FALSE(drops.invalid());
  drops.handled = 89;
  drops.dropped = 11;
  EXPECT_TRUE(drops.invalid());
}

TEST(DpaDrops, KeepWorseKeepsTheLargerFraction) {
  DpaDrops worst;
  DpaDrops few{true, false, 1000, 5};
  DpaDrops many{true, false, 10, 10};
  worst.keep_worse(few);
  worst.keep_worse(many);
  worst.keep_worse(few);
  worst.keep_worse(DpaDrops{});
  EXPECT_EQ(worst.dropped, 10u);
}

TEST(DpaDrops, TheMessageNamesTheDpaTheCountsTheBoundAndTheFix) {
  const DpaDrops warned{true, false, 970, 30};
  const std::string warning = dpa_drops_message("incast", warned);
  EXPECT_NE(warning.find("scenario \"incast\": the senders' DPA dropped 30 of 1000 events (3.0 %)"),
            std::string::npos)
      << warning;
  EXPECT_NE(warning.find("figures unreliable (above 1 %"), std::string::npos) << warning;
  EXPECT_EQ(warning.find("invalid"), std::string::npos) << warning;
  EXPECT_NE(warning.find("queue_events"), std::string::npos) << warning;
  const std::string invalid = dpa_drops_message("incast", DpaDrops{true, true, 1, 99});
  EXPECT_NE(invalid.find("the receiver's DPA dropped 99 of 100"), std::string::npos) << invalid;
  EXPECT_NE(invalid.find("above 10 %, an invalid measurement"), std::string::npos) << invalid;
}

}  // namespace
}  // namespace qb::dpa
