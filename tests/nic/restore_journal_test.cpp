// The restore journal (nic_qos = "apply"): written before the first DCB write, removed after a
// verified restore, kept (and the port noted for the verdict) when the restore fails; a killed
// run's journal is put back first by the next apply run and stops a check run with the command;
// a second signal's exit prints that command.
#include "qb/nic/restore_journal.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fake_dcb_port.hpp"
#include "qb/common/exit_cleanup.hpp"
#include "qb/nic/eth_qos_check.hpp"
#include "qb/nic/eth_qos_session.hpp"
#include "qb/nic/left_changed.hpp"
#include "qb/nic/recorded.hpp"

namespace qb::nic {
namespace {

namespace fs = std::filesystem;
const std::string kFixtures = std::string(QB_SOURCE_DIR) + "/tests/nic/fixtures";
const std::string kRoot = "/nonexistent";  // no sysfs: the trust follows the APP table

EthQosState fixture(const std::string& name) {
  std::ifstream in(kFixtures + "/" + name + "/dcb/ens1f0np0.hex");
  std::stringstream text;
  text << in.rdbuf();
  auto state = decode_ieee_get_reply(*parse_hex(text.str()), "ens1f0np0");
  EXPECT_TRUE(state.ok());
  return *state;
}

// configs/roce_ets.toml's [eth] (as in eth_qos_test.cpp).
policy::EthPortQos roce_ets_suite() {
  policy::EthPortQos q = policy::default_eth_port_qos();
  q.trust = policy::EthTrust::dscp;
  for (uint8_t i = 0; i < 8; ++i) q.prio_tc[i] = i;
  q.tsa.fill(policy::TcSelect::ets);
  q.tsa[5] = policy::TcSelect::strict;
  q.ets_percent = {40, 60, 0, 0, 0, 0, 0, 0};
  q.tc_max_rate_bps[5] = policy::hw_tc_max_rate_bps(10'000'000);
  return q;
}

EthQosTarget roce_ets_target() {
  return EthQosTarget{
      "ens1f0np0", "mlx5_0 port 1", roce_ets_suite(), {46, 0, 10}, "driver.verbs.nic_qos"};
}

// A pid that no process has: a child that has exited and been reaped.
int dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return static_cast<int>(child);
}

// The port seen through a wrapper that notes whether the journal was on disk at the first write.
class WatchedPort final : public DcbTransport {
 public:
  WatchedPort(test::FakeDcbPort& port, std::string journal)
      : port_(port), journal_(std::move(journal)) {}
  Result<std::vector<uint8_t>> exchange(std::span<const uint8_t> request) override {
    dcbmsg dcb{};
    std::memcpy(&dcb, request.data() + NLMSG_HDRLEN, sizeof dcb);
    if (dcb.cmd != DCB_CMD_IEEE_GET && !first_write_seen) {
      first_write_seen = true;
      journal_at_first_write = fs::exists(journal_);
    }
    return port_.exchange(request);
  }
  bool first_write_seen = false;
  bool journal_at_first_write = false;

 private:
  test::FakeDcbPort& port_;
  std::string journal_;
};

TEST(RestoreJournal, RoundTripsTheStateAndLeavesNoTemporaryFile) {
  const test::TempStateDir dir;
  RestoreJournal journal;
  journal.pid = 4242;
  journal.ifname = "ens1f0np0";
  journal.root = "/srv/recording";
  journal.before = fixture("roce_ets");
  journal.before.sysfs_trust = "dscp";
  const std::string path = journal_path(dir.path, "ens1f0np0", journal.root);
  EXPECT_NE(path, journal_path(dir.path, "ens1f0np0", "/"));  // a recording has its own
  ASSERT_TRUE(write_journal(path, journal).ok());
  auto read = read_journal(path);
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->pid, 4242);
  EXPECT_EQ(read->ifname, "ens1f0np0");
  EXPECT_EQ(read->root, "/srv/recording");
  EXPECT_EQ(read->before.sysfs_trust, "dscp");
  EXPECT_TRUE(state_differences(journal.before, read->before).empty());
  EXPECT_EQ(list_journals(dir.path), std::vector<std::string>{path});
  size_t files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir.path)) ++files;
  EXPECT_EQ(files, 1U);
  struct stat st {};
  ASSERT_EQ(::stat(dir.path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700U);
}

TEST(RestoreJournal, AJournalCutShortIsNamedNotGuessed) {
  const test::TempStateDir dir;
  fs::create_directories(dir.path);
  const std::string path = dir.path + "/eth0.journal";
  std::ofstream(path) << "qosbench-nic-restore-journal 1\npid 12\nifname eth0\n";
  auto read = read_journal(path);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().code, Errc::io);
  EXPECT_NE(read.error().message.find(path), std::string::npos);
  EXPECT_NE(read.error().message.find("cut short"), std::string::npos) << read.error().message;
  std::ofstream(path) << "something else\n";
  EXPECT_NE(read_journal(path).error().message.find(path + ":1:"), std::string::npos);
}

