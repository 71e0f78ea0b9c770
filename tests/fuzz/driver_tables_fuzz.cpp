// libFuzzer target for a suite's [driver.verbs] table (issue 26): the input is the table's body.
// The parser must never crash, hang or leak; an error is located in the file (or names the
// key); a table it accepts keeps the promises docs/verbs.md makes: a port 1..254, 1..64
// workers, a GID index 0..255, a peer "HOST:PORT", never both peer and listen, and the fake's
// keys only with the fake (which on simulated timing runs one worker on one host).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "qb/common/config_error.hpp"
#include "qb/common/config_table.hpp"
#include "verbs_config.hpp"

using qb::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  auto table = qb::ConfigTable::parse(body, "driver.verbs", "suite.toml");
  if (!table.ok()) {
    check(table.error().code == qb::Errc::invalid_config && table.error().loc.file == "suite.toml");
    return 0;
  }
  using qb::drv::verbs::FakeTiming;
  using qb::drv::verbs::Provider;
  try {
    const qb::drv::verbs::VerbsConfig config = qb::drv::verbs::parse_verbs_config(*table);
    check(config.port >= 1 && config.port <= 254);
    check(config.workers >= 1 && config.workers <= 64);
    check(!config.gid_index || *config.gid_index <= 255);
    check(config.peer.empty() || config.peer.find(':') != std::string::npos);
    check(config.peer.empty() || config.listen == 0);
    for (const std::string& name : config.hw_pacing) check(!name.empty());
    if (config.provider == Provider::fake && config.fake_timing == FakeTiming::simulated) {
      check(config.workers == 1 && config.peer.empty() && config.listen == 0);
    }
    if (config.provider != Provider::fake) {
      check(!table->has("fake_timing") && !table->has("fake_sched_support"));
    }
  } catch (const qb::ConfigError& error) {
    check(error.error.code == qb::Errc::invalid_config && !error.error.message.empty());
    check(error.error.loc.file == "suite.toml" && error.error.loc.line >= 1);
    check(error.error.where.rfind("driver.verbs", 0) == 0);
  }
  return 0;
}
