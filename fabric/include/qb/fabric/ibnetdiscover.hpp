// The `ibnetdiscover` topology format (what real InfiniBand fabrics and ibsim's net files give):
// records of a node header and its connected ports, separated by blank lines.
//
//   vendid=0x2c9                              (key=value lines: kept out, never needed)
//   Switch  24 "S-0002c90000000000"   # "desc" base port 0 lid 6 lmc 0
//   [1]  "H-0002c90300001122"[1](2c90300001123)   # "node1 HCA-1" lid 2 4xQDR
//   Ca   2 "H-0002c90300001122"       # "node1 HCA-1"
//   [1](2c90300001123)  "S-0002c90000000000"[1]   # lid 2 lmc 0 "..." lid 6 4xQDR
//
// Node types Switch, Ca (or ibsim's Hca). A port line's trailing comment `<width>x<speed>`
// (4xEDR) gives the link's rate (ibstat's Rate: width x 2.5/5/10/14/25/50/100/200 Gbit/s per
// lane for SDR/DDR/QDR/FDR/EDR/HDR/NDR/XDR, FDR10 10); ibsim's `w=N` width is checked and left
// out (no speed: the suite's rate applies). Routers, ibsim's `include` and `do` lines are
// refused. Every error has the file's line and column.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "qb/common/result.hpp"
#include "qb/fabric/topology.hpp"

namespace qb::fabric {

/// The largest topology file read (a 64k-node fabric's ibnetdiscover output is a few MB).
inline constexpr size_t kMaxIbnetFileBytes = 64u << 20;

struct IbnetPort {
  uint32_t port = 0;
  std::string remote;  // the remote node's id (the quoted string)
  uint32_t remote_port = 0;
  uint64_t port_guid = 0;         // "[1](guid)": the local port's GUID, 0 when not given
  uint64_t remote_port_guid = 0;  // "[1](guid)" after the remote port, 0 when not given
  double rate_bps = 0.0;  // 0: not given (the suite's default applies)
  SourceLoc loc;          // the port line
};

struct IbnetNode {
  bool is_switch = false;
  uint32_t ports = 0;
  std::string id;           // the quoted node id, the node's name in the suite
  std::string description;  // the first quoted string of the header's comment, if any
  SourceLoc loc;            // the header line
  std::vector<IbnetPort> links;
};

struct IbnetFile {
  std::vector<IbnetNode> nodes;
};

/// Syntax only (each line on its own); Errc::invalid_config with `file:line:col`.
Result<IbnetFile> parse_ibnetdiscover(std::string_view text, const std::string& file);

/// The graph: Ca nodes are hosts (in file order), Switch nodes switches; each cable once (both
/// ends may list it; they must agree). `rate_bps` for links whose lines give no speed; `where`
/// names the suite key (e.g. "topology.file") in errors, which point at the file's lines.
Result<Topology> ibnet_topology(const IbnetFile& parsed, double rate_bps, int64_t delay_ns,
                                const std::string& where);

/// Reads and parses a file (at most kMaxIbnetFileBytes); I/O failures are invalid_config at
/// `where`/`loc` (the suite key that named it).
Result<Topology> load_ibnetdiscover(const std::string& path, double rate_bps, int64_t delay_ns,
                                    const std::string& where, const SourceLoc& loc);

}  // namespace qb::fabric
