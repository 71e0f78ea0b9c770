// A port behind the DCB seam for tests: it answers IEEE_GET with its state and takes IEEE_SET
// and IEEE_DEL as mlx5 does (a DSCP APP entry replaces the DSCP's previous one; deleting one
// that is not there is ENOENT), and can be told to refuse writes or to stop answering.
#pragma once

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "qb/nic/dcb_netlink.hpp"
#include "qb/nic/dcb_transport.hpp"

namespace qb::nic::test {

inline std::vector<uint8_t> set_reply(uint32_t seq, int8_t status) {
  std::vector<uint8_t> out(NLMSG_HDRLEN + sizeof(dcbmsg) + 8, 0);
  nlmsghdr header{};
  header.nlmsg_len = static_cast<uint32_t>(out.size());
  header.nlmsg_type = RTM_SETDCB;
  header.nlmsg_seq = seq;
  std::memcpy(out.data(), &header, sizeof header);
  dcbmsg dcb{};
  dcb.cmd = DCB_CMD_IEEE_SET;
  std::memcpy(out.data() + NLMSG_HDRLEN, &dcb, sizeof dcb);
  nlattr a{};
  a.nla_len = NLA_HDRLEN + 1;
  a.nla_type = DCB_ATTR_IEEE;
  std::memcpy(out.data() + NLMSG_HDRLEN + sizeof dcb, &a, sizeof a);
  out[NLMSG_HDRLEN + sizeof dcb + NLA_HDRLEN] = static_cast<uint8_t>(status);
  return out;
}

inline std::vector<uint8_t> error_reply(uint32_t seq, int errnum) {
  std::vector<uint8_t> out(NLMSG_HDRLEN + sizeof(nlmsgerr), 0);
  nlmsghdr header{};
  header.nlmsg_len = static_cast<uint32_t>(out.size());
  header.nlmsg_type = NLMSG_ERROR;
  header.nlmsg_seq = seq;
  std::memcpy(out.data(), &header, sizeof header);
  const int error = -errnum;
  std::memcpy(out.data() + NLMSG_HDRLEN, &error, sizeof error);
  return out;
}

class FakeDcbPort final : public DcbTransport {
 public:
  explicit FakeDcbPort(EthQosState state) : state_(std::move(state)) {}
  EthQosState state_;
  std::vector<uint8_t> cmds;  // every request's DCB command, in order
  bool refuse_sets = false;   // answer every set with EINVAL
  bool ignore_sets = false;   // answer success and change nothing (a driver that drops them)
  int answers_left = -1;      // after this many answers, every request times out (-1: never)

  Result<std::vector<uint8_t>> exchange(std::span<const uint8_t> request) override {
    if (answers_left == 0)
      return make_error(Errc::runtime, "netlink: no DCB answer within 2000 ms");
    if (answers_left > 0) --answers_left;
    nlmsghdr header{};
    std::memcpy(&header, request.data(), sizeof header);
    dcbmsg dcb{};
    std::memcpy(&dcb, request.data() + NLMSG_HDRLEN, sizeof dcb);
    cmds.push_back(dcb.cmd);
    if (dcb.cmd == DCB_CMD_IEEE_GET) {
      DcbIeeeSet as_set{state_.ets, state_.maxrate, state_.pfc, state_.apps};
      // The same attribute layout as the kernel's answer (IFNAME, then the IEEE nest).
      return encode_ieee_set(state_.ifname, header.nlmsg_seq, as_set);
    }
    if (refuse_sets) return set_reply(header.nlmsg_seq, -EINVAL);
    auto asked = decode_ieee_get_reply(request, state_.ifname);
    if (!asked) return error_reply(header.nlmsg_seq, EINVAL);
    if (ignore_sets) return set_reply(header.nlmsg_seq, 0);
    if (dcb.cmd == DCB_CMD_IEEE_DEL) {
      for (const dcb_app& app : asked->apps) {
        auto it = std::find_if(state_.apps.begin(), state_.apps.end(), [&](const dcb_app& a) {
          return a.selector == app.selector && a.protocol == app.protocol &&
                 a.priority == app.priority;
        });
        if (it == state_.apps.end()) return set_reply(header.nlmsg_seq, -ENOENT);
        state_.apps.erase(it);
      }
      return set_reply(header.nlmsg_seq, 0);
    }
    if (asked->ets) state_.ets = asked->ets;
    if (asked->maxrate) state_.maxrate = asked->maxrate;
    if (asked->pfc) state_.pfc = asked->pfc;
    for (const dcb_app& app : asked->apps) {
      std::erase_if(state_.apps, [&](const dcb_app& a) {
        return a.selector == app.selector && a.protocol == app.protocol;
      });
      state_.apps.push_back(app);
    }
    return set_reply(header.nlmsg_seq, 0);
  }
};

}  // namespace qb::nic::test
