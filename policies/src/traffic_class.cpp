// Traffic classes as libfabric defines them (FI_TC_UNSPEC, FI_TC_DSCP | dscp, labels from
// 0x200): names, the label -> DSCP table, the domain -> endpoint inheritance and the provider
// profiles.
#include "qb/policies/traffic_class.hpp"

#include <fmt/format.h>

namespace qb::policy {
namespace {

struct LabelName {
  std::string_view name;
  TcLabel label;
};

// The six libfabric labels in FI_TC order (best_effort = 0x200 ...), then unspec.
constexpr LabelName kLabelNames[] = {
    {"best_effort", TcLabel::best_effort},
    {"low_latency", TcLabel::low_latency},
    {"dedicated_access", TcLabel::dedicated_access},
    {"bulk_data", TcLabel::bulk_data},
    {"scavenger", TcLabel::scavenger},
    {"network_ctrl", TcLabel::network_ctrl},
    {"unspec", TcLabel::unspec},
};

struct ProviderName {
  std::string_view name;
  TcProvider provider;
};

constexpr ProviderName kProviderNames[] = {{"none", TcProvider::none},
                                           {"efa", TcProvider::efa},
                                           {"cxi", TcProvider::cxi},
                                           {"tcp", TcProvider::tcp},
                                           {"verbs", TcProvider::verbs}};

// libfabric's EFA provider maps FI_TC_LOW_LATENCY to this SL.
constexpr uint8_t kEfaLowLatencySl = 8;

}  // namespace

std::string tc_name(const TrafficClass& tclass) {
  if (tclass.label == TcLabel::dscp) return fmt::format("dscp:{}", tclass.dscp);
  for (const auto& entry : kLabelNames) {
    if (entry.label == tclass.label) return std::string(entry.name);
  }
  return "unspec";
}

Result<TrafficClass> parse_tc_label(std::string_view name) {
  std::string known;
  for (const auto& entry : kLabelNames) {
    if (entry.name == name) return TrafficClass{entry.label, 0};
    known += fmt::format("{}{}", known.empty() ? "" : ", ", entry.name);
  }
  return make_error(Errc::invalid_config,
                    fmt::format("unknown traffic class '{}' (known: {})", name, known));
}

uint8_t LabelDscpTable::dscp_for(const TrafficClass& tclass) const noexcept {
  if (tclass.label == TcLabel::dscp) return tclass.dscp;
  if (tclass.label == TcLabel::unspec) {
    return dscp_by_label[static_cast<size_t>(TcLabel::best_effort)];
  }
  return dscp_by_label[static_cast<size_t>(tclass.label)];
}

TrafficClass inherit_tclass(const TrafficClass& domain, const TrafficClass& endpoint) noexcept {
  return endpoint.label == TcLabel::unspec ? domain : endpoint;
}

std::string_view tc_provider_name(TcProvider provider) noexcept {
  for (const auto& entry : kProviderNames) {
    if (entry.provider == provider) return entry.name;
  }
  return "none";
}

Result<TcProvider> parse_tc_provider(std::string_view name) {
  for (const auto& entry : kProviderNames) {
    if (entry.name == name) return entry.provider;
  }
  return make_error(Errc::invalid_config,
                    fmt::format("unknown provider '{}' (known: none, efa, cxi, tcp, verbs)", name));
}

ProviderVerdict apply_provider(TcProvider provider, const TrafficClass& requested) {
  ProviderVerdict verdict;
  verdict.effective = requested;
  switch (provider) {
    case TcProvider::none:
      break;
    case TcProvider::tcp:
    case TcProvider::verbs:
      // Both providers never look at tclass: nothing is marked.
      verdict.ignored = true;
      verdict.effective = TrafficClass{};
      if (requested.label != TcLabel::unspec) {
        verdict.note = fmt::format("provider {} ignores tclass {}: sent unmarked (DSCP 0)",
                                   tc_provider_name(provider), tc_name(requested));
      }
      break;
    case TcProvider::efa:
      switch (requested.label) {
        case TcLabel::unspec:
        case TcLabel::best_effort:
          break;
        case TcLabel::low_latency:
          verdict.sl = kEfaLowLatencySl;
          verdict.note = "provider efa maps low_latency to SL 8";
          break;
        default:
          verdict.effective = TrafficClass{};
          verdict.note = fmt::format(
              "provider efa accepts only unspec, best_effort and low_latency: tclass {} reset to "
              "unspec",
              tc_name(requested));
          break;
      }
      break;
    case TcProvider::cxi:
      if (requested.label == TcLabel::dscp || requested.label == TcLabel::network_ctrl) {
        verdict.rejected = true;
        verdict.note =
            fmt::format("provider cxi rejects tclass {} (-FI_EINVAL)", tc_name(requested));
      }
      break;
  }
  return verdict;
}

}  // namespace qb::policy
