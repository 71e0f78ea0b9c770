#include "qb/fabric/traffic.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "qb/common/rng.hpp"

namespace qb::fabric {

std::string_view pattern_name(DestinationPattern pattern) noexcept {
  switch (pattern) {
    case DestinationPattern::fixed:
      return "fixed";
    case DestinationPattern::permutation:
      return "permutation";
    case DestinationPattern::all_to_all:
      return "all-to-all";
    case DestinationPattern::incast:
      return "incast";
  }
  return "?";
}

namespace {

Error bad(std::string message) { return make_error(Errc::invalid_config, std::move(message)); }

// "prefix<digits>" split; digits empty when the name does not end in a number.
std::pair<std::string_view, std::string_view> split_number(std::string_view name) {
  size_t i = name.size();
  while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') --i;
  return {name.substr(0, i), name.substr(i)};
}

}  // namespace

Result<std::vector<uint32_t>> resolve_hosts(const Topology& topology, std::string_view text) {
  std::vector<uint32_t> hosts;
  if (text == "*") {
    for (uint32_t h = 0; h < topology.host_count(); ++h) hosts.push_back(h);
    return hosts;
  }
  const size_t dots = text.find("..");
  if (dots == std::string_view::npos) {
    const auto host = topology.find_host(text);
    if (!host) {
      return bad(topology.find_node(text) ? fmt::format("'{}' is a switch, not a host", text)
                                          : fmt::format("no host named '{}'", text));
    }
    hosts.push_back(*host);
    return hosts;
  }
  const std::string_view first = text.substr(0, dots), last = text.substr(dots + 2);
  const auto [prefix_a, digits_a] = split_number(first);
  const auto [prefix_b, digits_b] = split_number(last);
  if (digits_a.empty() || digits_b.empty() || prefix_a != prefix_b) {
    return bad(fmt::format("'{}' is not a host range: write first..last with the same name and "
                           "numbers, e.g. h0..h15",
                           text));
  }
  uint64_t a = 0, b = 0;
  const auto ra = std::from_chars(digits_a.data(), digits_a.data() + digits_a.size(), a);
  const auto rb = std::from_chars(digits_b.data(), digits_b.data() + digits_b.size(), b);
  if (ra.ec != std::errc() || rb.ec != std::errc() || a > kMaxNodes || b > kMaxNodes) {
    return bad(fmt::format("host range '{}': numbers too large", text));
  }
  if (b < a) return bad(fmt::format("host range '{}' runs backwards", text));
  // A zero-padded first number keeps its width ("h00..h15"); otherwise plain numbers.
  const size_t width = digits_a.size() > 1 && digits_a[0] == '0' ? digits_a.size() : 0;
  for (uint64_t i = a; i <= b; ++i) {
    const std::string name = fmt::format("{}{:0{}}", prefix_a, i, width);
    const auto host = topology.find_host(name);
    if (!host) return bad(fmt::format("host range '{}': no host named '{}'", text, name));
    hosts.push_back(*host);
  }
  return hosts;
}

Result<std::vector<FlowEndpoints>> expand_template(const TrafficTemplate& spec) {
  std::vector<FlowEndpoints> flows;
  const auto& src = spec.sources;
  if (src.empty()) return bad("no sources");
  {
    std::vector<uint32_t> sorted = src;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
      return bad("a host is listed twice among the sources");
    }
  }
  switch (spec.pattern) {
    case DestinationPattern::fixed: {
      if (spec.destinations.size() != 1 && spec.destinations.size() != src.size()) {
        return bad(fmt::format("fixed destinations: give one host or one per source ({}), got {}",
                               src.size(), spec.destinations.size()));
      }
      for (size_t i = 0; i < src.size(); ++i) {
        const uint32_t dst = spec.destinations.size() == 1 ? spec.destinations[0]
                                                           : spec.destinations[i];
        if (dst == src[i]) return bad(fmt::format("source #{} sends to itself", i));
        flows.push_back({src[i], dst});
      }
      break;
    }
    case DestinationPattern::incast: {
      if (spec.destinations.size() != 1) return bad("incast has one destination");
      for (const uint32_t s : src) {
        if (s == spec.destinations[0]) {
          return bad("the incast destination is also a source (it would send to itself)");
        }
        flows.push_back({s, spec.destinations[0]});
      }
      break;
    }
    case DestinationPattern::permutation: {
      if (src.size() < 2) return bad("a permutation needs at least two sources");
      // Sattolo's algorithm: a uniformly random single cycle through all sources, so no
      // source sends to itself.
      std::vector<uint32_t> to = src;
      Rng rng(spec.seed);
      for (size_t i = to.size() - 1; i > 0; --i) {
        const size_t j = rng.next_below(i);
        std::swap(to[i], to[j]);
      }
      for (size_t i = 0; i < src.size(); ++i) flows.push_back({src[i], to[i]});
      break;
    }
    case DestinationPattern::all_to_all: {
      if (src.size() < 2) return bad("all-to-all needs at least two sources");
      const uint64_t n = src.size();
      if (n * (n - 1) > kMaxTemplateFlows) {
        return bad(fmt::format("all-to-all over {} hosts is {} flows; at most {}", n, n * (n - 1),
                               kMaxTemplateFlows));
      }
      for (const uint32_t s : src) {
        for (const uint32_t d : src) {
          if (s != d) flows.push_back({s, d});
        }
      }
      break;
    }
  }
  return flows;
}

}  // namespace qb::fabric
