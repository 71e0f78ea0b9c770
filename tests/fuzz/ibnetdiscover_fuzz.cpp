// libFuzzer target: parse_ibnetdiscover() and ibnet_topology() must never crash, hang or leak,
// and keep their promises: errors are invalid_config located in the file (line >= 1, column >= 1);
// a topology they accept has its hosts, each with its one link, every channel's ends consistent,
// and routes between its first hosts.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.hpp"
#include "qb/fabric/ibnetdiscover.hpp"
#include "qb/fabric/routing.hpp"

using qb::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = qb::fabric::parse_ibnetdiscover(text, "net.topo");
  if (!parsed.ok()) {
    const auto& error = parsed.error();
    check(error.code == qb::Errc::invalid_config && !error.message.empty());
    check(error.loc.file == "net.topo" && error.loc.line >= 1 && error.loc.column >= 1);
    return 0;
  }
  auto topology = qb::fabric::ibnet_topology(*parsed, 100e9, 500, "topology.file");
  if (!topology.ok()) {
    const auto& error = topology.error();
    check(error.code == qb::Errc::invalid_config && !error.message.empty());
    check(error.where == "topology.file");
    return 0;
  }
  const qb::fabric::Topology& t = *topology;
  check(t.host_count() >= 1);
  for (uint32_t c = 0; c < t.channel_count(); ++c) {
    const auto ch = t.channel(c);
    check(t.nodes()[ch.from].out_channel[ch.from_port] == c);
    check(t.nodes()[ch.to].out_channel[ch.to_port] == (c ^ 1u));
    check(ch.rate_bps > 0.0);
  }
  // Every host reaches every other: route the first few pairs.
  std::vector<qb::fabric::FlowEndpoints> flows;
  for (uint32_t s = 0; s < t.host_count() && s < 4; ++s) {
    for (uint32_t d = 0; d < t.host_count() && d < 4; ++d) {
      if (s != d) flows.push_back({s, d});
    }
  }
  auto routes = qb::fabric::route_flows(t, flows, qb::fabric::RoutingSpec{});
  check(routes.ok());
  for (size_t i = 0; i < flows.size(); ++i) {
    const auto& channels = (*routes)[i].channels;
    check(!channels.empty() && channels.size() <= t.nodes().size());
    check(t.channel(channels.back()).to == t.hosts()[flows[i].dst_host]);
  }
  return 0;
}
