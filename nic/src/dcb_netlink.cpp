// DCB netlink messages as bytes (linux/dcbnl.h; the kernel side is net/dcb/dcbnl.c).
#include "qb/nic/dcb_netlink.hpp"

#include <fmt/format.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cstring>

namespace qb::nic {
namespace {

constexpr size_t align4(size_t n) {
  return (n + 3) & ~size_t{3};
}

class MessageWriter {
 public:
  MessageWriter(uint16_t type, uint16_t flags, uint32_t seq, uint8_t cmd) {
    nlmsghdr header{};
    header.nlmsg_type = type;
    header.nlmsg_flags = flags;
    header.nlmsg_seq = seq;
    append(&header, sizeof header);
    dcbmsg dcb{};
    dcb.dcb_family = AF_UNSPEC;
    dcb.cmd = cmd;
    append(&dcb, sizeof dcb);
  }
  void attr(uint16_t type, const void* data, size_t bytes) {
    nlattr a{};
    a.nla_len = static_cast<uint16_t>(NLA_HDRLEN + bytes);
    a.nla_type = type;
    append(&a, sizeof a);
    append(data, bytes);
    pad();
  }
  size_t begin_nest(uint16_t type) {
    const size_t at = bytes_.size();
    nlattr a{};
    a.nla_type = type;  // dcbnl nests without NLA_F_NESTED (nla_nest_start_noflag)
    append(&a, sizeof a);
    return at;
  }
  void end_nest(size_t at) {
    const auto len = static_cast<uint16_t>(bytes_.size() - at);
    std::memcpy(bytes_.data() + at, &len, sizeof len);
  }
  std::vector<uint8_t> finish() {
    const auto len = static_cast<uint32_t>(bytes_.size());
    std::memcpy(bytes_.data(), &len, sizeof len);  // nlmsg_len is the header's first field
    return std::move(bytes_);
  }

