// Judges the receiver's side of the AF_XDP namespace test (af_xdp_veth_test.sh): its results
// JSON and the number of frames the sender's veth put on the wire (kernel counter). Prints a
// per-flow table and every check; exits 0 when all pass, 1 when one fails, 2 on bad input.
//
// Zero loss is shown by counts, not by rates: every frame the sender's interface sent reached
// the receiver's socket, every one of them was a qosbench frame of a known flow, no flow has a
// sequence gap or a late frame, and the flows' counts (inside the measured window) add up to
// everything received. With no gaps and no late frames per flow, equal totals mean each flow
// got exactly what was sent for it (only a flow's tail could otherwise go missing unseen).
#include <cstdio>
#include <exception>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  std::printf("  [%s] %s\n", ok ? "ok" : "FAIL", what.c_str());
  if (!ok) ++failures;
}

double stat(const nlohmann::json& stats, const char* key) {
  return stats.contains(key) ? stats[key].get<double>() : -1.0;
}

std::string count(double value) {
  return std::to_string(static_cast<long long>(value));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: af_xdp_check RECEIVER_RESULTS.json SENT_FRAMES\n");
    return 2;
  }
  nlohmann::json results;
  double sent = 0.0;
  try {
    std::ifstream in(argv[1]);
    results = nlohmann::json::parse(in);
    sent = std::stod(argv[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "af_xdp_check: %s: %s\n", argv[1], e.what());
    return 2;
  }
  const auto& scenario = results["scenarios"][0];
  const auto& stats = scenario["driver_stats"];
  std::printf("  %-10s %10s\n", "flow", "packets");
  double flow_sum = 0.0;
  bool every_flow = true;
  for (const auto& flow : scenario["flows"]) {
    const double packets = flow["packets"].get<double>();
    flow_sum += packets;
    every_flow = every_flow && packets > 0.0;
    std::printf("  %-10s %10s\n", flow["name"].get<std::string>().c_str(), count(packets).c_str());
  }
  const double received = stat(stats, "rx_packets");
  const double foreign = stat(stats, "rx_foreign");
  const double at_port = stat(stats, "port_ipackets");
  const double missed = stat(stats, "port_imissed");
  std::printf(
      "  sender veth sent %s frames; receiver port got %s (missed %s), %s qosbench frames, "
      "%s foreign; lost %s\n",
      count(sent).c_str(), count(at_port).c_str(), count(missed).c_str(), count(received).c_str(),
      count(foreign).c_str(), count(sent - received - foreign).c_str());

  check(results["driver"] == "dpdk" && results["complete"] == true, "a complete dpdk run");
  check(stat(stats, "receive") == 1.0 && stat(stats, "transmit") == 0.0,
        "the receiver ran receive-only (tx_port = \"none\")");
  check(every_flow, "every flow arrived");
  check(received > 0.0 && flow_sum == received,
        "every received frame is counted in the window (flows " + count(flow_sum) + ", rx " +
            count(received) + ")");
  check(stat(stats, "rx_seq_gaps") == 0.0,
        "no sequence gaps (" + count(stat(stats, "rx_seq_gaps")) + ")");
  check(stat(stats, "rx_late") == 0.0,
        "no late or duplicate frames (" + count(stat(stats, "rx_late")) + ")");
  check(missed == 0.0, "the receiver's socket missed nothing (" + count(missed) + ")");
  check(at_port == sent, "every frame the sender's veth sent reached the receiver's port (" +
                             count(at_port) + " of " + count(sent) + ")");
  check(received + foreign == at_port, "every frame at the port was handed to the engine");
  std::printf("%s\n", failures == 0 ? "af_xdp: zero loss" : "af_xdp: FAILED");
  return failures == 0 ? 0 : 1;
}
