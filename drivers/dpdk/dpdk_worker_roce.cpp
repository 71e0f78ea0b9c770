// The DPDK worker's RoCEv2 frames: a message is cut into path-MTU packets (RoceTemplate writes
// each, PSN per flow), and received packets are read back with their RDMA payload and wire bytes
// (policy::WireModel's rocev2 model, so the oracle judges DPDK and the simulator alike).
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "dpdk_worker.hpp"

namespace qb::drv::dpdk {
namespace {

uint8_t* frame_data(rte_mbuf* m) noexcept {
  return static_cast<uint8_t*>(m->buf_addr) + m->data_off;
}
const uint8_t* frame_data(const rte_mbuf* m) noexcept {
  return static_cast<const uint8_t*>(m->buf_addr) + m->data_off;
}

constexpr uint32_t kPsnMask = 0xffffff;

}  // namespace

uint32_t DpdkWorker::message_wire_bytes(const Message& m) const noexcept {
  if (!roce_) return setup_.wire.packet_wire_bytes(m.bytes, true, policy::RdmaOp::send);
  const bool write = setup_.roce_templates[m.flow].write_op();
  return static_cast<uint32_t>(
      std::min<uint64_t>(setup_.wire.wire_bytes_for_message(
                             m.bytes, write ? policy::RdmaOp::write : policy::RdmaOp::send),
                         std::numeric_limits<uint32_t>::max()));
}

bool DpdkWorker::flush_roce_backlog() noexcept {
  while (!roce_backlog_.empty()) {
    rte_mbuf* burst[kBurst];
    const auto n = static_cast<uint16_t>(std::min<size_t>(roce_backlog_.size(), kBurst));
    for (uint16_t i = 0; i < n; ++i) burst[i] = roce_backlog_.at(i);
    const uint16_t sent = rte_eth_tx_burst(setup_.tx_port, setup_.tx_queue, burst, n);
    for (uint16_t i = 0; i < sent; ++i) stats_.tx_frame_bytes += burst[i]->pkt_len + kFcsBytes;
    stats_.tx_packets += sent;
    roce_backlog_.drop(sent);
    if (sent < n) {
      ++stats_.tx_pmd_full;
      return false;
    }
  }
  return true;
}

uint32_t DpdkWorker::transmit_roce(const Message* messages, uint32_t count, int64_t sent_ns,
                                   uint32_t stamp) noexcept {
  // Packets a message's PMD could not take go first: frames of a flow stay in order.
  if (!flush_roce_backlog()) return 0;
  const policy::WireModel& wire = setup_.wire;
  rte_mbuf* mbufs[kMaxRocePackets + kBurst];
  uint32_t ends[kBurst];  // per message: one past its last packet in mbufs
  uint32_t packets = 0;
  uint32_t built = 0;
  for (; built < count; ++built) {
    const Message& m = messages[built];
    if (m.flow >= flow_count_) [[unlikely]] {
      break;  // the caller's error: stop before it
    }
    uint64_t bytes = m.bytes;
    uint32_t k = wire.packets_for_message(bytes);
    if (k > kMaxRocePackets) [[unlikely]] {
      k = kMaxRocePackets;
      bytes = uint64_t{k} * wire.mtu_bytes;
      ++stats_.roce_truncated;
    }
    if (built > 0 && packets + k > kBurst) break;  // whole messages per burst (one at least)
    if (rte_pktmbuf_alloc_bulk(setup_.pool, mbufs + packets, k) != 0) {
      ++stats_.mbuf_alloc_failures;
      break;
    }
    RoceTemplate& t = setup_.roce_templates[m.flow];
    const auto lateness_ns = static_cast<uint32_t>(
        std::clamp<int64_t>(sent_ns - m.scheduled_ns, 0, std::numeric_limits<uint32_t>::max()));
    uint32_t& psn = tx_psn_[m.flow];
    for (uint32_t i = 0; i < k; ++i) {
      RocePacket p;
      // Every packet carries the payload header (a few bytes more than the model for
      // payloads under 14 bytes).
      p.payload_bytes = std::max(wire.packet_payload_bytes(bytes, i), kPayloadHeaderBytes);
      p.index = i;
      p.count = k;
      p.psn = psn;
      psn = (psn + 1) & kPsnMask;
      p.message_bytes = static_cast<uint32_t>(bytes);
      p.header = PayloadHeader{static_cast<uint16_t>(m.flow), static_cast<uint32_t>(m.sequence),
                               stamp, lateness_ns};
      rte_mbuf* mbuf = mbufs[packets + i];
      const uint32_t length = t.write(frame_data(mbuf), p);
      mbuf->data_len = static_cast<uint16_t>(length);
      mbuf->pkt_len = length;
      if (setup_.tx_ts_offset >= 0) stamp_send_times(&m, &mbuf, 1);
    }
    packets += k;
    ends[built] = packets;
  }
  if (built == 0) return 0;
  const uint16_t sent =
      rte_eth_tx_burst(setup_.tx_port, setup_.tx_queue, mbufs, static_cast<uint16_t>(packets));
  for (uint16_t i = 0; i < sent; ++i) stats_.tx_frame_bytes += mbufs[i]->pkt_len + kFcsBytes;
  stats_.tx_packets += sent;
  uint32_t done = 0;
  while (done < built && ends[done] <= sent) ++done;
  uint32_t kept = done == 0 ? 0 : ends[done - 1];
  if (done < built && sent > kept) {
    // The PMD took part of this message: the rest waits in the backlog (it holds a message).
    for (uint32_t i = sent; i < ends[done]; ++i) roce_backlog_.push(mbufs[i]);
    kept = ends[done];
    ++done;
  }
  if (sent < packets) ++stats_.tx_pmd_full;
  if (kept < packets) rte_pktmbuf_free_bulk(mbufs + kept, packets - kept);
  return done;
}

bool DpdkWorker::parse_rx(const rte_mbuf* m, RxFrame& out) const noexcept {
  if (!roce_) {
    ParsedFrame frame;
    if (!parse_frame(frame_data(m), m->data_len, setup_.udp_dst_port, frame)) return false;
    out.header = frame.payload;
    out.payload_bytes = m->pkt_len + kFcsBytes;  // Ethernet: the message is the frame
    out.wire_bytes = setup_.wire.packet_wire_bytes(out.payload_bytes, true, policy::RdmaOp::send);
    out.last_of_message = true;
    return true;
  }
  ParsedRoce frame;
  if (!parse_roce_frame(frame_data(m), m->data_len, frame)) return false;
  out.header = frame.header;
  out.payload_bytes = frame.payload_bytes;
  const bool reth = opcode_has_reth(frame.opcode);
  out.wire_bytes = setup_.wire.packet_wire_bytes(
      frame.payload_bytes, reth, reth ? policy::RdmaOp::write : policy::RdmaOp::send);
  out.last_of_message = opcode_ends_message(frame.opcode);
  return true;
}

}  // namespace qb::drv::dpdk
