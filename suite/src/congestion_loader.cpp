// The congestion sections of a suite (see congestion_loader.hpp).
#include "congestion_loader.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

#include "qb/common/units.hpp"
#include "qb_dpa/programs.h"

namespace qb::suite::detail {
namespace {

constexpr int64_t kMaxDpaThreads = 256;  // a BlueField-3 DPA has 256 hardware threads
constexpr int64_t kMaxQueueEvents = 1 << 20;
constexpr int64_t kMaxEcnBytes = int64_t{1} << 40;
constexpr int64_t kMaxArbClass = 15;
constexpr int64_t kMinLossyBufferBytes = 8192;     // a 4096-byte MTU packet with its headers, twice
constexpr int64_t kMinRetransmitTimeoutNs = 1000;  // longer than a packet's way, so not spinning

std::string program_list() {
  std::string names;
  for (uint32_t i = 0; i < qb_dpa_program_count(); ++i) {
    if (!names.empty()) names += ", ";
    names += qb_dpa_program_at(i)->name;
  }
  return names;
}

// A byte size: an integer, or a string such as "100KB" / "64KiB".
int64_t read_bytes(const TableReader& reader, std::string_view key, int64_t max) {
  const toml::node& node = *reader.find(key);
  int64_t bytes = 0;
  if (const auto* integer = node.as_integer()) {
    bytes = integer->get();
  } else if (const auto* text = node.as_string()) {
    auto parsed = parse_size_bytes(text->get());
    if (!parsed) reader.fail_at(key, parsed.error().message);
    bytes = static_cast<int64_t>(std::min<uint64_t>(*parsed, static_cast<uint64_t>(max) + 1));
  } else {
    reader.at(key).fail_type("a size such as \"100KB\" or an integer of bytes");
  }
  if (bytes < 0 || bytes > max) {
    reader.fail_at(key, fmt::format("{} must be in 0..{} bytes, got {}", key, max, bytes));
  }
  return bytes;
}

// One parameter's value, in the unit its spec says, within the spec's range.
int64_t read_param(const TableReader& reader, std::string_view key, const qb_dpa_param_spec& spec) {
  const toml::node& node = *reader.find(key);
  int64_t value = 0;
  std::string shown;  // the range, as the suite writes it
  switch (spec.kind) {
    case QB_DPA_PARAM_FRACTION: {
      const double number = *reader.number(key, -1e12, 1e12);
      value = std::llround(number * static_cast<double>(QB_DPA_FRACTION_ONE));
      shown = fmt::format("{:g}..{:g}", static_cast<double>(spec.min_value) / QB_DPA_FRACTION_ONE,
                          static_cast<double>(spec.max_value) / QB_DPA_FRACTION_ONE);
      break;
    }
    case QB_DPA_PARAM_TIME_NS:
      value = *reader.duration_ns(key, true);
      shown = fmt::format("{}..{}", format_duration_ns(static_cast<double>(spec.min_value)),
                          format_duration_ns(static_cast<double>(spec.max_value)));
      break;
    case QB_DPA_PARAM_BYTES:
      value = read_bytes(reader, key, INT64_MAX / 2);
      shown = fmt::format("{}..{} bytes", spec.min_value, spec.max_value);
      break;
    case QB_DPA_PARAM_RATE_MBPS:
      if (const auto* text = node.as_string()) {
        auto rate = parse_rate(text->get(), true);
        if (!rate) reader.fail_at(key, rate.error().message);
        if (rate->unit != Rate::Unit::bits_per_second) {
          reader.fail_at(key, fmt::format("{} must be a bit rate such as \"5Mbps\"", key));
        }
        value = std::llround(rate->value / 1e6);
      } else {
        value = *reader.integer(key, INT64_MIN / 2, INT64_MAX / 2);
      }
      shown = fmt::format("{}..{} Mbit/s", spec.min_value, spec.max_value);
      break;
    default:
      value = *reader.integer(key, INT64_MIN / 2, INT64_MAX / 2);
      shown = fmt::format("{}..{}", spec.min_value, spec.max_value);
      break;
  }
  if (value < spec.min_value || value > spec.max_value) {
    reader.fail_at(key, fmt::format("{} must be in {} ({})", key, shown, spec.doc));
  }
  return value;
}

// `[dpa.<key>]` for `program`: every parameter's default, then the values written.
std::vector<int64_t> read_params(const TableReader& dpa, std::string_view key,
                                 const qb_dpa_program& program) {
  std::vector<int64_t> values(program.param_count);
  for (uint32_t i = 0; i < program.param_count; ++i) values[i] = program.params[i].default_value;
  const toml::table* table = dpa.subtable(key);
  if (table == nullptr) return values;
  const TableReader reader(*table, dpa.key_path(key), dpa.file());
  for (auto&& [name, node] : *table) {
    uint32_t found = program.param_count;
    for (uint32_t i = 0; i < program.param_count; ++i) {
      if (name.str() == program.params[i].name) found = i;
    }
    if (found == program.param_count) {
      std::string known;
      for (uint32_t i = 0; i < program.param_count; ++i) {
        known += (i == 0 ? "" : ", ") + std::string(program.params[i].name);
      }
      reader.at(name.str())
          .fail_here(fmt::format("program '{}' has no parameter '{}' (its parameters: {})",
                                 program.name, name.str(), known.empty() ? "none" : known));
    }
    values[found] = read_param(reader, name.str(), program.params[found]);
  }
  return values;
}

const qb_dpa_program& read_program(const TableReader& reader, std::string_view key) {
  const std::string name = reader.required_string(key);
  const qb_dpa_program* program = qb_dpa_find_program(name.c_str());
  if (program == nullptr) {
    reader.fail_at(key,
                   fmt::format("unknown DPA program '{}' (shipped: {})", name, program_list()));
  }
  return *program;
}

}  // namespace

void read_fabric_congestion(const TableReader& reader, FabricSpec& fabric) {
  if (auto interval = reader.duration_ns("cnp_interval", true)) fabric.cnp_interval_ns = *interval;
  if (auto mode = reader.string("mode")) {
    if (*mode == "lossy") {
      if (!fabric.switched) {
        reader.fail_at("mode", "mode = \"lossy\" drops at the switch: it needs switch = true");
      }
      fabric.lossy = true;
    } else if (*mode != "lossless") {
      reader.fail_at("mode", fmt::format("unknown mode '{}' (use lossless or lossy)", *mode));
    }
  }
  // Lossless buffers are sized by the credit loop (docs/dpa.md); a lossy egress class holds
  // `buffer` bytes and drops what does not fit.
  if (reader.has("buffer")) {
    if (!fabric.lossy) {
      reader.fail_at("buffer",
                     "buffer is the lossy switch's egress class buffer: it needs mode = \"lossy\"");
    }
    fabric.buffer_bytes = read_bytes(reader, "buffer", kMaxEcnBytes);
    if (fabric.buffer_bytes < kMinLossyBufferBytes) {
      reader.fail_at("buffer", fmt::format("buffer must hold a packet: at least {} bytes, got {}",
                                           kMinLossyBufferBytes, fabric.buffer_bytes));
    }
  } else if (fabric.lossy) {
    reader.fail_at("mode",
                   "mode = \"lossy\" needs buffer (the switch egress class buffer, e.g. "
                   "buffer = \"256KB\")");
  }
  if (reader.has("retransmit_timeout")) {
    if (!fabric.lossy) {
      reader.fail_at("retransmit_timeout", "retransmit_timeout needs mode = \"lossy\"");
    }
    fabric.retransmit_timeout_ns = *reader.duration_ns("retransmit_timeout", true);
    if (fabric.retransmit_timeout_ns < kMinRetransmitTimeoutNs) {
      reader.fail_at(
          "retransmit_timeout",
          fmt::format("retransmit_timeout must be at least {}, got {}",
                      format_duration_ns(static_cast<double>(kMinRetransmitTimeoutNs)),
                      format_duration_ns(static_cast<double>(fabric.retransmit_timeout_ns))));
    }
  }
  const toml::table* ecn = reader.subtable("ecn");
  if (ecn == nullptr) return;
  const TableReader red(*ecn, reader.key_path("ecn"), reader.file());
  red.allow_only({"min_threshold", "max_threshold", "max_probability", "classes"});
  if (!red.has("min_threshold")) red.fail_missing("min_threshold", "ECN marking needs it");
  fabric.ecn = true;
  fabric.ecn_marking.enabled = true;
  fabric.ecn_marking.min_bytes = read_bytes(red, "min_threshold", kMaxEcnBytes);
  fabric.ecn_marking.max_bytes = red.has("max_threshold")
                                     ? read_bytes(red, "max_threshold", kMaxEcnBytes)
                                     : fabric.ecn_marking.min_bytes;
  if (fabric.ecn_marking.max_bytes < fabric.ecn_marking.min_bytes) {
    red.fail_at("max_threshold", "max_threshold must not be below min_threshold");
  }
  if (auto probability = red.number("max_probability", 0.0, 1.0)) {
    fabric.ecn_marking.max_probability = *probability;
  }
  if (red.has("classes")) {
    const Located value = red.at("classes");
    const auto* array = value.node.as_array();
    if (array == nullptr || array->empty()) value.fail_type("a non-empty array of class numbers");
    for (size_t i = 0; i < array->size(); ++i) {
      const auto* integer = array->get(i)->as_integer();
      if (integer == nullptr || integer->get() < 0 || integer->get() > kMaxArbClass) {
        Located{*array->get(i), fmt::format("{}[{}]", value.path, i), value.file}.fail_here(
            fmt::format("a switch egress class is 0..{} (a TC or a VL)", kMaxArbClass));
      }
      fabric.ecn_classes.push_back(static_cast<uint32_t>(integer->get()));
      fabric.ecn_class_locs.push_back(loc_of(array->get(i)->source(), value.file));
    }
  }
}

DpaSpec read_dpa(const Located* section) {
  DpaSpec spec;
  if (section == nullptr) return spec;
  const TableReader reader(section->table(), section->path, section->file);
  reader.allow_only({"program", "threads", "handler_cost", "queue_events", "tx_sample_interval",
                     "params", "receiver_program", "receiver_params"});
  spec.present = true;
  spec.where = section->path;
  spec.loc = reader.loc();
  policy::DpaPlan& plan = spec.plan;
  const qb_dpa_program& program = read_program(reader, "program");
  plan.program = program.name;
  plan.params = read_params(reader, "params", program);
  if (reader.has("receiver_program")) {
    const qb_dpa_program& receiver = read_program(reader, "receiver_program");
    plan.receiver_program = receiver.name;
    plan.receiver_params = read_params(reader, "receiver_params", receiver);
  } else if (reader.has("receiver_params")) {
    reader.fail_at("receiver_params", "receiver_params needs a receiver_program");
  }
  if (auto threads = reader.integer("threads", 1, kMaxDpaThreads)) {
    plan.threads = static_cast<uint32_t>(*threads);
  }
  if (auto cost = reader.duration_ns("handler_cost", true)) plan.handler_cost_ns = *cost;
  if (auto queue = reader.integer("queue_events", 1, kMaxQueueEvents)) {
    plan.queue_events = static_cast<uint32_t>(*queue);
  }
  if (auto interval = reader.duration_ns("tx_sample_interval", true)) {
    plan.tx_sample_interval_ns = *interval;
  }
  return spec;
}

void check_scenario_congestion(const Scenario& scenario) {
  const FabricSpec& fabric = scenario.fabric;
  if (fabric.ecn && !fabric.switched) {
    fail("ECN marking happens at the switch: [fabric.ecn] needs switch = true",
         fabric.where + ".ecn", fabric.loc);
  }
  // The switch egress has the classes its port QoS gives it: 8 TCs with [eth], the data VLs
  // with [ib], one class without either.
  const uint32_t classes = scenario.eth.present ? 8 : scenario.ib.present ? 15 : 1;
  for (size_t i = 0; i < fabric.ecn_classes.size(); ++i) {
    if (fabric.ecn_classes[i] >= classes) {
      fail(fmt::format(
               "the switch egress has no class {} ({}); it has {}", fabric.ecn_classes[i],
               scenario.eth.present  ? "[eth]: TCs 0..7"
               : scenario.ib.present ? "[ib]: VLs 0..14"
                                     : "no [eth] or [ib]: one class, 0",
               classes == 1 ? std::string("class 0") : fmt::format("classes 0..{}", classes - 1)),
           fmt::format("{}.ecn.classes[{}]", fabric.where, i), fabric.ecn_class_locs[i]);
    }
  }
}

}  // namespace qb::suite::detail
