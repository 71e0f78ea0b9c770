// Summarise an HPCC ns-3 packet trace (mix.tr, ENABLE_TRACE 1 with the switch in trace.txt) of
// the 16-to-1 incast, for the agreement check against qosbench's results (agree.py).
//
// Usage: check_trace MIX_TR SWITCH_NODE EGRESS_INTF BIN_NS END_NS
//
// Prints, as "key value" lines:
//   queue_samples, queue_p50_bytes, queue_p99_bytes, queue_max_bytes: the egress queue toward
//     the receiver (all its priority queues) that each data packet found when it was enqueued
//     there, itself included (HPCC's trace takes the queue's bytes after the enqueue);
//   ecn_marks: data packets leaving that port CE-marked (HPCC marks at dequeue);
//   cnps: ACKs from the receiver carrying the CNP flag, as they enter the switch;
//   data_packets, data_wire_bytes: data packets leaving that port;
//   bin <i> <sip-node> <bytes>: wire bytes of data leaving the port per time bin and sender.
// Built by build_hpcc.sh against the headers it copies (ns3/trace-format.h, ns3/sim-setting.h).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

#include "ns3/sim-setting.h"
#include "ns3/trace-format.h"

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s MIX_TR SWITCH_NODE EGRESS_INTF BIN_NS END_NS\n", argv[0]);
    return 2;
  }
  FILE* f = std::fopen(argv[1], "rb");
  if (f == nullptr) {
    std::perror(argv[1]);
    return 1;
  }
  const unsigned node = std::strtoul(argv[2], nullptr, 10);
  const unsigned intf = std::strtoul(argv[3], nullptr, 10);
  const unsigned long long bin_ns = std::strtoull(argv[4], nullptr, 10);
  const unsigned long long end_ns = std::strtoull(argv[5], nullptr, 10);
  SimSetting setting;
  setting.Deserialize(f);
  std::vector<unsigned> qlen;
  std::map<std::pair<unsigned long long, unsigned>, unsigned long long> bins;
  unsigned long long marks = 0, cnps = 0, packets = 0, wire = 0;
  ns3::TraceFormat tr;
  while (tr.Deserialize(f) > 0) {
    if (tr.node != node || tr.time >= end_ns) continue;
    if (tr.intf == intf && tr.l3Prot == 0x11) {
      if (tr.event == ns3::Enqu) qlen.push_back(tr.qlen);
      if (tr.event == ns3::Dequ) {
        ++packets;
        wire += tr.size;
        if (tr.ecn == 3) ++marks;
        const unsigned src = (tr.sip >> 8) & 0xffff;  // third.cc's ip_to_node_id
        bins[{tr.time / bin_ns, src}] += tr.size;
      }
    }
    if (tr.intf == intf && tr.event == ns3::Recv && tr.l3Prot == 0xFC &&
        (tr.ack.flags & 1u) != 0)  // qbbHeader::FLAG_CNP = 0
      ++cnps;
  }
  std::fclose(f);
  std::sort(qlen.begin(), qlen.end());
  auto pct = [&](double p) -> unsigned {
    if (qlen.empty()) return 0;
    size_t i = static_cast<size_t>(p * (qlen.size() - 1) + 0.5);
    return qlen[std::min(i, qlen.size() - 1)];
  };
  std::printf("queue_samples %zu\nqueue_p50_bytes %u\nqueue_p99_bytes %u\nqueue_max_bytes %u\n",
              qlen.size(), pct(0.50), pct(0.99), qlen.empty() ? 0u : qlen.back());
  std::printf("ecn_marks %llu\ncnps %llu\ndata_packets %llu\ndata_wire_bytes %llu\n", marks, cnps,
              packets, wire);
  for (const auto& b : bins) std::printf("bin %llu %u %llu\n", b.first.first, b.first.second, b.second);
  return 0;
}
