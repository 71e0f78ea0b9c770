// A one-switch suite of configs/ rewritten as a [topology] of one switch, so the simulator's graph
// model runs what the one-switch model runs: `hosts = N` senders and a receiver "r" on one
// switch "sw", links of `delay` (the one-switch model's one-way delay is two hops), every flow's
// `host = h` made `from = "hNN"`, `to = "r"`. `buffer` (lossless ingress buffers) may be empty.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "process.hpp"

namespace qb::e2e {

/// Replaces the first `from` of `suite` with `to`; a test failure when it is not there.
inline void replace_once(std::string& suite, const std::string& from, const std::string& to) {
  const size_t at = suite.find(from);
  if (at == std::string::npos) {
    ADD_FAILURE() << "the suite has no '" << from << "'";
    return;
  }
  suite.replace(at, from.size(), to);
}

/// The `[topology]` text; `before` is where it goes (e.g. "[fabric.ecn]").
inline std::string one_switch_topology(std::string suite, int hosts, const std::string& before,
                                       const std::string& delay, const std::string& buffer) {
  std::string topology = "[topology]\nkind = \"explicit\"\ndelay = \"" + delay + "\"\n";
  if (!buffer.empty()) topology += "buffer = \"" + buffer + "\"\n";
  topology += R"([[topology.switch]]
name = "sw"
[[topology.host]]
name = "r"
[[topology.link]]
ends = ["r", "sw"]
rate = "100Gbps"
)";
  for (int h = 0; h < hosts; ++h) {
    topology += fmt::format(
        "[[topology.host]]\nname = \"h{0:02d}\"\n[[topology.link]]\nends = [\"h{0:02d}\", "
        "\"sw\"]\nrate = \"100Gbps\"\n",
        h);
  }
  replace_once(suite, fmt::format("hosts = {}\nswitch = true\nswitch_rate = \"100Gbps\"\n", hosts),
               "");
  replace_once(suite, before, topology + "\n" + before);
  for (int h = 0; h < hosts; ++h) {
    replace_once(suite, fmt::format("host = {}\n", h), fmt::format("from = \"h{:02d}\"\nto = \"r\"\n", h));
  }
  return suite;
}

}  // namespace qb::e2e
