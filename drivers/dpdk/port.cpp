#include "port.hpp"

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <chrono>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

namespace qb::drv::dpdk {
namespace {

constexpr uint32_t kPoolCache = 256;
constexpr uint32_t kBurstSlack = 2 * 64;
constexpr uint32_t kRingPortSlack = 1024;    // net_ring's rings hold up to 1024 frames each
constexpr uint32_t kWorkerRxPending = 1024;  // DpdkWorker::kRxPending: received, not yet polled

std::string errno_text(int err) {
  return rte_strerror(err < 0 ? -err : err);
}

// net_af_xdp makes its AF_XDP socket in rx queue set-up: most failures are the kernel's.
std::string rx_setup_hint(const rte_eth_dev_info& info, int rc) {
  if (info.driver_name != nullptr && std::string_view(info.driver_name) == "net_af_xdp") {
    return " (net_af_xdp could not create its AF_XDP socket: it needs a kernel with XDP "
           "sockets, root (or CAP_NET_ADMIN, CAP_BPF, CAP_SYS_ADMIN), the interface up, a "
           "queue within its channels (ethtool -l), and memory for the UMEM: -m <MB>)";
  }
  return rc == -ENOMEM ? " (give the EAL more memory)" : "";
}

}  // namespace

uint32_t pool_mbufs_for(uint32_t tx_queues, uint32_t tx_descriptors, uint32_t rx_queues,
                        uint32_t rx_descriptors, uint32_t lcores) {
  const uint64_t needed = uint64_t{tx_queues} * (tx_descriptors + kBurstSlack + kRingPortSlack) +
                          uint64_t{rx_queues} * (rx_descriptors + kBurstSlack + kWorkerRxPending) +
                          uint64_t{lcores} * kPoolCache * 3 / 2;
  uint64_t size = 1;
  while (size - 1 < needed) size <<= 1;  // 2^k - 1 is the optimal size for a mempool ring
  return static_cast<uint32_t>(size - 1);
}

Result<rte_mempool*> shared_pool(uint32_t mbufs, uint32_t data_room, int socket) {
  struct Entry {
    uint32_t mbufs;
    uint32_t data_room;
    int socket;
    rte_mempool* pool;
  };
  static std::mutex mutex;
  static std::vector<Entry> pools;
  std::lock_guard<std::mutex> lock(mutex);
  for (const Entry& entry : pools) {
    if (entry.mbufs >= mbufs && entry.data_room >= data_room && entry.socket == socket) {
      return entry.pool;
    }
  }
  const std::string name = "qb_pool_" + std::to_string(pools.size());
  if (data_room > UINT16_MAX) {
    return make_error(Errc::invalid_config,
                      "dpdk: frames of " + std::to_string(data_room) + " bytes do not fit an mbuf");
  }
  rte_mempool* pool = rte_pktmbuf_pool_create(name.c_str(), mbufs, kPoolCache, 0,
                                              static_cast<uint16_t>(data_room), socket);
  if (pool == nullptr) {
    const int err = rte_errno;
    const double mb = static_cast<double>(mbufs) * (data_room + 192) / 1e6;
    return make_error(err == ENOMEM ? Errc::unavailable : Errc::runtime,
                      "dpdk: cannot create a pool of " + std::to_string(mbufs) + " mbufs (" +
                          std::to_string(static_cast<int>(mb + 1)) + " MB): " + errno_text(err) +
                          (err == ENOMEM ? " (give the EAL more memory: -m <MB> with --no-huge, "
                                           "or reserve more hugepages)"
                                         : ""));
  }
  pools.push_back(Entry{mbufs, data_room, socket, pool});
  return pool;
}

std::string port_name(uint16_t port) {
  char name[RTE_ETH_NAME_MAX_LEN] = {};
  if (rte_eth_dev_get_name_by_port(port, name) != 0) return "port " + std::to_string(port);
  return name;
}

Status configure_port(const PortQueues& q, rte_mempool* pool) {
  const std::string name = port_name(q.port);
  rte_eth_dev_info info{};
  if (int rc = rte_eth_dev_info_get(q.port, &info); rc != 0) {
    return make_error(Errc::runtime, "dpdk: " + name + ": no device info: " + errno_text(rc));
  }
  if (q.tx_queues > info.max_tx_queues || q.rx_queues > info.max_rx_queues) {
    return make_error(Errc::not_supported,
                      "dpdk: " + name + " has at most " + std::to_string(info.max_tx_queues) +
                          " tx and " + std::to_string(info.max_rx_queues) + " rx queues (asked " +
                          std::to_string(q.tx_queues) + " and " + std::to_string(q.rx_queues) +
                          "): use fewer workers");
  }
  rte_eth_conf conf{};
  conf.txmode.offloads = q.tx_offloads;
  conf.rxmode.offloads = q.rx_offloads;
  if (q.rx_queues > 1 && info.flow_type_rss_offloads != 0) {
    // Several workers receive: spread by the UDP ports (one flow stays on one queue).
    conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
    conf.rx_adv_conf.rss_conf.rss_hf =
        info.flow_type_rss_offloads & (RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP);
  }
  if (int rc = rte_eth_dev_configure(q.port, q.rx_queues, q.tx_queues, &conf); rc != 0) {
    return make_error(Errc::runtime, "dpdk: " + name + ": configure failed: " + errno_text(rc));
  }
  uint16_t rx_desc = q.rx_descriptors;
  uint16_t tx_desc = q.tx_descriptors;
  if (int rc = rte_eth_dev_adjust_nb_rx_tx_desc(q.port, &rx_desc, &tx_desc); rc != 0) {
    return make_error(Errc::runtime,
                      "dpdk: " + name + ": descriptor counts rejected: " + errno_text(rc));
  }
  const int socket = rte_eth_dev_socket_id(q.port);
  const unsigned socket_id = socket < 0 ? 0u : static_cast<unsigned>(socket);
  for (uint16_t i = 0; i < q.tx_queues; ++i) {
    if (int rc = rte_eth_tx_queue_setup(q.port, i, tx_desc, socket_id, nullptr); rc != 0) {
      return make_error(Errc::runtime, "dpdk: " + name + ": tx queue " + std::to_string(i) +
                                           " set-up failed: " + errno_text(rc));
    }
  }
  for (uint16_t i = 0; i < q.rx_queues; ++i) {
    if (int rc = rte_eth_rx_queue_setup(q.port, i, rx_desc, socket_id, nullptr, pool); rc != 0) {
      return make_error(Errc::runtime, "dpdk: " + name + ": rx queue " + std::to_string(i) +
                                           " set-up failed: " + errno_text(rc) +
                                           rx_setup_hint(info, rc));
    }
  }
  return {};
}

Status start_port(uint16_t port, const std::atomic<bool>* stop) {
  const std::string name = port_name(port);
  if (int rc = rte_eth_dev_start(port); rc != 0) {
    return make_error(Errc::runtime, "dpdk: " + name + ": start failed: " + errno_text(rc));
  }
  // Up to 2 s for the link, polled every 10 ms so that a signal ends the wait at once.
  constexpr int kLinkPolls = 200;
  rte_eth_link link{};
  for (int attempt = 0; attempt < kLinkPolls; ++attempt) {
    if (rte_eth_link_get_nowait(port, &link) == 0 && link.link_status == RTE_ETH_LINK_UP) {
      return {};
    }
    if (stop != nullptr && stop->load(std::memory_order_relaxed)) {
      rte_eth_dev_stop(port);
      return make_error(Errc::runtime,
                        "dpdk: " + name + ": interrupted while waiting for the link to come up");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  rte_eth_dev_stop(port);
  rte_eth_dev_info info{};
  const bool vhost = rte_eth_dev_info_get(port, &info) == 0 && info.driver_name != nullptr &&
                     std::string_view(info.driver_name).find("vhost") != std::string_view::npos;
  return make_error(Errc::unavailable,
                    "dpdk: the link of " + name + " is down after 2 s: " +
                        (vhost ? "connect a virtio front end (a VM, or virtio_user) to its "
                                 "vhost-user socket first"
                               : "check the cable/peer, or that the interface is up on the "
                                 "other side"));
}

void drain_rx(uint16_t port, uint16_t rx_queues) noexcept {
  rte_mbuf* burst[64];
  for (uint16_t q = 0; q < rx_queues; ++q) {
    for (int round = 0; round < 1 << 16; ++round) {
      const uint16_t n = rte_eth_rx_burst(port, q, burst, 64);
      if (n == 0) break;
      rte_pktmbuf_free_bulk(burst, n);
    }
  }
}

void stop_port(uint16_t port) noexcept {
  rte_eth_dev_stop(port);
}

}  // namespace qb::drv::dpdk
