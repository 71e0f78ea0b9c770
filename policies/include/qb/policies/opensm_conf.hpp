// OpenSM import, part 1: the `qos_*` options of opensm.conf, and the SL2VL / VLArb tables OpenSM
// programs from them on one port (OpenSM osm_subnet.c and osm_qos.c behaviour).
//
// OpenSM is lenient and so is this parser: bad values only produce warnings and the value OpenSM
// would use. Stricter than OpenSM (an error here, a log line there): a line naming a qos_* option
// with no value, and a qos_*_max_vls that is not a number (OpenSM logs "-E- Parsing error" and
// keeps the previous value).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "qb/common/result.hpp"

namespace qb::policy {

/// Which QoS option set a port uses: CA ports, switch external ports, switch port 0, routers.
enum class IbPortType { ca, swe, sw0, rtr };

std::string_view ib_port_type_name(IbPortType type) noexcept;
Result<IbPortType> parse_ib_port_type(std::string_view name);

/// One option set as written in the file (`qos_` or `qos_<type>_`); unset = not given, or given
/// with a value OpenSM discards (max_vls 0 or > 15, high_limit outside 0-255, "(null)").
struct OpensmQosSet {
  std::optional<uint32_t> max_vls;
  std::optional<int32_t> high_limit;
  std::optional<std::string> vlarb_high;
  std::optional<std::string> vlarb_low;
  std::optional<std::string> sl2vl;
};

struct OpensmWarning {
  SourceLoc loc;
  std::string message;
};

struct OpensmConf {
  bool qos_enabled = false;  // `qos TRUE` (OpenSM programs no QoS tables without it or -Q)
  std::string qos_policy_file;
  OpensmQosSet generic;  // qos_*
  OpensmQosSet ca, swe, sw0, rtr;
  /// `max_op_vls` (IBA encoding 1..5): OpenSM sets a port's OperationalVLs to the smaller of
  /// its VLCap and this. Unset: not given, or outside 1..5 (OpenSM's default 5 = VL0-14).
  std::optional<uint8_t> max_op_vls;
  std::vector<OpensmWarning> warnings;  // what OpenSM would log, in file order

  const OpensmQosSet& set_for(IbPortType type) const noexcept;
};

/// Parses opensm.conf text the way OpenSM reads its options file: '#' starts a comment anywhere,
/// the first blank-separated token is the key, the rest (trimmed, one pair of quotes removed) the
/// value, the last occurrence of a key wins, unknown keys are ignored. `file` names the source in
/// locations. Errors: Errc::invalid_config with line:col.
Result<OpensmConf> parse_opensm_conf(std::string_view text, const std::string& file);
/// Reads and parses a file; an unreadable file is Errc::invalid_config (exit 2) naming the path.
Result<OpensmConf> load_opensm_conf(const std::string& path);

/// What the port reports (PortInfo): OperationalVLs in the IBA encoding (1 = VL0, 2 = VL0-1,
/// 3 = VL0-3, 4 = VL0-7, 5 = VL0-14) and the VLArb table capacities (0-64 entries each).
/// Defaults: a ConnectX-class CA (VLCap 4 = 8 data VLs), 8 high / 8 low entries.
struct IbPortCaps {
  uint8_t op_vls = 4;
  uint8_t vlarb_high_cap = 8;
  uint8_t vlarb_low_cap = 8;
};

/// The VLCap assumed for a port whose operational VLs are not given: a ConnectX-class CA, VL0-7.
inline constexpr uint8_t kDefaultVlCap = 4;

/// The OperationalVLs OpenSM gives a port with `vl_cap`: min(vl_cap, max_op_vls of the file).
uint8_t operational_vls(uint8_t vl_cap, const OpensmConf& conf) noexcept;

/// Checks op_vls in 1..5 and capacities <= 64 (Errc::usage otherwise).
Status validate_port_caps(const IbPortCaps& caps);

/// Highest data VL usable with `op_vls` (0, 1, 3, 7, 14), and the mask OpenSM applies to VLs.
uint8_t max_data_vl(uint8_t op_vls) noexcept;
uint8_t op_vls_mask(uint8_t op_vls) noexcept;

struct VlArbEntry {
  uint8_t vl = 0;
  uint8_t weight = 0;  // 64-byte credits, 0 = entry skipped
  friend bool operator==(const VlArbEntry&, const VlArbEntry&) = default;
};

/// The tables OpenSM programs on a port: SL2VL (15 = drop), VLArb high and low (exactly as long
/// as the port's capacity, in programmed order) and the high limit.
struct IbPortQos {
  std::array<uint8_t, 16> sl2vl{};
  std::vector<VlArbEntry> vlarb_high;
  std::vector<VlArbEntry> vlarb_low;
  uint8_t high_limit = 0;
  uint32_t max_vls = 15;  // resolved qos_max_vls (OpenSM uses it only in torus-2QoS routing)
};

/// Resolves the port type's set over the generic set over the built-in defaults and builds the
/// tables for a port with `caps` (caps must have passed validate_port_caps).
IbPortQos program_port_qos(const OpensmConf& conf, IbPortType type, const IbPortCaps& caps);

}  // namespace qb::policy
