// An IB port's SL2VL/VLArb read back through SMPs (the data layout smpquery reads: PortInfo's
// fields where libibmad's field table puts them, SL2VL two SLs a byte with the even SL in the
// high nibble, VLArb 32 (VL, weight) pairs a block) and compared with the suite's [ib]; the
// umad permission checked first with the fix.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "qb/nic/ib_qos_state.hpp"
#include "qb/nic/permissions.hpp"

namespace qb::nic {
namespace {

namespace fs = std::filesystem;

class ReplaySmp final : public SmpSource {
 public:
  std::map<std::pair<uint16_t, uint32_t>, std::array<uint8_t, 64>> answers;
  Result<std::array<uint8_t, 64>> get(uint16_t attribute, uint32_t modifier) override {
    auto it = answers.find({attribute, modifier});
    if (it == answers.end()) return make_error(Errc::runtime, "no answer");
    return it->second;
  }
};

// A CA port programmed with OpenSM's defaults for 8 data VLs: SL i -> VL i % 8, low table
// VL0..7 weight 4, high table empty, high limit 0; VLArb capacities 8/8, OperVLs 4 (VL0-7).
ReplaySmp opensm_default_port() {
  ReplaySmp smp;
  std::array<uint8_t, 64> info{};
  info[304 / 8] = 0;       // VLHighLimit
  info[312 / 8] = 8;       // VLArbitrationHighCap
  info[320 / 8] = 8;       // VLArbitrationLowCap
  info[344 / 8] = 4 << 4;  // OperationalVLs in the high nibble
  smp.answers[{0x15, 1}] = info;
  std::array<uint8_t, 64> sl2vl{};
  for (int sl = 0; sl < 16; sl += 2)
    sl2vl[sl / 2] = static_cast<uint8_t>((sl % 8) << 4 | ((sl + 1) % 8));
  smp.answers[{0x17, 0}] = sl2vl;
  std::array<uint8_t, 64> low{}, high{};
  for (int e = 0; e < 8; ++e) {
    low[2 * e] = static_cast<uint8_t>(e);
    low[2 * e + 1] = 4;
  }
  smp.answers[{0x18, (1U << 16) | 1}] = low;
  smp.answers[{0x18, (3U << 16) | 1}] = high;
  return smp;
}

policy::IbArbitration suite_tables() {
  policy::IbArbitration ib;
  for (int sl = 0; sl < 16; ++sl) ib.tables.sl2vl[sl] = static_cast<uint8_t>(sl % 8);
  for (uint8_t vl = 0; vl < 8; ++vl) ib.tables.vlarb_low.push_back({vl, 4});
  ib.tables.vlarb_high.assign(8, {0, 0});
  ib.tables.high_limit = 0;
  ib.op_vls = 4;
  return ib;
}

TEST(IbQos, ReadsThePortsTablesFromSmps) {
  ReplaySmp smp = opensm_default_port();
  auto state = read_ib_qos(smp, 1);
  ASSERT_TRUE(state.ok()) << state.error().message;
  EXPECT_EQ(state->op_vls, 4);
  EXPECT_EQ(state->vlarb_low_cap, 8);
  EXPECT_EQ(state->sl2vl[9], 1);
  EXPECT_EQ(state->sl2vl[14], 6);
  ASSERT_EQ(state->vlarb_low.size(), 8U);
  EXPECT_EQ(state->vlarb_low[7], (policy::VlArbEntry{7, 4}));
  EXPECT_TRUE(compare_ib_qos(suite_tables(), *state).empty());
}

TEST(IbQos, ADifferentTableIsNamedWithThePortsValue) {
  ReplaySmp smp = opensm_default_port();
  auto& low = smp.answers[{0x18, (1U << 16) | 1}];
  low[1] = 64;  // VL0 weight 64: the port was programmed by another opensm.conf
  smp.answers[{0x17, 0}][0] = 0x01;  // SL0 -> VL0, SL1 -> VL1 ... SL0 now VL0, SL1 VL1: same
  auto state = read_ib_qos(smp, 1);
  ASSERT_TRUE(state.ok());
  const auto m = compare_ib_qos(suite_tables(), *state);
  ASSERT_EQ(m.size(), 1U);
  EXPECT_EQ(m[0].key, "ib.vlarb_low");
  EXPECT_EQ(m[0].nic, "\"0:64,1:4,2:4,3:4,4:4,5:4,6:4,7:4\"");
  smp.answers[{0x17, 0}][0] = 0x21;  // SL0 -> VL2
  state = read_ib_qos(smp, 1);
  EXPECT_EQ(compare_ib_qos(suite_tables(), *state)[0].key, "ib.sl2vl");
}

TEST(IbQos, NoAnswerIsAnError) {
  ReplaySmp smp;
  EXPECT_FALSE(read_ib_qos(smp, 1).ok());
}

TEST(IbQos, UmadDeviceAndItsPermission) {
  const fs::path root =
      fs::temp_directory_path() / (std::string("qb_nic_umad") + "." + std::to_string(::getpid()));
  fs::create_directories(root / "sys/class/infiniband_mad/umad1");
  fs::create_directories(root / "dev/infiniband");
  std::ofstream(root / "sys/class/infiniband_mad/umad1/ibdev") << "mlx5_1\n";
  std::ofstream(root / "sys/class/infiniband_mad/umad1/port") << "1\n";
  auto path = umad_device_path(root.string(), "mlx5_1", 1);
  ASSERT_TRUE(path.ok()) << path.error().message;
  EXPECT_EQ(*path, "/dev/infiniband/umad1");
  EXPECT_FALSE(umad_device_path(root.string(), "mlx5_1", 2).ok());
  EXPECT_NE(umad_device_path(root.string(), "mlx5_1", 2).error().message.find("modprobe ib_umad"),
            std::string::npos);
  // Absent (as for a user who may not open it): the error names the device and the fixes.
  Status s = check_umad_permission(root.string(), *path, "driver.verbs.nic_qos");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, Errc::unavailable);
  EXPECT_EQ(s.error().where, "driver.verbs.nic_qos");
  EXPECT_NE(s.error().message.find("chmod 0666 /dev/infiniband/umad1"), std::string::npos);
  std::ofstream(root / "dev/infiniband/umad1") << "";
  ::chmod((root / "dev/infiniband/umad1").c_str(), 0600);
  EXPECT_TRUE(check_umad_permission(root.string(), *path, "k").ok());
  fs::remove_all(root);
}

TEST(Permissions, CapNetAdminMissingNamesTheFix) {
  EXPECT_TRUE(check_dcb_write_permission(true, "eth0", "k").ok());
  Status s = check_dcb_write_permission(false, "eth0", "driver.verbs.nic_qos");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, Errc::unavailable);
  EXPECT_NE(s.error().message.find("--cap-add NET_ADMIN"), std::string::npos);
}

}  // namespace
}  // namespace qb::nic
