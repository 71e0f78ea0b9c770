#include "verbs_config.hpp"

namespace qb::drv::verbs {

VerbsConfig parse_verbs_config(const ConfigTable& table) {
  table.allow_only({"provider", "device", "port", "gid_index", "workers", "tree", "hw_rate_limit",
                    "hw_pacing", "peer", "listen", "fake_timing", "fake_sched_support", "nic_qos",
                    "nic_counters", "nic_root", "responder_device"});
  VerbsConfig config;
  if (auto provider = table.string("provider")) {
    if (*provider == "rdma-core") {
      config.provider = Provider::rdma_core;
    } else if (*provider == "fake") {
      config.provider = Provider::fake;
    } else {
      table.fail_at("provider",
                    "must be \"rdma-core\" (a device) or \"fake\" (the fake ConnectX "
                    "of the tests, on simulated timing)");
    }
  }
  config.device = table.string("device").value_or("");
  config.responder_device = table.string("responder_device").value_or("");
  // Port numbers are 8-bit and start at 1 (0 is the switch management port on IB switches).
  config.port = static_cast<uint8_t>(table.integer("port", 1, 254).value_or(1));
  // The GRH's sgid_index is 8 bits (ibv_global_route).
  if (auto index = table.integer("gid_index", 0, 255)) {
    config.gid_index = static_cast<uint32_t>(*index);
  }
  config.workers = static_cast<uint32_t>(table.integer("workers", 1, 64).value_or(1));
  if (auto tree = table.string("tree")) {
    if (*tree == "nic") {
      config.tree = TreeMode::nic;
    } else if (*tree == "software") {
      config.tree = TreeMode::software;
    } else {
      table.fail_at("tree",
                    "must be \"nic\" (mlx5dv_sched: the tree built in the NIC) or \"software\" "
                    "(each QP paced at its oracle share, for devices without mlx5dv_sched)");
    }
  }
  config.hw_rate_limit = table.boolean("hw_rate_limit").value_or(false);
  config.hw_pacing = table.string_list("hw_pacing").value_or(std::vector<std::string>{});
  for (const auto& name : config.hw_pacing) {
    if (name.empty()) table.fail_at("hw_pacing", "a flow name cannot be empty");
  }
  config.peer = table.string("peer").value_or("");
  config.listen = static_cast<uint16_t>(table.integer("listen", 1, 65535).value_or(0));
  if (!config.peer.empty() && config.listen != 0) {
    table.fail_at("listen", "a host either sends (peer) or receives (listen), not both");
  }
  if (table.has("peer") && config.peer.find(':') == std::string::npos) {
    table.fail_at("peer", "must be \"HOST:PORT\" (the receiver's listen port)");
  }
  const bool fake = config.provider == Provider::fake;
  for (const char* key : {"fake_timing", "fake_sched_support"}) {
    if (!fake && table.has(key)) {
      table.fail_at(key, "applies only with provider = \"fake\"");
    }
  }
  if (auto timing = table.string("fake_timing")) {
    if (*timing == "simulated") {
      config.fake_timing = FakeTiming::simulated;
    } else if (*timing == "instant") {
      config.fake_timing = FakeTiming::instant;
    } else {
      table.fail_at("fake_timing", "must be \"simulated\" or \"instant\"");
    }
  }
  config.fake_sched_support = table.boolean("fake_sched_support").value_or(true);
  if (auto mode = table.string("nic_qos")) {
    if (*mode == "check") {
      config.nic_qos = VerbsConfig::NicQos::check;
    } else if (*mode == "apply") {
      config.nic_qos = VerbsConfig::NicQos::apply;
    } else if (*mode == "off") {
      config.nic_qos = VerbsConfig::NicQos::off;
    } else {
      table.fail_at("nic_qos",
                    "must be \"check\" (the port's QoS must be the suite's), \"apply\" (programmed "
                    "for the run, put back after) or \"off\"");
    }
  }
  config.nic_counters = table.boolean("nic_counters").value_or(true);
  config.nic_root = table.string("nic_root").value_or("");
  if (fake && config.fake_timing == FakeTiming::simulated && config.workers > 1) {
    table.fail_at("workers", "the fake on simulated timing runs one worker (virtual time)");
  }
  if (fake && config.fake_timing == FakeTiming::simulated &&
      (!config.peer.empty() || config.listen != 0)) {
    table.fail_at(config.listen != 0 ? "listen" : "peer",
                  "two hosts need real time: with provider = \"fake\", set fake_timing = "
                  "\"instant\"");
  }
  return config;
}

}  // namespace qb::drv::verbs
