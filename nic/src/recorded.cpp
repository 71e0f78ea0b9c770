// Replaying a machine's recorded NIC answers from a directory (nic_root).
#include "qb/nic/recorded.hpp"

#include <fmt/format.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "qb/nic/dcb_apply.hpp"
#include "qb/nic/dcb_netlink.hpp"

namespace qb::nic {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> slurp(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The answer to a set: DCB_ATTR_IEEE as a u8 status, as the kernel's dcbnl_ieee_set sends it.
std::vector<uint8_t> set_status_reply(uint32_t seq, int status) {
  std::vector<uint8_t> out(NLMSG_HDRLEN + sizeof(dcbmsg) + NLA_ALIGN(NLA_HDRLEN + 1), 0);
  nlmsghdr header{};
  header.nlmsg_len = static_cast<uint32_t>(out.size());
  header.nlmsg_type = RTM_SETDCB;
  header.nlmsg_seq = seq;
  std::memcpy(out.data(), &header, sizeof header);
  dcbmsg dcb{};
  dcb.cmd = DCB_CMD_IEEE_SET;
  std::memcpy(out.data() + NLMSG_HDRLEN, &dcb, sizeof dcb);
  nlattr attr{};
  attr.nla_len = NLA_HDRLEN + 1;
  attr.nla_type = DCB_ATTR_IEEE;
  std::memcpy(out.data() + NLMSG_HDRLEN + sizeof dcb, &attr, sizeof attr);
  out[NLMSG_HDRLEN + sizeof dcb + NLA_HDRLEN] = static_cast<uint8_t>(static_cast<int8_t>(status));
  return out;
}

// "KEY N" on a line of a takes-sets marker; -1 when absent.
long marker_value(const std::string& marker, std::string_view key) {
  std::istringstream lines(marker);
  for (std::string line; std::getline(lines, line);) {
    if (line.size() > key.size() && line.starts_with(key) && line[key.size()] == ' ') {
      return std::strtol(line.c_str() + key.size() + 1, nullptr, 10);
    }
  }
  return -1;
}

// Replaces `path` whole (temporary file, rename): a reader in another process never sees half.
bool replace_file(const fs::path& path, const std::string& text) {
  const fs::path temp = path.string() + ".tmp";
  {
    std::ofstream out(temp, std::ios::trunc);
    out << text;
    if (!out.flush()) return false;
  }
  std::error_code ec;
  fs::rename(temp, path, ec);
  return !ec;
}

class RecordedDcb final : public DcbTransport {
 public:
  explicit RecordedDcb(std::string dir) : dir_(std::move(dir)) {}
  Result<std::vector<uint8_t>> exchange(std::span<const uint8_t> request) override {
    nlmsghdr header{};
    if (request.size() < NLMSG_HDRLEN + sizeof(dcbmsg)) {
      return make_error(Errc::runtime, "recorded DCB: a short request");
    }
    std::memcpy(&header, request.data(), sizeof header);
    dcbmsg dcb{};
    std::memcpy(&dcb, request.data() + NLMSG_HDRLEN, sizeof dcb);
    // The interface name: the first attribute (DCB_ATTR_IFNAME), as encode_* writes it.
    const size_t at = NLMSG_HDRLEN + sizeof(dcbmsg) + NLA_HDRLEN;
    const std::string ifname(reinterpret_cast<const char*>(request.data() + at),
                             strnlen(reinterpret_cast<const char*>(request.data() + at),
                                     request.size() - std::min(request.size(), at)));
    const fs::path path = fs::path(dir_) / "dcb" / (ifname + ".hex");
    if (dcb.cmd != DCB_CMD_IEEE_GET) {
      const fs::path takes = fs::path(dir_) / "dcb" / (ifname + ".takes-sets");
      if (!fs::exists(takes)) {
        return make_error(Errc::runtime, fmt::format("recorded DCB state of {} ({}): a "
                                                     "recording cannot take a setting",
                                                     ifname, dir_));
      }
      return take_setting(request, header.nlmsg_seq, dcb.cmd, ifname, path, takes);
    }
    const auto text = slurp(path);
    if (!text) {
      return make_error(
          Errc::runtime,
          fmt::format("no recorded DCB answer for {} ({} not readable)", ifname, path.string()));
    }
    auto bytes = parse_hex(*text);
    if (!bytes || bytes->size() < sizeof header) {
      return make_error(Errc::io, fmt::format("{}: not a hex netlink message", path.string()));
    }
    // The recording answers this request: its sequence number.
    std::memcpy(bytes->data() + offsetof(nlmsghdr, nlmsg_seq), &header.nlmsg_seq,
                sizeof header.nlmsg_seq);
    return std::move(*bytes);
  }

 private:
  // A recording made a fake port (DIR/dcb/<netdev>.takes-sets, for tests of a run that
  // programs a port from another process): the setting is applied to the recorded state and
  // written back. The marker may hold lines "sets_left N" (after N settings every one is
  // refused with EIO: a port that cannot be put back) and "delay_ms N" (each setting takes
  // that long: a slow firmware).
  Result<std::vector<uint8_t>> take_setting(std::span<const uint8_t> request, uint32_t seq,
                                            uint8_t cmd, const std::string& ifname,
                                            const fs::path& path, const fs::path& takes) {
    const std::string marker = slurp(takes).value_or("");
    const long sets_left = marker_value(marker, "sets_left");
    // A slow port (firmware commands of 100s of ms): a signal can land during a restore.
    if (const long delay_ms = marker_value(marker, "delay_ms"); delay_ms > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    }
    if (sets_left == 0) return set_status_reply(seq, -EIO);
    const auto text = slurp(path);
    auto bytes = text ? parse_hex(*text) : std::nullopt;
    if (!bytes) return make_error(Errc::io, fmt::format("{}: not readable hex", path.string()));
    auto state = decode_ieee_get_reply(*bytes, ifname);
    if (!state) return std::move(state).error();
    auto asked = decode_ieee_get_reply(request, ifname);
    if (!asked) return set_status_reply(seq, -EINVAL);
    const DcbIeeeSet set{asked->ets, asked->maxrate, asked->pfc, asked->apps};
    const int status = apply_dcb_request(*state, set, cmd == DCB_CMD_IEEE_DEL);
    if (status != 0) return set_status_reply(seq, status);
    const DcbIeeeSet now{state->ets, state->maxrate, state->pfc, state->apps};
    std::string hex;
    for (const uint8_t b : encode_ieee_set(ifname, 0, now)) hex += fmt::format("{:02x}", b);
    if (!replace_file(path, hex + "\n")) return set_status_reply(seq, -EIO);
    if (sets_left > 0) {
      std::string rest;  // the marker's other lines, kept
      std::istringstream lines(marker);
      for (std::string line; std::getline(lines, line);) {
        if (!line.starts_with("sets_left ")) rest += line + "\n";
      }
      if (!replace_file(takes, fmt::format("{}sets_left {}\n", rest, sets_left - 1))) {
        return set_status_reply(seq, -EIO);
      }
    }
    return set_status_reply(seq, 0);
  }

  std::string dir_;
};

class RecordedEthtool final : public EthtoolStats {
 public:
  explicit RecordedEthtool(std::string dir) : dir_(std::move(dir)) {}
  CounterSet read(const std::string& ifname) override {
    const fs::path path = fs::path(dir_) / "ethtool" / (ifname + ".txt");
    const auto text = slurp(path);
    if (!text) {
      CounterSet set;
      set.source = "ethtool";
      set.note =
          fmt::format("ethtool statistics of {} not readable ({} missing)", ifname, path.string());
      return set;
    }
    return parse_ethtool_s(*text);
  }

 private:
  std::string dir_;
};

class RecordedSmp final : public SmpSource {
 public:
  explicit RecordedSmp(fs::path dir) : dir_(std::move(dir)) {}
  Result<std::array<uint8_t, 64>> get(uint16_t attribute, uint32_t modifier) override {
    const fs::path path = dir_ / fmt::format("{:x}-{:x}.hex", attribute, modifier);
    const auto text = slurp(path);
    if (!text) {
      return make_error(Errc::runtime, fmt::format("SMP Get of attribute {:#x} (modifier {:#x}) "
                                                   "got no answer ({} missing)",
                                                   attribute, modifier, path.string()));
    }
    auto bytes = parse_hex(*text);
    if (!bytes || bytes->size() != 64) {
      return make_error(Errc::io, fmt::format("{}: not 64 hex bytes", path.string()));
    }
    std::array<uint8_t, 64> out{};
    std::memcpy(out.data(), bytes->data(), 64);
    return out;
  }

 private:
  fs::path dir_;
};

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::optional<std::vector<uint8_t>> parse_hex(std::string_view text) {
  std::vector<uint8_t> out;
  int high = -1;
  bool comment = false;
  for (const char c : text) {
    if (comment) {
      comment = c != '\n';
      continue;
    }
    if (c == '#') {
      comment = true;
      continue;
    }
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') continue;
    const int d = hex_digit(c);
    if (d < 0) return std::nullopt;
    if (high < 0) {
      high = d;
    } else {
      out.push_back(static_cast<uint8_t>(high << 4 | d));
      high = -1;
    }
  }
  if (high >= 0) return std::nullopt;
  return out;
}

std::unique_ptr<DcbTransport> make_recorded_dcb_transport(const std::string& dir) {
  return std::make_unique<RecordedDcb>(dir);
}
std::unique_ptr<EthtoolStats> make_recorded_ethtool_stats(const std::string& dir) {
  return std::make_unique<RecordedEthtool>(dir);
}
std::unique_ptr<SmpSource> make_recorded_smp_source(const std::string& dir,
                                                    const std::string& device, uint8_t port) {
  return std::make_unique<RecordedSmp>(fs::path(dir) / "mad" / fmt::format("{}-{}", device, port));
}

}  // namespace qb::nic
