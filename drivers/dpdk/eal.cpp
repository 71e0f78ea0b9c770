// The process-wide EAL owner: init once, clean up (and remove our runtime directory) at exit.
#include "eal.hpp"

#include <fmt/format.h>

#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_ring.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include "qb/common/exit_cleanup.hpp"

namespace qb::drv::dpdk {
namespace {

constexpr std::string_view kPrefixPrefix = "qosbench-";

bool has_option(const std::vector<std::string>& args, std::string_view option) {
  return std::any_of(args.begin(), args.end(), [&](const std::string& arg) {
    return arg == option ||
           (arg.size() > option.size() && arg.starts_with(option) && arg[option.size()] == '=');
  });
}

std::string join(const std::vector<std::string>& args) {
  std::string out;
  for (const std::string& arg : args) out += (out.empty() ? "" : " ") + arg;
  return out;
}

class EalOwner {
 public:
  ~EalOwner() { release(); }

  /// Closes the ports and the EAL and removes our runtime directory; idempotent (a released
  /// EAL cannot be initialised again in this process: ensure() then fails).
  void release() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!initialised_) return;
    initialised_ = false;
    failure_ = make_error(Errc::runtime, "dpdk: the EAL of this process was released");
    // rte_eal_cleanup (DPDK 22.11) does not close ethdev ports: close ours so that each PMD
    // frees what it holds (net_af_xdp's UMEM from libxdp was leaked at exit; LeakSanitizer).
    // The driver stopped them already (stopping twice logs "already stopped").
    for (uint64_t p = rte_eth_find_next(0); p < RTE_MAX_ETHPORTS;
         p = rte_eth_find_next(static_cast<uint16_t>(p + 1))) {
      rte_eth_dev_close(static_cast<uint16_t>(p));
    }
    rte_eal_cleanup();
    // Only a directory we named: another process may share a user-chosen prefix.
    if (owns_runtime_dir_ && !runtime_dir_.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(runtime_dir_, ignored);
      unregister_exit_cleanup_dir(runtime_dir_.c_str());
    }
  }

  Status ensure(const std::vector<std::string>& args) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (failure_) return *failure_;
    if (initialised_) {
      if (args.empty() || args == requested_) return {};
      return make_error(Errc::runtime,
                        "dpdk: the EAL of this process was initialised with '" + join(requested_) +
                            "'; it cannot be re-initialised with '" + join(args) +
                            "' (one EAL per process: run a separate qosbench process)");
    }
    requested_ = args;
    effective_ = effective_eal_args(args, static_cast<int>(getpid()));
    std::vector<char*> argv;
    static char program[] = "qosbench";
    argv.push_back(program);
    for (std::string& arg : effective_) argv.push_back(arg.data());
    argv.push_back(nullptr);
    // rte_eal_init pins this thread to the main lcore: remember what it had (unpin_main_thread).
    CPU_ZERO(&original_cpus_);
    has_original_cpus_ = ::sched_getaffinity(0, sizeof original_cpus_, &original_cpus_) == 0;
    const int parsed = rte_eal_init(static_cast<int>(argv.size() - 1), argv.data());
    if (parsed < 0) {
      const int err = rte_errno;
      remove_failed_runtime_dir();
      failure_ = make_error(Errc::runtime, "dpdk: EAL initialisation failed with '" +
                                               join(effective_) + "': " +
                                               eal_failure_reason(err, effective_) +
                                               eal_failure_hint(err, geteuid() == 0));
      return *failure_;
    }
    if (parsed + 1 < static_cast<int>(argv.size() - 1)) {
      // rte_eal_init stops at "--": the rest would be application arguments we do not take.
      failure_ =
          make_error(Errc::runtime, "dpdk: unexpected arguments after '--' in the EAL arguments '" +
                                        join(effective_) + "'");
      initialised_ = true;  // EAL state exists: cleaned up at exit
      return *failure_;
    }
    initialised_ = true;
    runtime_dir_ = rte_eal_get_runtime_dir();
    owns_runtime_dir_ =
        !has_option(requested_, "--file-prefix") &&
        std::filesystem::path(runtime_dir_).filename().string().starts_with(kPrefixPrefix);
    // A second Ctrl-C exits at once, without this destructor: it removes the directory then.
    if (owns_runtime_dir_) register_exit_cleanup_dir(runtime_dir_.c_str());
    return {};
  }

  std::string runtime_dir() {
    std::lock_guard<std::mutex> lock(mutex_);
    return runtime_dir_;
  }

  // The CPUs of the thread that initialised the EAL, before rte_eal_init pinned it.
  const cpu_set_t* original_cpus() const { return has_original_cpus_ ? &original_cpus_ : nullptr; }

 private:
  // A failed rte_eal_init may already have made its runtime directory: remove ours.
  void remove_failed_runtime_dir() {
    if (has_option(requested_, "--file-prefix")) return;
    const std::string prefix = std::string(kPrefixPrefix) + std::to_string(getpid());
    std::vector<std::filesystem::path> bases{"/var/run/dpdk"};
    if (const char* xdg = std::getenv("XDG_RUNTIME_DIR"))
      bases.emplace_back(std::string(xdg) + "/dpdk");
    bases.emplace_back("/tmp/dpdk");
    for (const auto& base : bases) {
      std::error_code ignored;
      std::filesystem::remove_all(base / prefix, ignored);
    }
  }

  std::mutex mutex_;
  bool initialised_ = false;
  bool owns_runtime_dir_ = false;
  std::optional<Error> failure_;
  std::vector<std::string> requested_;
  std::vector<std::string> effective_;  // kept alive: rte_eal_init may keep pointers
  std::string runtime_dir_;
  cpu_set_t original_cpus_{};
  bool has_original_cpus_ = false;
};

