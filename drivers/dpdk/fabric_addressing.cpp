#include "fabric_addressing.hpp"

#include <fmt/format.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <cstdio>
#include <cstring>
#include <sstream>

namespace qb::drv::dpdk {
namespace {

constexpr std::string_view kRecordTag = "qosbench-dpdk-fabric";
constexpr uint32_t kRecordVersion = 1;
constexpr uint32_t kFirstIp = 0xc6120001;  // 198.18.0.1
constexpr uint16_t kHelloEtherType = 0x88b5;
constexpr uint32_t kHelloBytes = 60;  // the smallest frame without FCS

}  // namespace

void FabricAddresses::address(const JobPart& part, uint32_t flow, FrameSpec& spec) const {
  const uint32_t to = flow < part.flow_receiver_rank.size() ? part.flow_receiver_rank[flow] : 0;
  if (part.rank < mac_of_rank.size()) spec.src_mac = mac_of_rank[part.rank];
  if (to < mac_of_rank.size()) spec.dst_mac = mac_of_rank[to];
  spec.src_ip = kFirstIp + part.rank;
  spec.dst_ip = kFirstIp + to;
}

std::string format_address_record(uint32_t rank, const MacAddress& mac) {
  return fmt::format("{} {} {} {:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}", kRecordTag,
                     kRecordVersion, rank, mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
}

Result<FabricAddresses> parse_address_records(const std::vector<std::string>& records) {
  FabricAddresses addresses;
  for (uint32_t rank = 0; rank < records.size(); ++rank) {
    std::istringstream in(records[rank]);
    std::string tag;
    std::string mac_text;
    uint32_t version = 0;
    uint32_t said_rank = 0;
    MacAddress mac{};
    unsigned parts[6] = {};
    char tail = 0;
    const bool read = static_cast<bool>(in >> tag >> version >> said_rank >> mac_text) &&
                      tag == kRecordTag && version == kRecordVersion &&
                      std::sscanf(mac_text.c_str(), "%2x:%2x:%2x:%2x:%2x:%2x%c", &parts[0],
                                  &parts[1], &parts[2], &parts[3], &parts[4], &parts[5],
                                  &tail) == 6;
    if (!read || said_rank != rank) {
      return make_error(Errc::runtime,
                        fmt::format("dpdk: rank {}'s address record is not one of a [topology] "
                                    "job's ranks (another driver or qosbench version?): '{}'",
                                    rank, records[rank].substr(0, 80)));
    }
    for (size_t i = 0; i < mac.size(); ++i) mac[i] = static_cast<uint8_t>(parts[i]);
    addresses.mac_of_rank.push_back(mac);
  }
  return addresses;
}

Result<FabricAddresses> exchange_addresses(const JobPart& part, const MacAddress& mac) {
  if (part.exchange == nullptr) {
    return make_error(Errc::runtime, "dpdk: a [topology] job without the job's exchange");
  }
  auto records = part.exchange->all_gather(format_address_record(part.rank, mac));
  if (!records) return std::move(records).error();
  auto addresses = parse_address_records(*records);
  if (addresses && part.rank >= addresses->mac_of_rank.size()) {
    return make_error(Errc::runtime, fmt::format("dpdk: the job's exchange has {} ranks, this "
                                                 "is rank {}",
                                                 addresses->mac_of_rank.size(), part.rank));
  }
  return addresses;
}

MacAddress port_mac(uint16_t port) {
  rte_ether_addr address{};
  MacAddress mac{};
  if (rte_eth_macaddr_get(port, &address) == 0) {
    std::memcpy(mac.data(), address.addr_bytes, mac.size());
  }
  return mac;
}

bool send_hello(uint16_t port, rte_mempool* pool, const MacAddress& mac) {
  rte_mbuf* m = rte_pktmbuf_alloc(pool);
  if (m == nullptr) return false;
  auto* data = static_cast<uint8_t*>(static_cast<void*>(rte_pktmbuf_append(m, kHelloBytes)));
  if (data == nullptr) {
    rte_pktmbuf_free(m);
    return false;
  }
  std::memset(data, 0, kHelloBytes);
  std::memcpy(data, mac.data(), mac.size());
  std::memcpy(data + 6, mac.data(), mac.size());
  data[12] = static_cast<uint8_t>(kHelloEtherType >> 8);
  data[13] = static_cast<uint8_t>(kHelloEtherType & 0xff);
  // A PMD may take it on a later try (a full ring just after start).
  for (int attempt = 0; attempt < 1000; ++attempt) {
    if (rte_eth_tx_burst(port, 0, &m, 1) == 1) return true;
  }
  rte_pktmbuf_free(m);
  return false;
}

}  // namespace qb::drv::dpdk
