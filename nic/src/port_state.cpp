// A real driver's port: which netdev and RDMA device, the QoS check, the counters.
#include "qb/nic/port_state.hpp"

#include <fmt/format.h>
#include <linux/capability.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "qb/nic/permissions.hpp"
#include "qb/nic/recorded.hpp"

namespace qb::nic {
namespace {

namespace fs = std::filesystem;

std::string first_line(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

NicSeams system_nic_seams(const std::string& root) {
  NicSeams seams;
  seams.root = root.empty() ? "/" : root;
  if (seams.root == "/") {
    seams.dcb = make_netlink_dcb_transport();
    seams.ethtool = make_ethtool_ioctl_stats();
    seams.smp = [](const std::string& device, uint8_t port, std::string& why) {
      return make_ibmad_smp_source(device, port, why);
    };
  } else {
    seams.dcb = make_recorded_dcb_transport(seams.root);
    seams.ethtool = make_recorded_ethtool_stats(seams.root);
    const std::string dir = seams.root;
    seams.smp = [dir](const std::string& device, uint8_t port, std::string&) {
      return make_recorded_smp_source(dir, device, port);
    };
  }
  return seams;
}

std::string netdev_of_rdma_port(const std::string& root, const std::string& device, uint8_t port,
                                int gid_index) {
  const fs::path dev = fs::path(root) / "sys/class/infiniband" / device;
  std::string netdev = first_line(dev / "ports" / std::to_string(port) / "gid_attrs/ndevs" /
                                  std::to_string(gid_index));
  if (netdev.empty()) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dev / "device/net", ec)) {
      return entry.path().filename().string();
    }
  }
  return netdev;
}

std::string rdma_device_of_netdev(const std::string& root, const std::string& netdev) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(
           fs::path(root) / "sys/class/net" / netdev / "device/infiniband", ec)) {
    return entry.path().filename().string();
  }
  return {};
}

void PortState::open(std::string rdma_device, uint8_t port, std::string netdev, bool infiniband) {
  device_ = std::move(rdma_device);
  port_ = port;
  infiniband_ = infiniband;
  netdev_ = infiniband ? std::string() : std::move(netdev);
}