TEST(RestoreJournal, ApplyJournalsBeforeTheFirstWriteAndRemovesItAfterTheRestore) {
  const test::TempStateDir dir;
  const EthQosState before = fixture("pcp_defaults");
  test::FakeDcbPort port(before);
  const std::string journal = journal_path(dir.path, "ens1f0np0", kRoot);
  WatchedPort watched(port, journal);
  auto session = EthQosSession::begin(watched, kRoot, roce_ets_target(), QosMode::apply, true);
  ASSERT_TRUE(session.ok()) << session.error().message;
  EXPECT_TRUE(watched.first_write_seen);
  EXPECT_TRUE(watched.journal_at_first_write);
  EXPECT_EQ((*session)->journal(), journal);
  auto on_disk = read_journal(journal);
  ASSERT_TRUE(on_disk.ok());
  EXPECT_EQ(on_disk->pid, static_cast<int>(::getpid()));
  EXPECT_TRUE(state_differences(before, on_disk->before).empty());
  EXPECT_NE((*session)->note().find("qosbench nic-restore --state-dir " + dir.path),
            std::string::npos)
      << (*session)->note();
  ASSERT_TRUE((*session)->restore().ok());
  EXPECT_FALSE(fs::exists(journal));
  EXPECT_TRUE(state_differences(before, port.state_).empty());
}

TEST(RestoreJournal, AFailedRestoreKeepsTheJournalAndIsNotedForTheVerdict) {
  const test::TempStateDir dir;
  (void)take_ports_left_changed();
  test::FakeDcbPort port(fixture("pcp_defaults"));
  auto session = EthQosSession::begin(port, kRoot, roce_ets_target(), QosMode::apply, true);
  ASSERT_TRUE(session.ok());
  port.refuse_sets = true;
  const Status s = (*session)->restore();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("qosbench nic-restore --state-dir " + dir.path),
            std::string::npos)
      << s.error().message;
  EXPECT_TRUE(fs::exists(journal_path(dir.path, "ens1f0np0", kRoot)));
  const auto left = take_ports_left_changed();
  ASSERT_EQ(left.size(), 1U);
  EXPECT_NE(left[0].find("the QoS of ens1f0np0 was not put back"), std::string::npos) << left[0];
  EXPECT_TRUE(take_ports_left_changed().empty());  // taken once
}

// The port as a killed run left it: the suite's settings on it, the journal holding its own.
struct KilledRun {
  test::TempStateDir dir;
  EthQosState own = fixture("pcp_defaults");
  test::FakeDcbPort port{fixture("roce_ets")};
  std::string journal = journal_path(dir.path, "ens1f0np0", kRoot);
  explicit KilledRun(int pid) {
    RestoreJournal entry;
    entry.pid = pid;
    entry.ifname = "ens1f0np0";
    entry.root = kRoot;
    entry.before = own;
    EXPECT_TRUE(write_journal(journal, entry).ok());
  }
};

TEST(RestoreJournal, TheNextApplyRunPutsAKilledRunsPortBackFirst) {
  KilledRun killed(dead_pid());
  auto session = EthQosSession::begin(killed.port, kRoot, roce_ets_target(), QosMode::apply, true);
  ASSERT_TRUE(session.ok()) << session.error().message;
  EXPECT_NE((*session)->note().find("put back as it was before a run that did not end"),
            std::string::npos)
      << (*session)->note();
  // What the run restores to is the port's own state, not the killed run's suite's.
  EXPECT_TRUE(state_differences(killed.own, (*session)->before()).empty());
  ASSERT_TRUE((*session)->restore().ok());
  EXPECT_TRUE(state_differences(killed.own, killed.port.state_).empty());
  EXPECT_FALSE(fs::exists(killed.journal));
}

TEST(RestoreJournal, ACheckRunStopsOnAKilledRunsJournalWithTheCommand) {
  KilledRun killed(dead_pid());
  auto session = EthQosSession::begin(killed.port, kRoot, roce_ets_target(), QosMode::check, true);
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.error().code, Errc::unavailable);
  EXPECT_NE(session.error().message.find("qosbench nic-restore --state-dir " + killed.dir.path),
            std::string::npos)
      << session.error().message;
  EXPECT_NE(session.error().message.find("--apply-qos"), std::string::npos);
  EXPECT_TRUE(killed.port.cmds.empty());  // nothing read, nothing written
  EXPECT_TRUE(fs::exists(killed.journal));
}

TEST(RestoreJournal, ARunningRunsJournalIsLeftAlone) {
  KilledRun running(static_cast<int>(::getppid()));
  auto session = EthQosSession::begin(running.port, kRoot, roce_ets_target(), QosMode::apply, true);
  ASSERT_FALSE(session.ok());
  EXPECT_NE(session.error().message.find("another qosbench run (pid"), std::string::npos)
      << session.error().message;
  EXPECT_TRUE(running.port.cmds.empty());
  EXPECT_TRUE(fs::exists(running.journal));
}

TEST(RestoreJournal, ASecondSignalsExitLeavesTheJournalAndPrintsTheCommand) {
  const test::TempStateDir dir;
  int out[2];
  ASSERT_EQ(::pipe(out), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    ::dup2(out[1], STDERR_FILENO);
    test::FakeDcbPort port(fixture("pcp_defaults"));
    auto session = EthQosSession::begin(port, kRoot, roce_ets_target(), QosMode::apply, true);
    if (!session.ok()) ::_exit(9);
    exit_now(130);  // what on_interrupt does on a second SIGINT: no destructor runs
  }
  ::close(out[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(out[0], buffer, sizeof buffer)) > 0;) text.append(buffer, n);
  ::close(out[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_NE(text.find("the QoS of ens1f0np0 is left as the suite set it"), std::string::npos)
      << text;
  EXPECT_NE(text.find("put it back with: qosbench nic-restore --state-dir " + dir.path),
            std::string::npos)
      << text;
  auto journal = read_journal(journal_path(dir.path, "ens1f0np0", kRoot));
  ASSERT_TRUE(journal.ok());
  EXPECT_TRUE(state_differences(fixture("pcp_defaults"), journal->before).empty());
}

}  // namespace
}  // namespace qb::nic
