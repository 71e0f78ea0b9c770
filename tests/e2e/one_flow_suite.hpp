// The one-flow suite of tests/e2e/one_flow.toml (one leaf, one saturating flow; no comment in
// it, so that the line numbers errors quote are the suite's own), with what a test changes in
// it: the suite's name and duration, the flow's name, size and rate, and keys after the flow's.
#pragma once

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace qb::e2e {

struct OneFlow {
  std::string name = "e2e";       // [suite] name
  std::string duration = "5ms";   // [suite] duration
  std::string flow = "f";         // the flow's name
  std::string size = "4096";      // its size (a TOML value)
  std::string rate = "saturate";  // its rate
  std::string extra;              // appended after the flow's keys
};

/// The fixture's text with `suite`'s values in place of its own.
inline std::string one_flow_suite(const OneFlow& suite) {
  std::ifstream in(QB_SOURCE_DIR "/tests/e2e/one_flow.toml");
  std::stringstream text;
  text << in.rdbuf();
  std::string out = text.str();
  const auto set = [&](const std::string& line, const std::string& value_line) {
    const size_t at = out.find("\n" + line + "\n");
    if (at == std::string::npos) throw std::logic_error("one_flow.toml has no line " + line);
    out.replace(at + 1, line.size(), value_line);
  };
  set("name = \"e2e\"", "name = \"" + suite.name + "\"");
  set("duration = \"5ms\"", "duration = \"" + suite.duration + "\"");
  set("name = \"f\"", "name = \"" + suite.flow + "\"");
  set("size = 4096", "size = " + suite.size);
  set("rate = \"saturate\"", "rate = \"" + suite.rate + "\"");
  return out + suite.extra;
}

}  // namespace qb::e2e
