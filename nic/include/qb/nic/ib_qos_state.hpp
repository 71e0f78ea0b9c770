// An InfiniBand port's arbitration tables as the port has them, read back with SMPs (what
// `smpquery sl2vl`, `smpquery vlarb` and `smpquery portinfo` show): SL2VL, the VLArb high and
// low tables, the high limit and the operational VLs. Compared with the suite's [ib] (what
// OpenSM was told to program).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "qb/common/result.hpp"
#include "qb/nic/eth_qos_check.hpp"
#include "qb/policies/port_qos.hpp"

namespace qb::nic {

struct IbQosState {
  std::array<uint8_t, 16> sl2vl{};
  std::vector<policy::VlArbEntry> vlarb_high;  // the port's capacity's worth of entries
  std::vector<policy::VlArbEntry> vlarb_low;
  uint8_t high_limit = 0;
  uint8_t op_vls = 0;  // IBA encoding
  uint8_t vlarb_high_cap = 0, vlarb_low_cap = 0;
};

/// The seam: SMP Get of one attribute of the local port, its 64 data bytes. The real one is
/// libibmad's smp_query_via on the port's umad device (make_ibmad_smp_source); tests replay
/// the bytes smpquery's MADs carry.
class SmpSource {
 public:
  virtual ~SmpSource() = default;
  /// attribute: IB_ATTR_PORT_INFO (0x15), IB_ATTR_SLVL_TABLE (0x17), IB_ATTR_VL_ARBITRATION
  /// (0x18); modifier as smpquery sends it.
  virtual Result<std::array<uint8_t, 64>> get(uint16_t attribute, uint32_t modifier) = 0;
};

/// Null with the reason when this build has no libibmad (then `why` says which packages).
std::unique_ptr<SmpSource> make_ibmad_smp_source(const std::string& device, uint8_t port,
                                                 std::string& why);

/// PortInfo, then SL2VL and the VLArb blocks the capacities need (as smpquery reads them).
Result<IbQosState> read_ib_qos(SmpSource& source, uint8_t port);

/// Every [ib] key the port disagrees with: ib.sl2vl, ib.vlarb_high, ib.vlarb_low,
/// ib.high_limit, ib.op_vls. VLArb tables compare their entries with a weight (an entry of
/// weight 0 is skipped by the arbiter whatever its VL).
std::vector<QosMismatch> compare_ib_qos(const policy::IbArbitration& suite, const IbQosState& nic);

}  // namespace qb::nic
