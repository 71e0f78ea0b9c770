// The locked-memory limit: what a run pins (buffers; on mlx5 the queues), the refusal with the
// exact fix, and the driver checking it before it makes anything.
#include "locked_memory.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fake_mlx5.hpp"
#include "verbs_driver.hpp"

namespace qb::drv::verbs {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// mlx5_two_groups on one worker: 8 flow instances, 4 KiB messages, loopback.
PinnedBytes two_groups(bool mlx5_queues) {
  const std::vector<uint32_t> flows{8};
  PinnedShape shape;
  shape.flows_per_worker = flows;
  shape.buffer_bytes = 4096;
  shape.send_queue_depth = 256;
  shape.ring_slots = 512;
  shape.mlx5_queues = mlx5_queues;
  return pinned_bytes_lower_bound(shape);
}

TEST(VerbsLockedMemory, PinnedBytesAreBuffersAndMlx5Queues) {
  const PinnedBytes pinned = two_groups(true);
  EXPECT_EQ(pinned.buffers, 2u * 4096);
  // CQs: 8 x 256 and 8 x 512 CQEs of 64 bytes; QPs: 8 x 256 send WQEs of 64 bytes, 8 x 512
  // receive WQEs of 16.
  EXPECT_EQ(pinned.queues, 131072u + 262144u + 8u * 16384 + 8u * 8192);
  // Soft-RoCE: its queues are the kernel's, not pinned user memory.
  EXPECT_EQ(two_groups(false).queues, 0u);
  EXPECT_EQ(two_groups(false).buffers, 2u * 4096);
}

TEST(VerbsLockedMemory, LowLimitIsExitThreeWithTheUlimitFix) {
  const PinnedBytes pinned = two_groups(true);  // 598016 bytes: 584 KiB
  LockedMemoryLimit limit;
  limit.soft_bytes = 64 * 1024;
  limit.hard_bytes = kUnlimitedBytes;
  const Status s = check_locked_memory(limit, pinned, "mlx5_0");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, Errc::unavailable);  // exit 3
  const std::string& m = s.error().message;
  EXPECT_TRUE(contains(m, "locked-memory limit (RLIMIT_MEMLOCK, `ulimit -l`) is 64 KiB")) << m;
  EXPECT_TRUE(contains(m, "on mlx5_0 pins at least 584 KiB")) << m;
  EXPECT_TRUE(contains(m, "8 KiB of message buffers and 576 KiB of QP and CQ queues")) << m;
  EXPECT_TRUE(contains(m, "`ulimit -l unlimited` (or at least `ulimit -l 584`)")) << m;
  // A limit that holds it, or none, or the capability: no error.
  limit.soft_bytes = pinned.total();
  EXPECT_TRUE(check_locked_memory(limit, pinned, "mlx5_0").ok());
  limit.soft_bytes = pinned.total() - 1;
  EXPECT_FALSE(check_locked_memory(limit, pinned, "mlx5_0").ok());
  limit.cap_ipc_lock = true;
  EXPECT_TRUE(check_locked_memory(limit, pinned, "mlx5_0").ok());
  limit = LockedMemoryLimit{};
  EXPECT_TRUE(check_locked_memory(limit, pinned, "mlx5_0").ok());
}

// A hard limit below the need: `ulimit -l` cannot raise it; the fix is root's.
TEST(VerbsLockedMemory, LowHardLimitNamesLimitsConfSystemdAndContainers) {
  LockedMemoryLimit limit;
  limit.soft_bytes = 4 * 1024;
  limit.hard_bytes = 4 * 1024;
  const Status s = check_locked_memory(limit, two_groups(false), "rxe0");
  ASSERT_FALSE(s.ok());
  const std::string& m = s.error().message;
  EXPECT_TRUE(contains(m, "(8 KiB of message buffers)")) << m;
  EXPECT_TRUE(contains(m, "the hard limit is 4 KiB too")) << m;
  EXPECT_TRUE(contains(m, "* hard memlock unlimited")) << m;
  EXPECT_TRUE(contains(m, "/etc/security/limits.conf")) << m;
  EXPECT_TRUE(contains(m, "LimitMEMLOCK=infinity")) << m;
  EXPECT_TRUE(contains(m, "--ulimit memlock=-1")) << m;
  EXPECT_TRUE(contains(m, "CAP_IPC_LOCK")) << m;
}

TEST(VerbsLockedMemory, ThisProcessesLimitReads) {
  const LockedMemoryLimit limit = read_locked_memory_limit();
  EXPECT_LE(limit.soft_bytes, limit.hard_bytes);
}

// The driver refuses before it makes anything: no PD, MR, CQ or QP was asked for.
TEST(VerbsLockedMemory, DriverChecksBeforeMakingAnything) {
  policy::QosPlan plan;
  plan.wire = policy::WireModel{policy::Transport::rocev2, 4096};
  Topology topology;
  topology.port_rate_bps = 100e9;
  topology.wire = plan.wire;
  topology.flow_count = 8;
  topology.max_message_bytes = 4096;
  FakeDeviceConfig device = fake_device_for_port(100e9, plan.wire, 0);
  device.locked_memory.soft_bytes = 512 * 1024;
  device.locked_memory.hard_bytes = kUnlimitedBytes;
  {
    FakeMlx5 fake(device);
    auto driver = make_verbs_driver(VerbsConfig{}, &fake);
    const Status opened = driver->open(topology);
    ASSERT_FALSE(opened.ok());
    EXPECT_EQ(opened.error().code, Errc::unavailable);
    EXPECT_TRUE(contains(opened.error().message, "`ulimit -l 584`")) << opened.error().message;
    for (const auto& call : fake.calls()) {
      for (const char* made : {"alloc_pd", "reg_mr", "create_cq", "create_qp"}) {
        EXPECT_FALSE(call.starts_with(made)) << call;
      }
    }
    driver->close();
    EXPECT_EQ(fake.live().total(), 0u) << fake.live().describe();
  }
  device.locked_memory.soft_bytes = 1024 * 1024;
  FakeMlx5 fake(device);
  auto driver = make_verbs_driver(VerbsConfig{}, &fake);
  const Status opened = driver->open(topology);
  EXPECT_TRUE(opened.ok()) << opened.error().to_string();
  driver->close();
}

}  // namespace
}  // namespace qb::drv::verbs
