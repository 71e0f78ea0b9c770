// The SMP seam's real side: libibmad's smp_query_via on the local port (a direct route of zero
// hops), as smpquery does; built only with libibmad (nic/CMakeLists.txt).
#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "qb/nic/ib_qos_state.hpp"

#ifdef QB_NIC_WITH_IBMAD
#include <infiniband/mad.h>
#endif

namespace qb::nic {

#ifdef QB_NIC_WITH_IBMAD
namespace {

constexpr int kTimeoutMs = 1000;

class IbmadSmpSource final : public SmpSource {
 public:
  IbmadSmpSource(ibmad_port* port, std::string device) : port_(port), device_(std::move(device)) {}
  ~IbmadSmpSource() override { mad_rpc_close_port(port_); }
  IbmadSmpSource(const IbmadSmpSource&) = delete;
  IbmadSmpSource& operator=(const IbmadSmpSource&) = delete;

  Result<std::array<uint8_t, 64>> get(uint16_t attribute, uint32_t modifier) override {
    ib_portid_t local{};  // drpath.cnt = 0: this port itself, by direct route
    std::array<uint8_t, 64> data{};
    errno = 0;
    if (smp_query_via(data.data(), &local, attribute, modifier, kTimeoutMs, port_) == nullptr) {
      const int error = errno;
      return make_error(
          Errc::runtime,
          fmt::format(
              "SMP Get of attribute {:#x} (modifier {:#x}) on {} got no "
              "answer{}",
              attribute, modifier, device_,
              error ? fmt::format(": {} (errno {})", std::strerror(error), error) : std::string()));
    }
    return data;
  }

 private:
  ibmad_port* port_;
  std::string device_;
};

}  // namespace

std::unique_ptr<SmpSource> make_ibmad_smp_source(const std::string& device, uint8_t port,
                                                 std::string& why) {
  int classes[] = {IB_SMI_CLASS, IB_SMI_DIRECT_CLASS};
  std::string name = device;
  errno = 0;
  ibmad_port* handle = mad_rpc_open_port(name.data(), port, classes, 2);
  if (handle == nullptr) {
    const int error = errno;
    why = fmt::format(
        "mad_rpc_open_port({}, {}) failed{}", device, port,
        error ? fmt::format(": {} (errno {})", std::strerror(error), error) : std::string());
    return nullptr;
  }
  return std::make_unique<IbmadSmpSource>(handle, device);
}

#else

std::unique_ptr<SmpSource> make_ibmad_smp_source(const std::string& device, uint8_t port,
                                                 std::string& why) {
  why = fmt::format(
      "this build has no libibmad, so the SL2VL and VLArb tables of {} port {} "
      "cannot be read (Debian: apt-get install libibmad-dev libibumad-dev, then "
      "build again)",
      device, port);
  return nullptr;
}

#endif

}  // namespace qb::nic