 private:
  void append(const void* data, size_t n) {
    const auto* p = static_cast<const uint8_t*>(data);
    bytes_.insert(bytes_.end(), p, p + n);
  }
  void pad() { bytes_.resize(align4(bytes_.size()), 0); }
  std::vector<uint8_t> bytes_;
};

struct Attr {
  uint16_t type = 0;
  std::span<const uint8_t> payload;
};

// The attributes in `bytes`, in order; false when one runs past the end.
bool split_attrs(std::span<const uint8_t> bytes, std::vector<Attr>& out) {
  size_t at = 0;
  while (at + NLA_HDRLEN <= bytes.size()) {
    nlattr a{};
    std::memcpy(&a, bytes.data() + at, sizeof a);
    if (a.nla_len < NLA_HDRLEN || at + a.nla_len > bytes.size()) return false;
    out.push_back(Attr{static_cast<uint16_t>(a.nla_type & NLA_TYPE_MASK),
                       bytes.subspan(at + NLA_HDRLEN, a.nla_len - NLA_HDRLEN)});
    at += align4(a.nla_len);
  }
  return true;
}

Error bad_reply(std::string_view what, std::string_view why) {
  return make_error(Errc::io, fmt::format("DCB netlink reply for {}: {}", what, why));
}

// The message after its nlmsghdr, or the error an NLMSG_ERROR carries.
Result<std::span<const uint8_t>> message_body(std::span<const uint8_t> bytes, std::string_view what,
                                              std::string_view op) {
  nlmsghdr header{};
  if (bytes.size() < sizeof header) return bad_reply(what, "shorter than a netlink header");
  std::memcpy(&header, bytes.data(), sizeof header);
  if (header.nlmsg_len < sizeof header || header.nlmsg_len > bytes.size()) {
    return bad_reply(what,
                     fmt::format("length {} in a {}-byte reply", header.nlmsg_len, bytes.size()));
  }
  const auto body = bytes.subspan(NLMSG_HDRLEN, header.nlmsg_len - NLMSG_HDRLEN);
  if (header.nlmsg_type == NLMSG_ERROR) {
    nlmsgerr err{};
    if (body.size() < sizeof err.error) return bad_reply(what, "a truncated NLMSG_ERROR");
    std::memcpy(&err.error, body.data(), sizeof err.error);
    const int errnum = -err.error;
    if (errnum == 0) return bad_reply(what, "an acknowledgement where the answer was expected");
    std::string hint;
    if (errnum == EOPNOTSUPP) hint = ": the netdev has no DCB support (not a ConnectX PF?)";
    if (errnum == EPERM) hint = ": it needs CAP_NET_ADMIN";
    if (errnum == ENODEV) hint = ": no such network interface";
    return make_error(Errc::runtime, fmt::format("{} for {} failed: {} (errno {}){}", op, what,
                                                 std::strerror(errnum), errnum, hint));
  }
  if (body.size() < sizeof(dcbmsg)) return bad_reply(what, "no dcbmsg");
  return body.subspan(sizeof(dcbmsg));
}

template <typename T>
bool read_struct(const Attr& a, T& out) {
  // Older kernels' structs may be shorter; newer ones longer: take what both have.
  if (a.payload.empty()) return false;
  std::memset(&out, 0, sizeof out);
  std::memcpy(&out, a.payload.data(), std::min(sizeof out, a.payload.size()));
  return true;
}

}  // namespace

std::vector<uint8_t> encode_ieee_get(std::string_view ifname, uint32_t seq) {
  MessageWriter w(RTM_GETDCB, NLM_F_REQUEST, seq, DCB_CMD_IEEE_GET);
  const std::string name(ifname);
  w.attr(DCB_ATTR_IFNAME, name.c_str(), name.size() + 1);
  return w.finish();
}

Result<EthQosState> decode_ieee_get_reply(std::span<const uint8_t> bytes, std::string_view ifname) {
  const std::string what = fmt::format("netdev {}", ifname);
  auto body = message_body(bytes, what, "DCB_CMD_IEEE_GET");
  if (!body) return std::move(body).error();
  std::vector<Attr> top;
  if (!split_attrs(*body, top)) return bad_reply(what, "an attribute runs past the message");
  EthQosState state;
  state.ifname = std::string(ifname);
  bool ieee_seen = false;
  for (const Attr& a : top) {
    if (a.type == DCB_ATTR_IFNAME && !a.payload.empty()) {
      const auto* p = reinterpret_cast<const char*>(a.payload.data());
      const std::string name(p, strnlen(p, a.payload.size()));
      if (name != ifname) return bad_reply(what, fmt::format("it names netdev {}", name));
    }
    if (a.type != DCB_ATTR_IEEE) continue;
    ieee_seen = true;
    std::vector<Attr> ieee;
    if (!split_attrs(a.payload, ieee)) return bad_reply(what, "a DCB_ATTR_IEEE runs past its end");
    for (const Attr& i : ieee) {
      switch (i.type) {
        case DCB_ATTR_IEEE_ETS:
          if (read_struct(i, state.ets.emplace()) == false) state.ets.reset();
          break;
        case DCB_ATTR_IEEE_MAXRATE:
          if (read_struct(i, state.maxrate.emplace()) == false) state.maxrate.reset();
          break;
        case DCB_ATTR_IEEE_PFC:
          if (read_struct(i, state.pfc.emplace()) == false) state.pfc.reset();
          break;
        case DCB_ATTR_IEEE_APP_TABLE: {
          std::vector<Attr> apps;
          if (!split_attrs(i.payload, apps)) return bad_reply(what, "a broken APP table");
          for (const Attr& app : apps) {
            dcb_app entry{};
            if (app.type == DCB_ATTR_IEEE_APP && read_struct(app, entry)) {
              state.apps.push_back(entry);
            }
          }
          break;
        }
        default:
          break;  // peer objects, QCN, buffers: not ours
      }
    }
  }
  if (!ieee_seen) return bad_reply(what, "no DCB_ATTR_IEEE (the driver has no IEEE DCB)");
  return state;
}

std::vector<uint8_t> encode_ieee_set(std::string_view ifname, uint32_t seq, const DcbIeeeSet& set,
                                     bool del) {
  MessageWriter w(RTM_SETDCB, NLM_F_REQUEST, seq, del ? DCB_CMD_IEEE_DEL : DCB_CMD_IEEE_SET);
  const std::string name(ifname);
  w.attr(DCB_ATTR_IFNAME, name.c_str(), name.size() + 1);
  const size_t ieee = w.begin_nest(DCB_ATTR_IEEE);
  if (!del) {
    if (set.ets) w.attr(DCB_ATTR_IEEE_ETS, &*set.ets, sizeof *set.ets);
    if (set.maxrate) w.attr(DCB_ATTR_IEEE_MAXRATE, &*set.maxrate, sizeof *set.maxrate);
    if (set.pfc) w.attr(DCB_ATTR_IEEE_PFC, &*set.pfc, sizeof *set.pfc);
  }
  if (!set.apps.empty()) {
    const size_t table = w.begin_nest(DCB_ATTR_IEEE_APP_TABLE);
    for (const dcb_app& app : set.apps) w.attr(DCB_ATTR_IEEE_APP, &app, sizeof app);
    w.end_nest(table);
  }
  w.end_nest(ieee);
  return w.finish();
}

Status decode_ieee_set_reply(std::span<const uint8_t> bytes, std::string_view what) {
  auto body = message_body(bytes, what, "DCB_CMD_IEEE_SET");
  if (!body) return std::move(body).error();
  std::vector<Attr> top;
  if (!split_attrs(*body, top)) return bad_reply(what, "an attribute runs past the message");
  for (const Attr& a : top) {
    if (a.type != DCB_ATTR_IEEE || a.payload.empty()) continue;
    const auto status = static_cast<int8_t>(a.payload[0]);
    if (status == 0) return {};
    const int errnum = -status;
    return make_error(Errc::runtime, fmt::format("the driver refused the DCB setting for {}: {} "
                                                 "(errno {})",
                                                 what, std::strerror(errnum), errnum));
  }
  return bad_reply(what, "no status (DCB_ATTR_IEEE) in the answer");
}

}  // namespace qb::nic
