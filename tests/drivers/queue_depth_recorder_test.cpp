// The switch queue-depth recorder (drivers/sim/queue_depth_recorder.hpp): per bin the deepest
// and the time-weighted mean of a step function, worked out by hand.
#include "queue_depth_recorder.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace qb::drv::sim {
namespace {

TEST(QueueDepthRecorder, MeanAndMaxPerBinByHand) {
  QueueDepthRecorder r;
  r.configure(2, 1000, 100, 3);  // bins [1000,1100) [1100,1200) [1200,1300)
  r.start();
  r.change(0, 500, 40);    // before the window: only its level from 1000 on counts
  r.change(0, 1050, 100);  // bin 0: 40 for 50, 100 for 50 -> mean 70, max 100
  r.change(0, 1150, 0);    // bin 1: 100 for 50, 0 for 50 -> mean 50, max 100
  r.change(1, 1210, 10);   // class 1: 0 until 1210, then 10
  std::vector<double> max_bytes;
  std::vector<double> mean_bytes;
  r.series(0, 1300, max_bytes, mean_bytes);
  EXPECT_EQ(max_bytes, (std::vector<double>{100, 100, 0}));
  EXPECT_EQ(mean_bytes, (std::vector<double>{70, 50, 0}));
  r.series(1, 1300, max_bytes, mean_bytes);
  EXPECT_EQ(max_bytes, (std::vector<double>{0, 0, 10}));
  EXPECT_EQ(mean_bytes, (std::vector<double>{0, 0, 9}));  // 10 for 90 of 100
}

TEST(QueueDepthRecorder, AnEndInsideABinCoversOnlyItsPart) {
  QueueDepthRecorder r;
  r.configure(1, 0, 100, 10);
  r.start();
  r.change(0, 0, 30);
  std::vector<double> max_bytes;
  std::vector<double> mean_bytes;
  r.series(0, 150, max_bytes, mean_bytes);  // the run stopped half-way through bin 1
  EXPECT_EQ(max_bytes, (std::vector<double>{30, 30}));
  EXPECT_EQ(mean_bytes, (std::vector<double>{30, 30}));
}

TEST(QueueDepthRecorder, NoBinsRecordsNothing) {
  QueueDepthRecorder r;
  r.configure(1, 0, 0, 10);
  r.start();
  r.change(0, 5, 100);
  std::vector<double> max_bytes{1};
  std::vector<double> mean_bytes{1};
  r.series(0, 1000, max_bytes, mean_bytes);
  EXPECT_TRUE(max_bytes.empty());
  EXPECT_TRUE(mean_bytes.empty());
  EXPECT_FALSE(r.enabled());
}

}  // namespace
}  // namespace qb::drv::sim
