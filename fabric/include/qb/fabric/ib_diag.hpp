// What infiniband-diags print about a running fabric, read back for `qosbench import-opensm
// --fabric-dir` (issue 29 part 6): the switches' linear forwarding tables (`dump_lfts` /
// `ibroute`) and each port's SL2VL and VLArb tables (`smpquery sl2vl` / `smpquery vlarb`, gathered
// by scripts/opensm-fabric.sh under one "### node" line per port). Every error has the file's
// line and column.
//
//   Unicast lids [0x0-0x6] of switch DR path slid 0; dlid 0; 0,1 guid 0x0000000000200000 (Switch1):
//     Lid  Out   Destination
//          Port     Info
//   0x0004 003 : (Channel Adapter portguid 0x0000000000100004: 'Hca2')
//
//   ### node "S-0000000000200000" port 3
//   # SL2VL table: Lid 2
//   #                 SL: | 0| 1| ...|15|
//   ports: in  1, out  3: | 0| 1| ...| 7|
//   # VLArbitration tables: Lid 2 port 3 LowCap 8 HighCap 8
//   # Low priority VL Arbitration Table:
//   VL    : |0x0 |0x1 |...
//   WEIGHT: |0x0 |0x4 |...
//   # High priority VL Arbitration Table:
//   ...
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "qb/common/result.hpp"
#include "qb/policies/opensm_conf.hpp"

namespace qb::fabric {

struct DiagLftEntry {
  uint32_t lid = 0;
  uint32_t port = 0;       // 0: the switch itself
  uint64_t port_guid = 0;  // the destination port's GUID
  bool to_ca = false;      // "Channel Adapter" (else a switch)
  SourceLoc loc;
};

/// One switch's table as `ibroute` prints it.
struct DiagLft {
  uint64_t switch_guid = 0;
  std::string description;  // the name in parentheses
  std::vector<DiagLftEntry> entries;
  SourceLoc loc;
};

/// `dump_lfts` / `ibroute` output: one block per switch. Lines other than block headers and
/// entries (column titles, "N valid lids dumped", warnings) are skipped; an entry outside a block,
/// or a block header or entry that does not parse, is an error.
Result<std::vector<DiagLft>> parse_dump_lfts(std::string_view text, const std::string& file);

/// One port's tables as smpquery printed them.
struct DiagPortTables {
  std::string node;  // the ibnetdiscover node id
  uint32_t port = 0;
  /// Per SL2VL row: the input port and the 16 VLs. A CA has one row (in 0).
  std::vector<std::pair<uint32_t, std::array<uint8_t, 16>>> sl2vl_rows;
  std::vector<policy::VlArbEntry> vlarb_high, vlarb_low;
  SourceLoc loc;  // the "### node" line
  /// Where each value was read (for errors about the values): per SL2VL row its 16 cells, per
  /// VLArb entry its VL cell.
  std::vector<std::array<SourceLoc, 16>> sl2vl_locs;
  std::vector<SourceLoc> vlarb_high_locs, vlarb_low_locs;
};

/// The port-tables file of scripts/opensm-fabric.sh. Every port has an SL2VL row, and both VLArb
/// tables with as many VLs as weights.
Result<std::vector<DiagPortTables>> parse_port_tables(std::string_view text,
                                                      const std::string& file);

/// The switch ports' SL2VL table: the rows must agree on every input port other than the output
/// port itself (OpenSM programs one table per output port); empty message when they do.
std::string sl2vl_rows_problem(const DiagPortTables& tables);

/// A VL the port cannot have: a VLArb entry, or an SL2VL cell other than 15 (drop), above
/// `max_data_vl` (the port's operational VLs; OpenSM never programs one, so the tables were read
/// with other VLs than the suite assumes). Errc::invalid_config at the value's cell, else ok.
Status check_port_vls(const DiagPortTables& tables, uint8_t max_data_vl);

}  // namespace qb::fabric