Status PortState::check_qos(const policy::QosPlan& plan, const std::vector<uint8_t>& dscps,
                            const std::string& port_label) {
  if (mode_ == QosMode::off) return {};
  const std::string& key = option_key_;
  const policy::PortQos& qos = plan.nic_qos;
  if (!infiniband_) {
    if (qos.kind != policy::PortQos::Kind::ets) {
      // Without [eth] the suite models one class: nothing of the port's to compare.
      if (mode_ == QosMode::apply) {
        return make_error(Errc::invalid_config,
                          "nic_qos = \"apply\" programs the suite's [eth]; the suite has none",
                          key);
      }
      return {};
    }
    if (netdev_.empty()) {
      return make_error(Errc::unavailable,
                        fmt::format("{} has no network interface to read its QoS from (no "
                                    "netdev in {}/sys/class/infiniband/{}/): set nic_qos = "
                                    "\"off\" to run without the check",
                                    port_label, seams_.root == "/" ? "" : seams_.root, device_),
                        key);
    }
    EthQosTarget target;
    target.ifname = netdev_;
    target.port_label = port_label;
    target.suite = qos.eth;
    target.flow_dscps = dscps;
    target.option_key = key;
    const bool net_admin = seams_.net_admin.value_or(has_effective_capability(CAP_NET_ADMIN));
    auto session =
        EthQosSession::begin(*seams_.dcb, seams_.root, target, mode_, net_admin, seams_.state_dir);
    if (!session) return std::move(session).error();
    session_ = std::move(*session);
    notes_(session_->note());
    return {};
  }
  if (qos.kind != policy::PortQos::Kind::vlarb) return {};
  if (mode_ == QosMode::apply) {
    return make_error(Errc::invalid_config,
                      "nic_qos = \"apply\" programs Ethernet DCB; an InfiniBand port's SL2VL and "
                      "VLArb are the subnet manager's (configure OpenSM with the suite's "
                      "opensm.conf)",
                      key);
  }
  // MADs go through the port's umad device: its permission first, with the fix.
  auto umad = umad_device_path(seams_.root, device_, port_);
  if (!umad) {
    return make_error(umad.error().code, umad.error().message + "; or set nic_qos = \"off\"", key);
  }
  if (Status s = check_umad_permission(seams_.root, *umad, key); !s) return s;
  std::string why;
  auto source = seams_.smp ? seams_.smp(device_, port_, why) : nullptr;
  if (!source) {
    return make_error(Errc::unavailable, fmt::format("{}; or set nic_qos = \"off\"", why), key);
  }
  auto state = read_ib_qos(*source, port_);
  if (!state) {
    return make_error(state.error().code,
                      fmt::format("reading the SL2VL/VLArb tables of {}: {}; set nic_qos = "
                                  "\"off\" to run without the check",
                                  port_label, state.error().message),
                      key);
  }
  const auto mismatches = compare_ib_qos(qos.ib, *state);
  if (mismatches.empty()) {
    notes_(
        fmt::format("{}: the port's SL2VL, VLArb tables and high limit (read with "
                    "SMPs) match the suite's [ib]",
                    port_label));
    return {};
  }
  std::vector<std::string> lines;
  for (const QosMismatch& m : mismatches) {
    lines.push_back(fmt::format("  {}: the suite says {}, the port has {}", m.key, m.suite, m.nic));
  }
  return make_error(Errc::unavailable,
                    fmt::format("the arbitration tables of {} (read with SMPs, as smpquery "
                                "sl2vl / vlarb) are not the suite's [ib], so the expectations "
                                "would not apply:\n{}\nFix: run OpenSM with the suite's "
                                "opensm.conf (its qos_ca_* options; `qosbench import-opensm "
                                "--emit-suite` shows what it programs), or make the suite's "
                                "[ib] say what the port has; nic_qos = \"off\" runs anyway",
                                port_label, fmt::join(lines, "\n")),
                    mismatches.front().key);
}

std::vector<CounterSet> PortState::read_counters() {
  std::vector<CounterSet> sets;
  if (!device_.empty()) {
    sets.push_back(read_rdma_hw_counters(seams_.root, device_, port_));
    sets.push_back(read_rdma_port_counters(seams_.root, device_, port_));
  }
  if (!netdev_.empty() && seams_.ethtool) sets.push_back(seams_.ethtool->read(netdev_));
  for (const auto& read : extra_sources_) sets.push_back(read());
  return sets;
}

void PortState::counters_before() {
  if (!counters_ || (device_.empty() && netdev_.empty())) return;
  before_ = read_counters();
  after_.clear();
  for (const CounterSet& set : before_) {
    if (!set.note.empty()) notes_(set.note);
  }
}

void PortState::counters_after() {
  if (!counters_ || before_.empty()) return;
  after_ = read_counters();
}

void PortState::add_stats(std::vector<std::pair<std::string, double>>& stats,
                          CounterDirection direction) const {
  if (!counters_ || before_.empty() || after_.size() != before_.size()) return;
  stats.emplace_back("nic.direction", static_cast<double>(direction));
  double read = 0;
  std::vector<std::string> notes;
  for (size_t i = 0; i < before_.size(); ++i) {
    const auto deltas = counter_deltas(before_[i], after_[i], notes);
    read += static_cast<double>(deltas.size());
    for (const auto& [name, delta] : deltas) {
      if (delta != 0.0 || counter_is_checked(before_[i].source, name)) {
        stats.emplace_back(fmt::format("nic.{}.{}", before_[i].source, name), delta);
      }
    }
  }
  stats.emplace_back("nic.counters_read", read);
  for (const std::string& note : notes) notes_(note);
}

Status PortState::close() {
  if (!session_) return {};
  Status s = session_->restore();
  session_.reset();
  return s;
}

}  // namespace qb::nic
