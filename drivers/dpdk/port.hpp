// Port and mempool set-up for the DPDK driver: configure queues, start with a link check, drain
// what a software ring still holds, stop. Control path only.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "qb/common/result.hpp"

struct rte_mempool;

namespace qb::drv::dpdk {

struct PortQueues {
  uint16_t port = 0;
  uint16_t tx_queues = 0;
  uint16_t rx_queues = 0;
  uint16_t tx_descriptors = 0;
  uint16_t rx_descriptors = 0;
  uint64_t tx_offloads = 0;  // RTE_ETH_TX_OFFLOAD_* (send-on-time)
  uint64_t rx_offloads = 0;  // RTE_ETH_RX_OFFLOAD_* (timestamps)
};

/// Mbufs a pool needs for these queues: descriptors, bursts, per-lcore caches, and what a
/// software ring port (net_ring) can hold in flight.
uint32_t pool_mbufs_for(uint32_t tx_queues, uint32_t tx_descriptors, uint32_t rx_queues,
                        uint32_t rx_descriptors, uint32_t lcores);

/// A pktmbuf pool of at least `mbufs` mbufs with `data_room` bytes each (headroom included).
/// Pools live until the process ends and are reused by later drivers with the same needs: a
/// ring port may still hold mbufs of an earlier run, so freeing a pool is never safe.
/// Errc::unavailable, saying what to do, when the EAL has too little memory.
Result<rte_mempool*> shared_pool(uint32_t mbufs, uint32_t data_room, int socket);

std::string port_name(uint16_t port);

/// Configures the port (stopped) with the queues; rx queues take mbufs from `pool`.
Status configure_port(const PortQueues& queues, rte_mempool* pool);
/// Starts the port and waits (up to ~2 s) for the link; Errc::unavailable when it stays down.
Status start_port(uint16_t port, const std::atomic<bool>* stop = nullptr);
/// Frees whatever the port's rx queues still hold (a ring port keeps sent frames until read).
void drain_rx(uint16_t port, uint16_t rx_queues) noexcept;
void stop_port(uint16_t port) noexcept;

}  // namespace qb::drv::dpdk
