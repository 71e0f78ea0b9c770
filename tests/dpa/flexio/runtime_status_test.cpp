// What `qosbench drivers` says about the DPA runtimes, and the SDK ops' answer without the SDK.
#include "qb/dpa/flexio/runtime_status.hpp"

#include <gtest/gtest.h>

#include "qb/dpa/flexio/flexio_ops.hpp"

namespace qb::dpa::flexio {
namespace {

TEST(FlexioRuntimeStatus, TheDpaLineNamesBothRuntimes) {
  const std::string line = dpa_runtimes_line();
  EXPECT_EQ(line.rfind("dpa: emulator (built in, inside the simulator); flexio: ", 0), 0u) << line;
  const FlexioBuildStatus status = flexio_build_status();
  if (status.built) {
    EXPECT_NE(line.find("flexio: built"), std::string::npos) << line;
  } else {
    EXPECT_FALSE(status.reason.empty());
    EXPECT_NE(line.find("flexio: not built (" + status.reason + ")"), std::string::npos) << line;
  }
}

TEST(FlexioRuntimeStatus, WithoutTheSdkTheOpsAreUnavailableWithTheReason) {
  auto ops = make_sdk_flexio_ops();
  if (flexio_build_status().built) {
    ASSERT_TRUE(ops);
    EXPECT_EQ((*ops)->provider_name(), "flexio-sdk");
    return;
  }
  ASSERT_FALSE(ops);
  EXPECT_EQ(ops.error().code, Errc::unavailable);
  EXPECT_NE(ops.error().message.find(flexio_build_status().reason), std::string::npos)
      << ops.error().message;
}

}  // namespace
}  // namespace qb::dpa::flexio
