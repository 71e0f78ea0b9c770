// Replaying a machine's recorded NIC answers from a directory (nic_root).
#include "qb/nic/recorded.hpp"

#include <fmt/format.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

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
    if (dcb.cmd != DCB_CMD_IEEE_GET) {
      return make_error(Errc::runtime, fmt::format("recorded DCB state of {} ({}): a recording "
                                                   "cannot take a setting",
                                                   ifname, dir_));
    }
    const fs::path path = fs::path(dir_) / "dcb" / (ifname + ".hex");
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
