// What the read state says, in the suite's terms.
#include "qb/nic/eth_qos_state.hpp"

#include <fmt/format.h>

namespace qb::nic {

policy::EthTrust EthQosState::trust() const noexcept {
  if (!sysfs_trust.empty()) {
    return sysfs_trust.find("dscp") != std::string::npos ? policy::EthTrust::dscp
                                                         : policy::EthTrust::pcp;
  }
  for (const dcb_app& app : apps) {
    if (app.selector == IEEE_8021QAZ_APP_SEL_DSCP) return policy::EthTrust::dscp;
  }
  return policy::EthTrust::pcp;
}

std::string EthQosState::trust_source() const {
  if (!sysfs_trust.empty()) return fmt::format("/sys/class/net/{}/qos/trust", ifname);
  size_t dscp_apps = 0;
  for (const dcb_app& app : apps) dscp_apps += app.selector == IEEE_8021QAZ_APP_SEL_DSCP;
  return fmt::format("the DCB APP table ({} DSCP entries; mlx5 trusts DSCP when it has any)",
                     dscp_apps);
}

std::optional<uint8_t> EthQosState::dscp_priority(uint8_t dscp) const noexcept {
  for (const dcb_app& app : apps) {
    if (app.selector == IEEE_8021QAZ_APP_SEL_DSCP && app.protocol == dscp) return app.priority;
  }
  return std::nullopt;
}

std::string tsa_name(uint8_t tsa) {
  switch (tsa) {
    case IEEE_8021QAZ_TSA_STRICT:
      return "strict";
    case IEEE_8021QAZ_TSA_ETS:
      return "ets";
    case IEEE_8021QAZ_TSA_VENDOR:
      return "vendor";
    case IEEE_8021QAZ_TSA_CB_SHAPER:
      return "cbs";
    default:
      return fmt::format("{}", tsa);
  }
}

}  // namespace qb::nic