// The ports nobody owns, like RTE_ETH_FOREACH_DEV (whose cast -Wold-style-cast rejects).
std::vector<uint16_t> free_ports() {
  std::vector<uint16_t> ports;
  for (uint64_t p = rte_eth_find_next_owned_by(0, RTE_ETH_DEV_NO_OWNER); p < RTE_MAX_ETHPORTS;
       p = rte_eth_find_next_owned_by(static_cast<uint16_t>(p + 1), RTE_ETH_DEV_NO_OWNER)) {
    ports.push_back(static_cast<uint16_t>(p));
  }
  return ports;
}

EalOwner& owner() {
  static EalOwner eal;
  return eal;
}

}  // namespace

void release_eal() {
  owner().release();
}

std::vector<std::string> effective_eal_args(const std::vector<std::string>& args, int pid) {
  std::vector<std::string> out = args;
  if (!has_option(args, "--file-prefix")) {
    out.push_back("--file-prefix=" + std::string(kPrefixPrefix) + std::to_string(pid));
  }
  // Our own prefix: nobody attaches as a secondary process, so hugepage files can go at once
  // and none is left behind however the process ends.
  if (!has_option(args, "--file-prefix") && !has_option(args, "--no-huge") &&
      !has_option(args, "--huge-unlink") && !has_option(args, "--in-memory")) {
    out.emplace_back("--huge-unlink");
  }
  if (!has_option(args, "--telemetry") && !has_option(args, "--no-telemetry")) {
    out.emplace_back("--no-telemetry");
  }
  return out;
}

std::string eal_failure_hint(int err, bool root) {
  switch (err) {
    case EINVAL:
      return " (check the EAL arguments: `dpdk-testpmd --help` lists them)";
    case ENOMEM:
      return " (not enough memory: reserve hugepages, or use --no-huge -m <MB>)";
    case EACCES:
      if (root) {
        // Root and still refused: no hugetlbfs mounted or none reserved, or a container that
        // hides /dev/hugepages; "run as root" would send the user in a circle.
        return " (permission denied although running as root: check that hugepages are "
               "reserved (HugePages_Total in /proc/meminfo) and hugetlbfs is mounted (`mount -t "
               "hugetlbfs`; in a container, that /dev/hugepages is shared with it), or run "
               "without them: --no-huge -m <MB>)";
      }
      return " (permission denied: run as root, or give this user access to hugepages and "
             "/dev/vfio; without hugepages: --no-huge -m <MB>)";
    case EALREADY:
      return " (the EAL was already initialised in this process)";
    default:
      return "";
  }
}

std::string eal_failure_reason(int err, const std::vector<std::string>& effective_args) {
  if (err != 0) return rte_strerror(err);
  std::string prefix;
  for (size_t i = 0; i < effective_args.size(); ++i) {
    const std::string& arg = effective_args[i];
    if (arg.starts_with("--file-prefix=")) prefix = arg.substr(arg.find('=') + 1);
    if (arg == "--file-prefix" && i + 1 < effective_args.size()) prefix = effective_args[i + 1];
  }
  return fmt::format(
      "DPDK gave no reason (rte_errno 0; its own log lines above say more). The usual cause is "
      "another DPDK process holding the runtime directory of file prefix '{}' (DPDK's \"Is "
      "another primary process running?\"): give each process its own --file-prefix, or leave "
      "it out (qosbench then takes one per process)",
      prefix);
}

Status ensure_eal(const std::vector<std::string>& args) {
  return owner().ensure(args);
}

std::string eal_runtime_dir() {
  return owner().runtime_dir();
}

