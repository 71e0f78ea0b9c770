// Opening an RDMA device by name, for the two rdma-core users (the verbs driver's ops and the
// FlexIO loader's SDK ops). Header-only and outside qb::common: it needs libibverbs, which only
// its users link (target qb::ibv_device).
#pragma once

#include <infiniband/verbs.h>

#include <cerrno>
#include <string_view>

namespace qb::ibv {

/// ibv_open_device() of the device named `name`; null with errno set (ENODEV: no such device).
inline ibv_context* open_device(std::string_view name) {
  int count = 0;
  ibv_device** list = ibv_get_device_list(&count);
  if (list == nullptr) return nullptr;
  ibv_context* context = nullptr;
  errno = ENODEV;
  for (int i = 0; i < count; ++i) {
    if (name == ibv_get_device_name(list[i])) {
      context = ibv_open_device(list[i]);
      break;
    }
  }
  const int saved = errno;
  ibv_free_device_list(list);  // an opened context keeps its device
  errno = saved;
  return context;
}

}  // namespace qb::ibv
