// Reading counters from sysfs and `ethtool -S` text, and their deltas.
#include "qb/nic/port_counters.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "qb/nic/counter_names.hpp"

namespace qb::nic {
namespace {

namespace fs = std::filesystem;

CounterSet read_counter_dir(const fs::path& dir, std::string source) {
  CounterSet set;
  set.source = std::move(source);
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) files.push_back(entry.path());
  if (ec) {
    set.note = fmt::format(
        "{} not readable ({}): no {} counters (a VF, a container without "
        "sysfs, or a device without them)",
        dir.string(), ec.message(), set.source);
    return set;
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> unreadable;
  for (const fs::path& file : files) {
    const std::string name = file.filename().string();
    if (name == "lifespan") continue;  // hw_counters' update period (ms), a setting
    std::ifstream in(file);
    std::string text;
    if (!in || !std::getline(in, text)) {
      unreadable.push_back(name);
      continue;
    }
    uint64_t value = 0;
    const auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (err != std::errc() || end == text.data()) {
      unreadable.push_back(name);
      continue;
    }
    set.values.emplace_back(name, value);
  }
  if (!unreadable.empty()) {
    set.note =
        fmt::format("{}: {} counter(s) not readable as a number ({}{})", dir.string(),
                    unreadable.size(), unreadable.front(), unreadable.size() > 1 ? ", ..." : "");
  }
  return set;
}

fs::path port_dir(const std::string& root, const std::string& device, uint8_t port) {
  return fs::path(root) / "sys/class/infiniband" / device / "ports" / std::to_string(port);
}

}  // namespace

CounterSet read_rdma_hw_counters(const std::string& sysfs_root, const std::string& device,
                                 uint8_t port) {
  return read_counter_dir(port_dir(sysfs_root, device, port) / "hw_counters", "rdma");
}

CounterSet read_rdma_port_counters(const std::string& sysfs_root, const std::string& device,
                                   uint8_t port) {
  return read_counter_dir(port_dir(sysfs_root, device, port) / "counters", "port");
}

CounterSet parse_ethtool_s(std::string_view text) {
  CounterSet set;
  set.source = "ethtool";
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    const size_t colon = line.rfind(':');
    if (colon == std::string_view::npos) continue;
    std::string_view name = line.substr(0, colon);
    std::string_view value = line.substr(colon + 1);
    while (!name.empty() && (name.front() == ' ' || name.front() == '\t')) name.remove_prefix(1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    uint64_t number = 0;
    const auto [p, err] = std::from_chars(value.data(), value.data() + value.size(), number);
    if (name.empty() || err != std::errc() || p == value.data()) continue;  // "NIC statistics:"
    set.values.emplace_back(std::string(name), number);
  }
  return set;
}

std::vector<std::pair<std::string, double>> counter_deltas(const CounterSet& before,
                                                           const CounterSet& after,
                                                           std::vector<std::string>& notes) {
  std::map<std::string_view, uint64_t> first;
  for (const auto& [name, value] : before.values) first.emplace(name, value);
  std::vector<std::pair<std::string, double>> out;
  std::vector<std::string> went_down;
  for (const auto& [name, value] : after.values) {
    const auto it = first.find(name);
    if (it == first.end()) continue;
    if (value < it->second) {
      went_down.push_back(name);
      continue;
    }
    out.emplace_back(name, static_cast<double>(value - it->second));
  }
  if (!went_down.empty()) {
    notes.push_back(fmt::format(
        "{} counter(s) of {} went down during the repetition (reset or "
        "wrapped), left out: {}{}",
        went_down.size(), after.source, went_down.front(), went_down.size() > 1 ? ", ..." : ""));
  }
  return out;
}

bool counter_is_checked(std::string_view source, std::string_view name) noexcept {
  if (source == "rdma") {
    return std::find(std::begin(kRdmaCheckedCounters), std::end(kRdmaCheckedCounters), name) !=
           std::end(kRdmaCheckedCounters);
  }
  if (source == "ethtool" || source == "dpdk") return priority_counter(name).has_value();
  return false;
}

}  // namespace qb::nic