namespace {

// "0-2,5" -> 4 CPUs; "(0,1)@2" style groups count as one lcore each.
uint32_t count_cpu_list(std::string_view list) {
  uint32_t count = 0;
  size_t i = 0;
  while (i < list.size()) {
    if (list[i] == '(') {  // --lcores group: one lcore
      const size_t close = list.find(')', i);
      if (close == std::string_view::npos) return count + 1;
      i = close + 1;
      if (i < list.size() && list[i] == '@') {
        i = list.find(',', i);
        if (i == std::string_view::npos) return count + 1;
      }
      ++count;
      if (i < list.size() && list[i] == ',') ++i;
      continue;
    }
    size_t end = list.find(',', i);
    if (end == std::string_view::npos) end = list.size();
    std::string_view item = list.substr(i, end - i);
    if (const size_t at = item.find('@'); at != std::string_view::npos) item = item.substr(0, at);
    unsigned lo = 0;
    unsigned hi = 0;
    const size_t dash = item.find('-');
    std::from_chars(item.data(),
                    item.data() + (dash == std::string_view::npos ? item.size() : dash), lo);
    hi = lo;
    if (dash != std::string_view::npos)
      std::from_chars(item.data() + dash + 1, item.data() + item.size(), hi);
    count += hi >= lo ? hi - lo + 1 : 1;
    i = end + 1;
  }
  return count;
}

std::optional<std::string> option_value(const std::vector<std::string>& args,
                                        std::string_view option) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == option) {
      if (i + 1 < args.size()) return args[i + 1];
      continue;
    }
    if (option.starts_with("--")) {
      if (arg.size() > option.size() && arg.starts_with(option) && arg[option.size()] == '=') {
        return arg.substr(option.size() + 1);
      }
    } else if (arg.size() > option.size() && arg.starts_with(option)) {
      return arg.substr(option.size());  // "-l0,1"
    }
  }
  return std::nullopt;
}

}  // namespace

