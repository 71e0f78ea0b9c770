// [driver.verbs] options: defaults, and every bad value refused at its key.
#include "verbs_config.hpp"

#include <gtest/gtest.h>

namespace qb::drv::verbs {
namespace {

VerbsConfig parse(const std::string& body) {
  auto table = ConfigTable::parse(body, "driver.verbs", "s.toml");
  EXPECT_TRUE(table.ok());
  return parse_verbs_config(*table);
}

// The key path the ConfigError names, or "" when the body parses.
std::string refused_key(const std::string& body) {
  try {
    parse(body);
  } catch (const ConfigError& error) {
    return error.error.where;
  }
  return "";
}

TEST(VerbsConfig, DefaultsAreLoopbackOnTheFirstDeviceWithOneWorker) {
  const VerbsConfig c = parse("");
  EXPECT_EQ(c.provider, Provider::rdma_core);
  EXPECT_EQ(c.device, "");
  EXPECT_EQ(c.port, 1);
  EXPECT_EQ(c.workers, 1u);
  EXPECT_TRUE(c.peer.empty());
  EXPECT_EQ(c.listen, 0);
  EXPECT_FALSE(c.gid_index.has_value());  // picked from the port's GID table
  EXPECT_EQ(c.tree, TreeMode::nic);
  EXPECT_EQ(parse("tree = \"software\"\n").tree, TreeMode::software);
  EXPECT_EQ(parse("gid_index = 3\n").gid_index, 3u);
  const VerbsConfig two = parse("peer = \"rx-host:18515\"\nworkers = 2\nhw_rate_limit = true\n");
  EXPECT_EQ(two.peer, "rx-host:18515");
  EXPECT_EQ(two.workers, 2u);
  EXPECT_TRUE(two.hw_rate_limit);
}

TEST(VerbsConfig, HardwarePacingNamesFlows) {
  EXPECT_TRUE(parse("").hw_pacing.empty());
  const VerbsConfig c = parse("hw_pacing = [\"rpc-cbr\", \"telemetry#0\"]\n");
  EXPECT_EQ(c.hw_pacing, (std::vector<std::string>{"rpc-cbr", "telemetry#0"}));
  EXPECT_FALSE(c.hw_rate_limit);
  EXPECT_EQ(refused_key("hw_pacing = [\"\"]\n"), "driver.verbs.hw_pacing");
  EXPECT_EQ(refused_key("hw_pacing = \"rpc-cbr\"\n"), "driver.verbs.hw_pacing");
}

TEST(VerbsConfig, BadValuesAreRefusedAtTheirKey) {
  EXPECT_EQ(refused_key("provider = \"mlx\"\n"), "driver.verbs.provider");
  EXPECT_EQ(refused_key("port = 0\n"), "driver.verbs.port");
  EXPECT_EQ(refused_key("workers = 0\n"), "driver.verbs.workers");
  EXPECT_EQ(refused_key("gid_index = -1\n"), "driver.verbs.gid_index");
  EXPECT_EQ(refused_key("gid_index = 256\n"), "driver.verbs.gid_index");  // sgid_index: 8 bits
  EXPECT_EQ(refused_key("tree = \"hardware\"\n"), "driver.verbs.tree");
  EXPECT_EQ(refused_key("listen = 70000\n"), "driver.verbs.listen");
  EXPECT_EQ(refused_key("peer = \"host\"\n"), "driver.verbs.peer");
  EXPECT_EQ(refused_key("peer = \"h:1\"\nlisten = 2\n"), "driver.verbs.listen");
  EXPECT_EQ(refused_key("fake_timing = \"instant\"\n"), "driver.verbs.fake_timing");
  EXPECT_EQ(refused_key("provider = \"fake\"\nfake_timing = \"soon\"\n"),
            "driver.verbs.fake_timing");
  EXPECT_EQ(refused_key("provider = \"fake\"\nworkers = 2\n"), "driver.verbs.workers");
  EXPECT_EQ(refused_key("provider = \"fake\"\nlisten = 5000\n"), "driver.verbs.listen");
  EXPECT_EQ(refused_key("devices = \"mlx5_0\"\n"), "driver.verbs.devices");
  EXPECT_EQ(refused_key("provider = \"fake\"\nfake_timing = \"instant\"\nworkers = 2\n"), "");
}

}  // namespace
}  // namespace qb::drv::verbs
