// `qosbench drivers` says which DPA runtimes this build has: the emulator, and FlexIO or why not.
#include <gtest/gtest.h>

#include "process.hpp"

namespace qb::e2e {
namespace {

TEST(Cli, DriversHasADpaLineNamingTheRuntimes) {
  const Outcome outcome = run_qosbench({"drivers"});
  ASSERT_EQ(outcome.exit_code, 0) << outcome.err;
  const size_t at = outcome.out.find("\ndpa: emulator (built in, inside the simulator); flexio: ");
  ASSERT_NE(at, std::string::npos) << outcome.out;
  const std::string line = outcome.out.substr(at + 1, outcome.out.find('\n', at + 1) - at - 1);
  // This machine has no FlexIO SDK unless the build found one; either way the line says.
  EXPECT_TRUE(line.find("flexio: not built (") != std::string::npos ||
              line.find("flexio: built (") != std::string::npos)
      << line;
}

}  // namespace
}  // namespace qb::e2e
