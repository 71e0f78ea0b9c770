// Traffic classes: libfabric-style labels and explicit DSCP values, the domain -> tx/rx
// inheritance, the project's label -> DSCP table, and what real providers do with a tclass.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "qb/common/result.hpp"

namespace qb::policy {

/// The libfabric values: FI_TC_UNSPEC 0, FI_TC_DSCP 0x100 | dscp, labels from 0x200.
enum class TcLabel : uint8_t {
  unspec,
  best_effort,
  low_latency,
  dedicated_access,
  bulk_data,
  scavenger,
  network_ctrl,
  dscp,  // an explicit DSCP value (FI_TC_DSCP)
};

struct TrafficClass {
  TcLabel label = TcLabel::unspec;
  uint8_t dscp = 0;  // label == dscp only: 0-63
  friend bool operator==(const TrafficClass&, const TrafficClass&) = default;
};

/// "best_effort", ..., "dscp:46", "unspec".
std::string tc_name(const TrafficClass& tclass);
/// Parses a label name (the six labels and "unspec"); Errc::invalid_config with the known names.
Result<TrafficClass> parse_tc_label(std::string_view name);

/// Label -> DSCP (model choice: libfabric has no such table; configurable per suite). Default:
/// best_effort 0, scavenger CS1 8, bulk_data AF11 10, dedicated_access AF41 34, low_latency EF 46,
/// network_ctrl CS6 48. Indexed by TcLabel (unspec and dscp entries unused).
struct LabelDscpTable {
  std::array<uint8_t, 8> dscp_by_label = {0, 0, 46, 34, 10, 8, 48, 0};
  uint8_t dscp_for(const TrafficClass& tclass) const noexcept;  // unspec -> best_effort's
};

/// libfabric inheritance: an endpoint attribute left unspec takes the domain's.
TrafficClass inherit_tclass(const TrafficClass& domain, const TrafficClass& endpoint) noexcept;

/// Which provider's behaviour to reproduce. `none`: the model (every label through the table).
enum class TcProvider : uint8_t { none, efa, cxi, tcp, verbs };
std::string_view tc_provider_name(TcProvider provider) noexcept;
Result<TcProvider> parse_tc_provider(std::string_view name);

/// What a provider really does with a requested tclass.
struct ProviderVerdict {
  bool rejected = false;      // cxi: DSCP and network_ctrl (-FI_EINVAL): a config error
  TrafficClass effective;     // what goes on the wire (after a reset, when there was one)
  bool ignored = false;       // tcp/verbs: tclass has no effect (DSCP 0 / default SL)
  std::optional<uint8_t> sl;  // efa: low_latency -> SL 8
  std::string note;           // one line for warnings and `explain` ("" when nothing changed)
};
ProviderVerdict apply_provider(TcProvider provider, const TrafficClass& requested);

}  // namespace qb::policy
