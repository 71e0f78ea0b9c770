// A fabric job's DPDK addresses (fabric_addressing.hpp): every rank's MAC through the job's
// records, each flow addressed from its sender's port to its receiver's; and the netns key.
#include "fabric_addressing.hpp"

#include <gtest/gtest.h>

#include "dpdk_driver.hpp"
#include "netns.hpp"

namespace qb::drv::dpdk {
namespace {

TEST(DpdkFabricAddressing, EachFlowGoesFromItsSendersPortToItsReceivers) {
  const MacAddress mac0{0x02, 0, 0, 0, 0, 0x10};
  const MacAddress mac1{0x02, 0, 0, 0, 0, 0x11};
  const MacAddress mac2{0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};
  auto addresses = parse_address_records({format_address_record(0, mac0),
                                          format_address_record(1, mac1),
                                          format_address_record(2, mac2)});
  ASSERT_TRUE(addresses) << addresses.error().to_string();
  ASSERT_EQ(addresses->mac_of_rank.size(), 3u);
  EXPECT_EQ(addresses->mac_of_rank[2], mac2);
  JobPart part;
  part.fabric = true;
  part.rank = 1;
  part.flow_receiver_rank = {2, 0};  // flow 0 to rank 2, flow 1 to rank 0
  FrameSpec spec;
  addresses->address(part, 0, spec);
  EXPECT_EQ(spec.src_mac, mac1);
  EXPECT_EQ(spec.dst_mac, mac2);
  EXPECT_EQ(spec.src_ip, 0xc6120002u);  // 198.18.0.2: rank 1
  EXPECT_EQ(spec.dst_ip, 0xc6120003u);
  addresses->address(part, 1, spec);
  EXPECT_EQ(spec.dst_mac, mac0);
}

TEST(DpdkFabricAddressing, ARecordThatIsNotOneOrInAnotherPlaceIsRefused) {
  const MacAddress mac{0x02, 0, 0, 0, 0, 1};
  for (const std::vector<std::string>& records :
       {std::vector<std::string>{"qosbench-verbs-fabric 1 0 0 0"},
        std::vector<std::string>{format_address_record(1, mac)},  // rank 1's in rank 0's place
        std::vector<std::string>{"qosbench-dpdk-fabric 2 0 02:00:00:00:00:01"},
        std::vector<std::string>{"qosbench-dpdk-fabric 1 0 02:00:00:00:00"},
        std::vector<std::string>{"qosbench-dpdk-fabric 1 0 02:00:00:00:00:01x"}}) {
    auto parsed = parse_address_records(records);
    ASSERT_FALSE(parsed) << records[0];
    EXPECT_EQ(parsed.error().code, Errc::runtime);
    EXPECT_NE(parsed.error().message.find("rank 0"), std::string::npos) << parsed.error().message;
  }
}

TEST(DpdkFabricAddressing, ANetworkNamespaceThatDoesNotExistIsTheKeysError) {
  const Status entered = enter_netns("qosbench-no-such-namespace");
  ASSERT_FALSE(entered);
  EXPECT_EQ(entered.error().code, Errc::invalid_config);
  EXPECT_EQ(entered.error().where, "driver.dpdk.netns");
  EXPECT_TRUE(enter_netns(""));  // none: this thread's own
}

}  // namespace
}  // namespace qb::drv::dpdk
