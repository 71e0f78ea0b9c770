// The results of a sender-only run hold nothing to judge: the reader refuses them with a message
// that says so (report and compare exit 2), not with a missing-field error.
#include <gtest/gtest.h>

#include <string>

#include "qb/reports/results_reader.hpp"

namespace qb::report {
namespace {

TEST(SenderResults, ReaderRefusesASenderOnlyFileSayingWhy) {
  const std::string json = R"({"schema": "qosbench.results/1", "sender_only": true,
    "complete": true, "suite": "s", "driver": "dpdk", "scenarios": [{"name": "a",
    "tx_frames": 10, "tx_bytes": 640, "tx_mpps": 1.0,
    "flows": [{"name": "f", "posted_messages": 10, "late_posts": 0}]}]})";
  auto read = results_from_json(json, "tx.json");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().code, Errc::invalid_config);
  EXPECT_NE(read.error().message.find("sender-only"), std::string::npos) << read.error().message;
  EXPECT_NE(read.error().message.find("nothing to report or compare"), std::string::npos);
  EXPECT_EQ(read.error().loc.file, "tx.json");
}

}  // namespace
}  // namespace qb::report
