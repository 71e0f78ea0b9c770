// The hint after a failed rte_eal_init: a root user who is refused hugepages is told what to
// check, never to run as root; everyone else may be told to.
#include <gtest/gtest.h>

#include <cerrno>
#include <string>

#include "eal.hpp"

namespace qb::drv::dpdk {
namespace {

TEST(EalHint, PermissionDeniedAsRootDoesNotSayRunAsRoot) {
  const std::string hint = eal_failure_hint(EACCES, /*root=*/true);
  EXPECT_EQ(hint.find("run as root"), std::string::npos) << hint;
  EXPECT_NE(hint.find("although running as root"), std::string::npos) << hint;
  EXPECT_NE(hint.find("HugePages_Total"), std::string::npos) << hint;
  EXPECT_NE(hint.find("--no-huge -m <MB>"), std::string::npos) << hint;
}

TEST(EalHint, PermissionDeniedAsAUserSaysRootOrAccess) {
  const std::string hint = eal_failure_hint(EACCES, /*root=*/false);
  EXPECT_NE(hint.find("run as root"), std::string::npos) << hint;
  EXPECT_NE(hint.find("--no-huge"), std::string::npos) << hint;
}

TEST(EalHint, OtherErrorsDoNotDependOnTheUser) {
  for (const int err : {EINVAL, ENOMEM, EALREADY, EIO}) {
    EXPECT_EQ(eal_failure_hint(err, true), eal_failure_hint(err, false)) << err;
    EXPECT_EQ(eal_failure_hint(err, true).find("root"), std::string::npos) << err;
  }
}

TEST(EalReason, NoRteErrnoIsNotSuccessButTheSharedFilePrefix) {
  // A second process on the same --file-prefix: rte_eal_init fails and leaves rte_errno 0,
  // which rte_strerror prints as "Success".
  const std::string reason = eal_failure_reason(0, {"--no-huge", "--file-prefix=bench", "-l", "0"});
  EXPECT_EQ(reason.find("Success"), std::string::npos) << reason;
  EXPECT_NE(reason.find("'bench'"), std::string::npos) << reason;
  EXPECT_NE(reason.find("--file-prefix"), std::string::npos) << reason;
  EXPECT_NE(eal_failure_reason(0, {"--file-prefix", "other"}).find("'other'"), std::string::npos);
  // A real errno keeps DPDK's own words.
  EXPECT_EQ(eal_failure_reason(ENOMEM, {}).find("file prefix"), std::string::npos);
}

}  // namespace
}  // namespace qb::drv::dpdk
