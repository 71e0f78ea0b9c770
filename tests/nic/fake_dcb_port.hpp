// A port behind the DCB seam for tests: it answers IEEE_GET with its state and takes IEEE_SET
// and IEEE_DEL as mlx5 does (a DSCP APP entry replaces the DSCP's previous one; deleting one
// that is not there is ENOENT), and can be told to refuse writes or to stop answering.
#pragma once

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "qb/nic/dcb_apply.hpp"
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
    const DcbIeeeSet set{asked->ets, asked->maxrate, asked->pfc, asked->apps};
    const int status = apply_dcb_request(state_, set, dcb.cmd == DCB_CMD_IEEE_DEL);
    return set_reply(header.nlmsg_seq, static_cast<int8_t>(status));
  }
};

// A restore-journal directory of the test's own (QOSBENCH_STATE_DIR while it lives): tests that
// apply run in parallel processes and must not see each other's journals.
class TempStateDir {
 public:
  TempStateDir() {
    static int counter = 0;
    path = (std::filesystem::temp_directory_path() /
            ("qb-nic-state." + std::to_string(::getpid()) + "." + std::to_string(++counter)))
               .string();
    std::filesystem::remove_all(path);
    ::setenv("QOSBENCH_STATE_DIR", path.c_str(), 1);
  }
  ~TempStateDir() {
    ::unsetenv("QOSBENCH_STATE_DIR");
    std::filesystem::remove_all(path);
  }
  TempStateDir(const TempStateDir&) = delete;
  TempStateDir& operator=(const TempStateDir&) = delete;
  std::string path;
};

}  // namespace qb::nic::test