uint32_t eal_lcore_count(const std::vector<std::string>& args) {
  if (!owner().runtime_dir().empty()) return std::max(1u, rte_lcore_count());
  if (auto list = option_value(args, "--lcores")) return std::max(1u, count_cpu_list(*list));
  if (auto list = option_value(args, "-l")) return std::max(1u, count_cpu_list(*list));
  if (auto mask = option_value(args, "-c")) {
    uint64_t bits = 0;
    std::string_view hex = *mask;
    if (hex.starts_with("0x") || hex.starts_with("0X")) hex.remove_prefix(2);
    std::from_chars(hex.data(), hex.data() + hex.size(), bits, 16);
    return std::max(1, __builtin_popcountll(bits));
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

namespace {

struct ThreadRegistration {
  bool registered = false;
  ~ThreadRegistration() {
    if (registered) rte_thread_unregister();
  }
};
thread_local ThreadRegistration t_registration;

}  // namespace

void bind_worker_thread(uint32_t index) noexcept {
  if (rte_lcore_id() != LCORE_ID_ANY) return;  // an EAL thread (worker 0: the main lcore)
  unsigned lcore = rte_get_next_lcore(static_cast<unsigned>(-1), 0, 0);
  for (uint32_t i = 0; i < index && lcore < RTE_MAX_LCORE; ++i) {
    lcore = rte_get_next_lcore(lcore, 0, 0);
  }
  if (lcore < RTE_MAX_LCORE) {
    rte_cpuset_t cpuset = rte_lcore_cpuset(lcore);
    rte_thread_set_affinity(&cpuset);
  }
  if (rte_thread_register() == 0) t_registration.registered = true;
}

namespace {

bool on_main_lcore() noexcept {
  return !owner().runtime_dir().empty() && rte_lcore_id() == rte_get_main_lcore();
}

}  // namespace

void pin_main_thread() noexcept {
  if (!on_main_lcore()) return;
  rte_cpuset_t cpuset = rte_lcore_cpuset(rte_get_main_lcore());
  rte_thread_set_affinity(&cpuset);
}

void unpin_main_thread() noexcept {
  if (!on_main_lcore()) return;
  if (const cpu_set_t* cpus = owner().original_cpus()) {
    ::sched_setaffinity(0, sizeof *cpus, cpus);
  }
}

std::string describe_ports() {
  std::string out;
  for (uint16_t port : free_ports()) {
    char name[RTE_ETH_NAME_MAX_LEN] = {};
    rte_eth_dev_get_name_by_port(port, name);
    out += (out.empty() ? "" : ", ") + std::to_string(port) + " " + name;
  }
  return out.empty() ? "none" : out;
}

namespace {

constexpr std::string_view kRingPair = "ring_pair:";
constexpr unsigned kRingPairQueues = 4;
constexpr unsigned kRingPairSize = 4096;

// "ring_pair:NAME:0|1": two ports net_ring_NAME0 and net_ring_NAME1 on crossed rings, made on
// first use.
Result<uint16_t> ring_pair_port(std::string_view spec) {
  const std::string_view rest = spec.substr(kRingPair.size());
  const size_t colon = rest.rfind(':');
  if (colon == std::string_view::npos || colon == 0 ||
      (rest.substr(colon + 1) != "0" && rest.substr(colon + 1) != "1")) {
    return make_error(Errc::invalid_config,
                      "dpdk: a ring pair port is 'ring_pair:<name>:0' or "
                      "'ring_pair:<name>:1' (got '" +
                          std::string(spec) + "')");
  }
  const std::string name(rest.substr(0, colon));
  // rte_eth_from_rings names the ports net_ring_<given name>.
  const std::string side(rest.substr(colon + 1));
  const std::string port_name = "net_ring_" + name + side;
  uint16_t port = 0;
  if (rte_eth_dev_get_port_by_name(port_name.c_str(), &port) == 0) return port;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  rte_ring* ab[kRingPairQueues];
  rte_ring* ba[kRingPairQueues];
  for (unsigned q = 0; q < kRingPairQueues; ++q) {
    const std::string ab_name = name + "_ab" + std::to_string(q);
    const std::string ba_name = name + "_ba" + std::to_string(q);
    ab[q] = rte_ring_lookup(ab_name.c_str());
    ba[q] = rte_ring_lookup(ba_name.c_str());
    if (ab[q] == nullptr) ab[q] = rte_ring_create(ab_name.c_str(), kRingPairSize, SOCKET_ID_ANY, 0);
    if (ba[q] == nullptr) ba[q] = rte_ring_create(ba_name.c_str(), kRingPairSize, SOCKET_ID_ANY, 0);
    if (ab[q] == nullptr || ba[q] == nullptr) {
      return make_error(Errc::unavailable, "dpdk: cannot create the rings of ring pair '" + name +
                                               "': " + rte_strerror(rte_errno));
    }
  }
  const std::string name0 = name + "0";
  const std::string name1 = name + "1";
  // Port 0 sends into ab and receives from ba; port 1 the other way round.
  const int port0 = rte_eth_from_rings(name0.c_str(), ba, kRingPairQueues, ab, kRingPairQueues,
                                       static_cast<unsigned>(rte_socket_id()));
  const int port1 = rte_eth_from_rings(name1.c_str(), ab, kRingPairQueues, ba, kRingPairQueues,
                                       static_cast<unsigned>(rte_socket_id()));
  if (port0 < 0 || port1 < 0) {
    return make_error(Errc::unavailable, "dpdk: cannot create the ports of ring pair '" + name +
                                             "': " + rte_strerror(rte_errno));
  }
  return static_cast<uint16_t>(side == "0" ? port0 : port1);
}

}  // namespace

Result<uint16_t> find_port(std::string_view spec) {
  if (spec.starts_with(kRingPair)) return ring_pair_port(spec);
  const std::string hint =
      " (ports: " + describe_ports() +
      "; add one with the EAL arguments, e.g. --vdev net_ring0, or -a <PCI address>)";
  if (spec.empty()) {
    const std::vector<uint16_t> ports = free_ports();
    if (!ports.empty()) return ports.front();
    return make_error(Errc::unavailable, "dpdk: no Ethernet port" + hint);
  }
  uint32_t number = 0;
  const auto [end, ec] = std::from_chars(spec.data(), spec.data() + spec.size(), number);
  if (ec == std::errc() && end == spec.data() + spec.size()) {
    if (number <= UINT16_MAX && rte_eth_dev_is_valid_port(static_cast<uint16_t>(number)) != 0) {
      return static_cast<uint16_t>(number);
    }
    return make_error(Errc::unavailable, "dpdk: there is no port " + std::string(spec) + hint);
  }
  const std::string name(spec.substr(0, spec.find(',')));
  uint16_t port = 0;
  if (rte_eth_dev_get_port_by_name(name.c_str(), &port) == 0) return port;
  // Not there yet: probe it as a device (vdev string or PCI address with devargs).
  const std::string device(spec);
  const int probed = rte_dev_probe(device.c_str());
  if (probed == 0 && rte_eth_dev_get_port_by_name(name.c_str(), &port) == 0) return port;
  return make_error(
      Errc::unavailable,
      "dpdk: port '" + std::string(spec) + "' not found" +
          (probed < 0 ? " (probing it failed: " + std::string(rte_strerror(-probed)) + ")"
                      : std::string()) +
          hint);
}

}  // namespace qb::drv::dpdk
