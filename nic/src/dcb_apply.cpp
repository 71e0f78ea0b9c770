#include "qb/nic/dcb_apply.hpp"

#include <algorithm>
#include <cerrno>

namespace qb::nic {

int apply_dcb_request(EthQosState& state, const DcbIeeeSet& asked, bool del) {
  if (del) {
    std::vector<dcb_app> apps = state.apps;
    for (const dcb_app& app : asked.apps) {
      auto it = std::find_if(apps.begin(), apps.end(), [&](const dcb_app& a) {
        return a.selector == app.selector && a.protocol == app.protocol &&
               a.priority == app.priority;
      });
      if (it == apps.end()) return -ENOENT;
      apps.erase(it);
    }
    state.apps = std::move(apps);
    return 0;
  }
  if (asked.ets) state.ets = asked.ets;
  if (asked.maxrate) state.maxrate = asked.maxrate;
  if (asked.pfc) state.pfc = asked.pfc;
  for (const dcb_app& app : asked.apps) {
    std::erase_if(state.apps, [&](const dcb_app& a) {
      return a.selector == app.selector && a.protocol == app.protocol;
    });
    state.apps.push_back(app);
  }
  return 0;
}

}  // namespace qb::nic
