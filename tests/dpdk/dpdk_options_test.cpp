// [driver.dpdk] through the registry: the keys, their errors (located in the suite file), the
// --eal alias and --driver-option overrides.
#include <gtest/gtest.h>

#include "dpdk_driver.hpp"
#include "qb/drivers/registry.hpp"
#include "qb/suite/suite_loader.hpp"

namespace qb::drv {
namespace {

constexpr const char* kFlow = "[[flow]]\nname = \"f\"\nsize = 64\nrate = \"saturate\"\n";

ConfigTable dpdk_table(const std::string& body) {
  auto suite = suite::load_suite_string("[driver.dpdk]\n" + body + kFlow, "s.toml");
  EXPECT_TRUE(suite.ok()) << suite.error().to_string();
  return suite::driver_table(*suite, "dpdk");
}

Error table_error(const std::string& body) {
  auto suite = suite::load_suite_string("[driver.dpdk]\n" + body + kFlow, "s.toml");
  EXPECT_TRUE(suite.ok()) << suite.error().to_string();
  const Status checked = check_driver_tables(suite->driver_tables);
  EXPECT_FALSE(checked.ok());
  return checked.ok() ? Error{} : checked.error();
}

TEST(DpdkOptions, KeysAreRead) {
  const DpdkConfig config = parse_dpdk_config(dpdk_table(
      "eal = [\"--no-huge\", \"-m\", \"512\"]\ntx_port = \"net_ring0\"\nrx_port = \"none\"\n"
      "software_shaper = false\nhw_pacing = true\n"));
  EXPECT_EQ(config.eal_args, (std::vector<std::string>{"--no-huge", "-m", "512"}));
  EXPECT_EQ(config.tx_port, "net_ring0");
  EXPECT_EQ(config.rx_port, "none");
  EXPECT_FALSE(config.software_shaper);
  EXPECT_TRUE(config.hw_pacing);
}

TEST(DpdkOptions, BadKeysAreLocatedInTheSuite) {
  const Error unknown = table_error("eals = [\"-l 0\"]\n");
  EXPECT_EQ(unknown.code, Errc::invalid_config);
  EXPECT_EQ(unknown.where, "driver.dpdk.eals");
  EXPECT_EQ(unknown.loc.file, "s.toml");
  EXPECT_EQ(unknown.loc.line, 2u);
  EXPECT_NE(unknown.message.find("did you mean 'eal'?"), std::string::npos) << unknown.message;
  const Error type = table_error("eal = \"--no-huge\"\n");
  EXPECT_EQ(type.where, "driver.dpdk.eal");
  EXPECT_EQ(type.loc.line, 2u);
  EXPECT_EQ(type.loc.column, 7u);
  EXPECT_NE(type.message.find("expected an array of strings"), std::string::npos);
}

TEST(DpdkOptions, CommandLineOverridesReplaceTheSuitesKeys) {
  ConfigTable table = dpdk_table("eal = [\"-l\", \"0\"]\ntx_port = \"net_ring0\"\n");
  ASSERT_TRUE(table.apply({"eal", "--no-huge -a '0000:03:00.0,tx_pp=500'", "--eal", true}).ok());
  ASSERT_TRUE(table.apply({"hw_pacing", "true", "--driver-option", false}).ok());
  ASSERT_TRUE(table.apply({"rx_port", "net_null0", "--driver-option", false}).ok());
  const DpdkConfig config = parse_dpdk_config(table);
  EXPECT_EQ(config.eal_args,
            (std::vector<std::string>{"--no-huge", "-a", "0000:03:00.0,tx_pp=500"}));
  EXPECT_TRUE(config.hw_pacing);
  EXPECT_EQ(config.rx_port, "net_null0");
  EXPECT_EQ(config.tx_port, "net_ring0");
  // A bad override names the flag, not the file.
  ConfigTable bad = dpdk_table("");
  ASSERT_TRUE(bad.apply({"hw_pacing", "sometimes", "--driver-option", false}).ok());
  try {
    parse_dpdk_config(bad);
    ADD_FAILURE() << "a string for hw_pacing was accepted";
  } catch (const ConfigError& error) {
    EXPECT_EQ(error.error.code, Errc::usage);
    EXPECT_EQ(error.error.where, "--driver-option hw_pacing");
  }
  EXPECT_FALSE(bad.apply({"eal", "-a 'unterminated", "--eal", true}).ok());
}

TEST(DpdkOptions, RegistryDeclaresTheEalAlias) {
  const DriverEntry* entry = find_driver("dpdk");
  ASSERT_NE(entry, nullptr);
  ASSERT_EQ(entry->aliases.size(), 1u);
  EXPECT_EQ(entry->aliases[0].flag, "--eal");
  EXPECT_EQ(entry->aliases[0].key, "eal");
  EXPECT_TRUE(entry->aliases[0].words);
  auto factory = configure_driver("dpdk", dpdk_table(""),
                                  {ConfigOverride{"bogus", "1", "--driver-option", false}});
  ASSERT_FALSE(factory.ok());
  EXPECT_EQ(factory.error().code, Errc::usage);
  EXPECT_EQ(factory.error().where, "--driver-option bogus");
}

}  // namespace
}  // namespace qb::drv
