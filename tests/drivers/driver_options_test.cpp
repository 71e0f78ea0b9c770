// [driver.<name>] tables through the registry: unknown drivers, drivers not built here, the
// simulator's empty table, and command-line overrides.
#include <gtest/gtest.h>

#include "qb/drivers/registry.hpp"

namespace qb::drv {
namespace {

ConfigTable table(const std::string& name, const std::string& body) {
  auto parsed = ConfigTable::parse(body, "driver." + name, "s.toml");
  EXPECT_TRUE(parsed.ok()) << parsed.error().to_string();
  return *parsed;
}

TEST(DriverOptions, UnknownDriverTableIsAConfigErrorListingTheKnownOnes) {
  const Status checked = check_driver_tables({table("warp", "speed = 9\n")});
  ASSERT_FALSE(checked.ok());
  EXPECT_EQ(checked.error().code, Errc::invalid_config);
  EXPECT_EQ(checked.error().where, "driver.warp");
  EXPECT_NE(checked.error().message.find("sim, dpdk, verbs"), std::string::npos)
      << checked.error().message;
}

TEST(DriverOptions, ADriverNotBuiltHereCannotCheckItsTableAndAcceptsIt) {
  // verbs is listed but not built: its keys are checked where it is.
  EXPECT_TRUE(check_driver_tables({table("verbs", "device = \"mlx5_0\"\n")}).ok());
}

TEST(DriverOptions, SimTakesNoKeys) {
  EXPECT_TRUE(check_driver_tables({table("sim", "")}).ok());
  const Status checked = check_driver_tables({table("sim", "workers = 2\n")});
  ASSERT_FALSE(checked.ok());
  EXPECT_EQ(checked.error().where, "driver.sim.workers");
  EXPECT_EQ(checked.error().loc.file, "s.toml");
  EXPECT_EQ(checked.error().loc.line, 1u);
}

TEST(DriverOptions, OverridesAreParsedAndNamedByTheirFlag) {
  auto option = parse_driver_option("workers=2");
  ASSERT_TRUE(option.ok());
  EXPECT_EQ(option->key, "workers");
  EXPECT_EQ(option->text, "2");
  EXPECT_EQ(option->flag, "--driver-option");
  EXPECT_FALSE(parse_driver_option("=2").ok());
  EXPECT_FALSE(parse_driver_option("workers").ok());
  // An override of a key the driver does not have is a usage error naming the flag.
  auto factory = configure_driver("sim", table("sim", ""), {*option});
  ASSERT_FALSE(factory.ok());
  EXPECT_EQ(factory.error().code, Errc::usage);
  EXPECT_EQ(factory.error().where, "--driver-option workers");
  // Unknown and unavailable drivers.
  EXPECT_EQ(configure_driver("warp", table("warp", "")).error().code, Errc::usage);
  // A driver's bad option value: located in its table.
  const auto bad = configure_driver("sim", table("sim", "speed = 1\n"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, Errc::invalid_config);
}

TEST(DriverOptions, OverrideValuesAreTomlOrPlainStrings) {
  ConfigTable t = table("x", "name = \"file\"\nlist = [\"a\"]\n");
  ASSERT_TRUE(t.apply({"flag", "true", "--driver-option", false}).ok());
  ASSERT_TRUE(t.apply({"count", "3", "--driver-option", false}).ok());
  ASSERT_TRUE(t.apply({"name", "net_ring0", "--driver-option", false}).ok());
  ASSERT_TRUE(t.apply({"list", "[\"b\", \"c\"]", "--driver-option", false}).ok());
  EXPECT_EQ(t.boolean("flag"), true);
  EXPECT_EQ(t.integer("count", 0, 10), 3);
  EXPECT_EQ(t.string("name"), "net_ring0");
  EXPECT_EQ(t.string_list("list"), (std::vector<std::string>{"b", "c"}));
  // The file's other keys keep their place in the file.
  ConfigTable u = table("x", "a = 1\nb = \"text\"\n");
  ASSERT_TRUE(u.apply({"a", "2", "--driver-option", false}).ok());
  try {
    u.integer("b", 0, 1);
    ADD_FAILURE() << "a string read as an integer";
  } catch (const ConfigError& error) {
    EXPECT_EQ(error.error.loc.line, 2u);
    EXPECT_EQ(error.error.where, "driver.x.b");
  }
}

}  // namespace
}  // namespace qb::drv
