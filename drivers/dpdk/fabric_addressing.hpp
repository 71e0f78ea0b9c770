// A fabric job's addresses (a suite's [topology] over real ports): every rank sends and
// receives, so a sender must address each flow's frames to the port of the rank that receives
// it — a switch then forwards them there alone instead of flooding them to every rank. The
// ranks learn each other's MAC addresses through the job's exchange (one record each):
//
//   "qosbench-dpdk-fabric 1 <rank> <mac aa:bb:cc:dd:ee:ff>"
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "packet_template.hpp"
#include "qb/common/result.hpp"
#include "qb/drivers/backend.hpp"

struct rte_mempool;

namespace qb::drv::dpdk {

using MacAddress = std::array<uint8_t, 6>;

struct FabricAddresses {
  std::vector<MacAddress> mac_of_rank;

  /// Flow `flow`'s frames: from this rank's port to its receiving rank's, and the two ranks'
  /// IPv4 addresses in 198.18.0.0/15 (RFC 2544's benchmarking range: 198.18.0.1 is rank 0).
  void address(const JobPart& part, uint32_t flow, FrameSpec& spec) const;
};

std::string format_address_record(uint32_t rank, const MacAddress& mac);
/// Every rank's address from the records in rank order: Errc::runtime for a record that is
/// not one, or whose rank is not its place.
Result<FabricAddresses> parse_address_records(const std::vector<std::string>& records);

/// The exchange itself (part.exchange), this rank's port `mac` in it.
Result<FabricAddresses> exchange_addresses(const JobPart& part, const MacAddress& mac);

MacAddress port_mac(uint16_t port);
/// One frame from `mac` to `mac` on the port's first Tx queue (EtherType 0x88b5, local
/// experimental): what teaches a learning switch where `mac` is. False when it was not sent.
bool send_hello(uint16_t port, rte_mempool* pool, const MacAddress& mac);

}  // namespace qb::drv::dpdk
