// Which GID the driver uses, per shape of GID table (ibv_query_gid_ex's answers, as `show_gids`
// lists them on real ports): a ConnectX port (index 0 RoCE v1, 1 RoCE v2, 2-3 the IPv4-mapped
// pair) works without gid_index; RoCE v2 only; RoCE v1 only (exit 3 with the fix); an empty
// table; InfiniBand; and gid_index as the override.
#include "gid_select.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fake_mlx5.hpp"
#include "verbs_port.hpp"

namespace qb::drv::verbs {
namespace {

constexpr const char* kLinkLocal = "fe80::ac0:ebff:fe3d:ca54";
constexpr const char* kIpv4 = "::ffff:192.168.1.10";
constexpr const char* kGlobal = "2001:db8::10";

FakeGid v1(const char* text) {
  return {gid_from_text(text), IBV_GID_TYPE_ROCE_V1};
}
FakeGid v2(const char* text) {
  return {gid_from_text(text), IBV_GID_TYPE_ROCE_V2};
}
FakeGid empty() {
  return {};
}

Result<PortInfo> port_with(const std::vector<FakeGid>& gids, std::optional<uint32_t> gid_index,
                           uint8_t link_layer = IBV_LINK_LAYER_ETHERNET) {
  FakeDeviceConfig device;
  device.port.link_layer = link_layer;
  device.port.gids = gids;
  FakeMlx5 fake(device);
  std::string name;
  auto context = open_verbs_device(fake, "", &name);
  EXPECT_TRUE(context.ok());
  VerbsConfig config;
  config.gid_index = gid_index;
  auto port = query_verbs_port(fake, *context, name, config);
  fake.close_device(*context);
  return port;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The first run: the usual ConnectX layout, no gid_index. perftest picks index 3 (the
// RoCE v2 entry of the IPv4 address), and so does the driver, saying why.
TEST(VerbsGidSelect, ConnectXLayoutPicksTheIpv4RoceV2EntryWithoutOptions) {
  auto port = port_with(connectx_roce_gids(), std::nullopt);
  ASSERT_TRUE(port.ok()) << port.error().to_string();
  EXPECT_EQ(port->gid_index, 3);
  EXPECT_EQ(format_gid(port->gid), kIpv4);
  EXPECT_TRUE(contains(port->gid_note, "mlx5_0 port 1: GID index 3 (RoCE v2, ::ffff:192.168.1.10)"))
      << port->gid_note;
  EXPECT_TRUE(contains(port->gid_note, "picked automatically")) << port->gid_note;
  EXPECT_TRUE(contains(port->gid_note, "IPv4 address")) << port->gid_note;
  EXPECT_TRUE(contains(port->gid_note, "1 other RoCE v2 GID;")) << port->gid_note;
  EXPECT_TRUE(contains(port->gid_note, "set gid_index")) << port->gid_note;
}

// The same entries in another order, with empty entries between (a deleted address): the
// IPv4-mapped RoCE v2 one still wins, wherever it is.
TEST(VerbsGidSelect, Ipv4RoceV2EntryWinsWhereverItIs) {
  auto port = port_with({v2(kIpv4), v1(kLinkLocal), v2(kLinkLocal)}, std::nullopt);
  ASSERT_TRUE(port.ok()) << port.error().to_string();
  EXPECT_EQ(port->gid_index, 0);
  port = port_with({empty(), v1(kIpv4), empty(), v2(kLinkLocal), v2(kIpv4)}, std::nullopt);
  ASSERT_TRUE(port.ok()) << port.error().to_string();
  EXPECT_EQ(port->gid_index, 4);
}

// RoCE v2 only: IPv4-mapped first, then a global IPv6 address, then link-local; among equals
// the lowest index.
TEST(VerbsGidSelect, RoceV2OnlyTablesRankIpv4ThenGlobalThenLinkLocal) {
  auto port =
      port_with({v2(kLinkLocal), v2(kGlobal), v2(kIpv4), v2("::ffff:10.0.0.7")}, std::nullopt);
  ASSERT_TRUE(port.ok()) << port.error().to_string();
  EXPECT_EQ(port->gid_index, 2);

  port = port_with({v2(kLinkLocal), v2(kGlobal)}, std::nullopt);
  ASSERT_TRUE(port.ok()) << port.error().to_string();
  EXPECT_EQ(port->gid_index, 1);
  EXPECT_TRUE(contains(port->gid_note, "global IPv6")) << port->gid_note;

  port = port_with({v2(kLinkLocal)}, std::nullopt);
  ASSERT_TRUE(port.ok()) << port.error().to_string();
  EXPECT_EQ(port->gid_index, 0);
  EXPECT_TRUE(contains(port->gid_note, "link-local")) << port->gid_note;
  EXPECT_TRUE(contains(port->gid_note, "0 other RoCE v2 GIDs")) << port->gid_note;
}

// RoCE v1 only: exit 3 at gid_index, listing what the table has and what to change.
TEST(VerbsGidSelect, RoceV1OnlyTableIsExitThreeWithTheFix) {
  auto port = port_with({v1(kLinkLocal), v1(kIpv4)}, std::nullopt);
  ASSERT_FALSE(port.ok());
  const Error& error = port.error();
  EXPECT_EQ(error.code, Errc::unavailable);  // exit 3
  EXPECT_EQ(error.where, "driver.verbs.gid_index");
  EXPECT_TRUE(contains(error.message, "mlx5_0 port 1 has no RoCE v2 GID")) << error.message;
  EXPECT_TRUE(contains(error.message,
                       "0 RoCE v1, fe80::ac0:ebff:fe3d:ca54, 1 RoCE v1, "
                       "::ffff:192.168.1.10"))
      << error.message;
  EXPECT_TRUE(contains(error.message, "enable RoCE v2")) << error.message;
  EXPECT_TRUE(contains(error.message, "show_gids")) << error.message;
}

// No GID at all (no address, netdev down): exit 3 saying so.
TEST(VerbsGidSelect, EmptyTableIsExitThreeNamingTheAddress) {
  auto port = port_with({empty(), empty()}, std::nullopt);
  ASSERT_FALSE(port.ok());
  EXPECT_EQ(port.error().code, Errc::unavailable);
  EXPECT_EQ(port.error().where, "driver.verbs.gid_index");
  EXPECT_TRUE(contains(port.error().message, "has no GID")) << port.error().message;
  EXPECT_TRUE(contains(port.error().message, "IP address")) << port.error().message;
}

// InfiniBand: index 0, the port GID (for a GRH), whatever the RoCE rules say.
TEST(VerbsGidSelect, InfinibandUsesThePortGid) {
  auto port = port_with(infiniband_gids(), std::nullopt, IBV_LINK_LAYER_INFINIBAND);
  ASSERT_TRUE(port.ok()) << port.error().to_string();
  EXPECT_EQ(port->gid_index, 0);
  EXPECT_EQ(format_gid(port->gid), "fe80::248a:703:b1:bc04");
  EXPECT_TRUE(contains(port->gid_note, "InfiniBand, GID index 0")) << port->gid_note;
  // An IB port whose table is empty has no port GID: exit 3.
  port = port_with({}, std::nullopt, IBV_LINK_LAYER_INFINIBAND);
  ASSERT_FALSE(port.ok());
  EXPECT_EQ(port.error().code, Errc::unavailable);
  EXPECT_EQ(port.error().where, "driver.verbs.gid_index");
}

// gid_index overrides the choice: taken when it is a non-empty RoCE v2 entry (even a
// link-local one the driver would not pick), else exit 3 at the key with the hint.
TEST(VerbsGidSelect, GidIndexIsTheOverride) {
  auto port = port_with(connectx_roce_gids(), 1U);
  ASSERT_TRUE(port.ok()) << port.error().to_string();
  EXPECT_EQ(port->gid_index, 1);
  EXPECT_EQ(format_gid(port->gid), kLinkLocal);
  EXPECT_TRUE(contains(port->gid_note,
                       "GID index 1 (RoCE v2, fe80::ac0:ebff:fe3d:ca54): from "
                       "gid_index"))
      << port->gid_note;

  port = port_with(connectx_roce_gids(), 0U);
  ASSERT_FALSE(port.ok());
  EXPECT_EQ(port.error().code, Errc::unavailable);
  EXPECT_EQ(port.error().where, "driver.verbs.gid_index");
  EXPECT_TRUE(contains(port.error().message, "is RoCE v1, not RoCE v2")) << port.error().message;
  EXPECT_TRUE(contains(port.error().message, "leave gid_index out")) << port.error().message;

  for (const uint32_t index : {5U, 16U, 200U}) {  // empty, beyond the table of 16
    port = port_with(connectx_roce_gids(), index);
    ASSERT_FALSE(port.ok()) << index;
    EXPECT_EQ(port.error().code, Errc::unavailable);
    EXPECT_EQ(port.error().where, "driver.verbs.gid_index");
    EXPECT_TRUE(contains(port.error().message, "no GID at index")) << port.error().message;
  }
}

// A table that cannot be read (not an empty entry: another error) stops the choice: picking
// among the entries that could be read might pick the wrong one.
TEST(VerbsGidSelect, QueryFailureIsExitThreeNamingTheIndex) {
  FakeMlx5 fake(FakeDeviceConfig{});
  std::string name;
  auto context = open_verbs_device(fake, "", &name);
  ASSERT_TRUE(context.ok());
  fake.fail_call(static_cast<uint32_t>(fake.calls().size()) + 3, EIO);  // index 2
  auto choice = choose_gid(fake, *context, name, 1, 16, false, std::nullopt);
  ASSERT_FALSE(choice.ok());
  EXPECT_EQ(choice.error().code, Errc::unavailable);
  EXPECT_TRUE(contains(choice.error().message, "ibv_query_gid_ex for GID index 2 failed"))
      << choice.error().message;
  fake.close_device(*context);
}

// Two hosts: an IPv4-mapped GID on one end and an IPv6 one on the other cannot talk RoCE v2.
TEST(VerbsGidSelect, PeersMustUseOneAddressFamily) {
  EXPECT_TRUE(check_peer_gid_family(gid_from_text(kIpv4), gid_from_text("::ffff:10.0.0.7")).ok());
  EXPECT_TRUE(check_peer_gid_family(gid_from_text(kLinkLocal), gid_from_text(kGlobal)).ok());
  const Status mixed = check_peer_gid_family(gid_from_text(kIpv4), gid_from_text(kLinkLocal));
  ASSERT_FALSE(mixed.ok());
  EXPECT_EQ(mixed.error().code, Errc::unavailable);
  EXPECT_EQ(mixed.error().where, "driver.verbs.gid_index");
  EXPECT_TRUE(contains(mixed.error().message,
                       "::ffff:192.168.1.10 is IPv4 and the peer's "
                       "fe80::ac0:ebff:fe3d:ca54 is IPv6"))
      << mixed.error().message;
}

TEST(VerbsGidSelect, GidTextAndKinds) {
  EXPECT_TRUE(gid_is_ipv4_mapped(gid_from_text(kIpv4)));
  EXPECT_FALSE(gid_is_ipv4_mapped(gid_from_text(kLinkLocal)));
  EXPECT_FALSE(gid_is_ipv4_mapped(gid_from_text("::1:ffff:c0a8:10a")));
  EXPECT_TRUE(gid_is_link_local(gid_from_text(kLinkLocal)));
  EXPECT_FALSE(gid_is_link_local(gid_from_text(kGlobal)));
  EXPECT_EQ(format_gid(gid_from_text(kIpv4)), kIpv4);
}

}  // namespace
}  // namespace qb::drv::verbs
