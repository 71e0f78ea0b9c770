#include "qb/policies/traffic_class.hpp"

#include <gtest/gtest.h>

namespace qb::policy {
namespace {

TEST(TrafficClass, NamesRoundTrip) {
  for (const char* name : {"unspec", "best_effort", "low_latency", "dedicated_access", "bulk_data",
                           "scavenger", "network_ctrl"}) {
    auto parsed = parse_tc_label(name);
    ASSERT_TRUE(parsed) << name;
    EXPECT_EQ(tc_name(*parsed), name);
  }
  EXPECT_EQ(tc_name(TrafficClass{TcLabel::dscp, 10}), "dscp:10");
  auto bad = parse_tc_label("lowlatency");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, Errc::invalid_config);
  EXPECT_NE(bad.error().message.find("low_latency"), std::string::npos);
}

TEST(TrafficClass, DefaultDscpTable) {
  const LabelDscpTable table;
  EXPECT_EQ(table.dscp_for(TrafficClass{}), 0);  // unspec -> best_effort's
  EXPECT_EQ(table.dscp_for({TcLabel::best_effort, 0}), 0);
  EXPECT_EQ(table.dscp_for({TcLabel::scavenger, 0}), 8);
  EXPECT_EQ(table.dscp_for({TcLabel::bulk_data, 0}), 10);
  EXPECT_EQ(table.dscp_for({TcLabel::dedicated_access, 0}), 34);
  EXPECT_EQ(table.dscp_for({TcLabel::low_latency, 0}), 46);
  EXPECT_EQ(table.dscp_for({TcLabel::network_ctrl, 0}), 48);
  EXPECT_EQ(table.dscp_for({TcLabel::dscp, 26}), 26);
  LabelDscpTable custom;
  custom.dscp_by_label[static_cast<size_t>(TcLabel::best_effort)] = 12;
  EXPECT_EQ(custom.dscp_for(TrafficClass{}), 12);
}

TEST(TrafficClass, UnspecInheritsTheDomain) {
  const TrafficClass domain{TcLabel::bulk_data, 0};
  EXPECT_EQ(inherit_tclass(domain, TrafficClass{}), domain);
  const TrafficClass own{TcLabel::dscp, 4};
  EXPECT_EQ(inherit_tclass(domain, own), own);
  EXPECT_EQ(inherit_tclass(TrafficClass{}, TrafficClass{}), TrafficClass{});
}

TEST(TrafficClass, ProviderNames) {
  for (const char* name : {"none", "efa", "cxi", "tcp", "verbs"}) {
    auto parsed = parse_tc_provider(name);
    ASSERT_TRUE(parsed) << name;
    EXPECT_EQ(tc_provider_name(*parsed), name);
  }
  EXPECT_FALSE(parse_tc_provider("psm3"));
}

TEST(TrafficClass, EfaKeepsThreeClassesAndMapsLowLatencyToSl8) {
  auto low = apply_provider(TcProvider::efa, {TcLabel::low_latency, 0});
  EXPECT_FALSE(low.rejected);
  EXPECT_EQ(low.effective, (TrafficClass{TcLabel::low_latency, 0}));
  ASSERT_TRUE(low.sl);
  EXPECT_EQ(*low.sl, 8);

  auto best = apply_provider(TcProvider::efa, {TcLabel::best_effort, 0});
  EXPECT_EQ(best.effective.label, TcLabel::best_effort);
  EXPECT_FALSE(best.sl);
  EXPECT_TRUE(best.note.empty());

  for (auto label : {TcLabel::bulk_data, TcLabel::scavenger, TcLabel::network_ctrl,
                     TcLabel::dedicated_access, TcLabel::dscp}) {
    auto reset = apply_provider(TcProvider::efa, {label, 10});
    EXPECT_FALSE(reset.rejected);
    EXPECT_EQ(reset.effective, TrafficClass{});
    EXPECT_NE(reset.note.find("reset to unspec"), std::string::npos) << reset.note;
  }
}

TEST(TrafficClass, CxiRejectsDscpAndNetworkCtrl) {
  EXPECT_TRUE(apply_provider(TcProvider::cxi, {TcLabel::dscp, 46}).rejected);
  auto ctrl = apply_provider(TcProvider::cxi, {TcLabel::network_ctrl, 0});
  EXPECT_TRUE(ctrl.rejected);
  EXPECT_NE(ctrl.note.find("network_ctrl"), std::string::npos);
  auto bulk = apply_provider(TcProvider::cxi, {TcLabel::bulk_data, 0});
  EXPECT_FALSE(bulk.rejected);
  EXPECT_EQ(bulk.effective.label, TcLabel::bulk_data);
}

TEST(TrafficClass, TcpAndVerbsIgnoreTclass) {
  for (auto provider : {TcProvider::tcp, TcProvider::verbs}) {
    auto verdict = apply_provider(provider, {TcLabel::low_latency, 0});
    EXPECT_TRUE(verdict.ignored);
    EXPECT_FALSE(verdict.rejected);
    EXPECT_EQ(verdict.effective, TrafficClass{});
    EXPECT_FALSE(verdict.sl);
    EXPECT_FALSE(verdict.note.empty());
  }
}

TEST(TrafficClass, NoProviderChangesNothing) {
  auto verdict = apply_provider(TcProvider::none, {TcLabel::network_ctrl, 0});
  EXPECT_FALSE(verdict.rejected);
  EXPECT_FALSE(verdict.ignored);
  EXPECT_EQ(verdict.effective.label, TcLabel::network_ctrl);
  EXPECT_TRUE(verdict.note.empty());
}

}  // namespace
}  // namespace qb::policy
