// The congestion sections of a suite (see congestion_loader.hpp).
#include "congestion_loader.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
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
// An RC QP's timeout field is 5 bits: 4.096 us x 2^31 is the longest transport timer.
constexpr int64_t kMaxRetransmitTimeoutNs = int64_t{4096} << 31;
// Intervals of the fabric and the DPA: as long as the latest flow start; the simulator keeps
// them in picoseconds beside times of the run, far from 64 bits.
constexpr int64_t kMaxIntervalNs = 1'000'000'000'000;  // 1000 s
// A DPA handler reacts to an event per RTT (microseconds); one of a millisecond is no
// congestion control, and a thread's queue of them already spans the longest run anyone reads.
constexpr int64_t kMaxHandlerCostNs = 1'000'000;

// The shipped programs' names; with `role`, only those of that role.
std::string program_list(uint32_t role = QB_DPA_ROLE_NONE) {
  std::string names;
  for (uint32_t i = 0; i < qb_dpa_program_count(); ++i) {
    const qb_dpa_program* program = qb_dpa_program_at(i);
    if (role != QB_DPA_ROLE_NONE && program->role != role) continue;
    if (!names.empty()) names += ", ";
    names += program->name;
  }
  return names.empty() ? "none" : names;
}

std::string_view role_name(uint32_t role) {
  return role == QB_DPA_ROLE_SENDER     ? "a sender"
         : role == QB_DPA_ROLE_RECEIVER ? "a receiver"
                                        : "no";
}

// A value as the suite wrote it, for "got ..." in messages.
std::string written(const toml::node& node) {
  if (const auto* text = node.as_string()) return fmt::format("\"{}\"", text->get());
  if (const auto* integer = node.as_integer()) return fmt::format("{}", integer->get());
  if (const auto* number = node.as_floating_point()) return fmt::format("{:g}", number->get());
  return std::string(type_phrase(node));
}

// A byte size: an integer, or a string such as "100KB" / "64KiB", within [min, max].
int64_t read_bytes(const TableReader& reader, std::string_view key, int64_t min, int64_t max) {
  const toml::node& node = *reader.find(key);
  double bytes = 0;
  if (const auto* integer = node.as_integer()) {
    bytes = static_cast<double>(integer->get());
  } else if (const auto* text = node.as_string()) {
    auto parsed = parse_size_bytes_unbounded(text->get());
    if (!parsed) reader.fail_at(key, parsed.error().message);
    bytes = *parsed;
    if (bytes != std::floor(bytes) && bytes >= min && bytes <= max) {
      reader.fail_at(
          key, fmt::format("{} must be a whole number of bytes, got \"{}\"", key, text->get()));
    }
  } else {
    reader.at(key).fail_type("a size such as \"100KB\" or an integer of bytes");
  }
  if (min > 0 && bytes < static_cast<double>(min)) {
    reader.fail_at(key,
                   fmt::format("{} must be at least {} bytes, got {}", key, min, written(node)));
  }
  if (!(bytes >= static_cast<double>(min) && bytes <= static_cast<double>(max))) {
    reader.fail_at(key,
                   fmt::format("{} must be in {}..{} bytes, got {}", key, min, max, written(node)));
  }
  return static_cast<int64_t>(bytes);
}

// A parameter's range as the suite writes it.
std::string param_range(const qb_dpa_param_spec& spec) {
  switch (spec.kind) {
    case QB_DPA_PARAM_FRACTION:
      return fmt::format("{:g}..{:g}", static_cast<double>(spec.min_value) / QB_DPA_FRACTION_ONE,
                         static_cast<double>(spec.max_value) / QB_DPA_FRACTION_ONE);
    case QB_DPA_PARAM_TIME_NS:
      return fmt::format("{}..{}", format_duration_ns(static_cast<double>(spec.min_value)),
                         format_duration_ns(static_cast<double>(spec.max_value)));
    case QB_DPA_PARAM_BYTES:
      return fmt::format("{}..{} bytes", spec.min_value, spec.max_value);
    case QB_DPA_PARAM_RATE_MBPS:
      return fmt::format("{}..{} Mbit/s", spec.min_value, spec.max_value);
    default:
      return fmt::format("{}..{}", spec.min_value, spec.max_value);
  }
}

// One parameter's value, in the unit its spec says, within the spec's range: read as a double
// in that unit first, so a value out of the range (however far) is refused with the
// parameter's own range, never the reader's, before it is rounded.
int64_t read_param(const TableReader& reader, std::string_view key, const qb_dpa_param_spec& spec) {
  const toml::node& node = *reader.find(key);
  const std::string range = fmt::format("{} must be in {}", key, param_range(spec));
  // A value that does not parse: why, and what the parameter takes.
  const auto refuse = [&](const std::string& why) {
    reader.fail_at(key, fmt::format("{}; {} ({})", why, range, spec.doc));
  };
  double value = 0;
  switch (spec.kind) {
    case QB_DPA_PARAM_FRACTION:
      value = *reader.number(key, -std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::infinity()) *
              static_cast<double>(QB_DPA_FRACTION_ONE);
      break;
    case QB_DPA_PARAM_TIME_NS: {
      const auto* text = node.as_string();
      if (text == nullptr) reader.at(key).fail_type("a string (a duration such as \"100us\")");
      auto ns = parse_duration_ns_unbounded(text->get());
      if (!ns) refuse(ns.error().message);
      value = *ns;
      break;
    }
    case QB_DPA_PARAM_BYTES:
      if (const auto* integer = node.as_integer()) {
        value = static_cast<double>(integer->get());
      } else if (const auto* text = node.as_string()) {
        auto bytes = parse_size_bytes_unbounded(text->get());
        if (!bytes) refuse(bytes.error().message);
        value = *bytes;
      } else {
        reader.at(key).fail_type("a size such as \"32KiB\" or an integer of bytes");
      }
      break;
    case QB_DPA_PARAM_RATE_MBPS:
      if (const auto* text = node.as_string()) {
        auto rate = parse_rate(text->get(), true);
        if (!rate) refuse(rate.error().message);
        if (rate->unit != Rate::Unit::bits_per_second) {
          refuse(fmt::format("{} must be a bit rate such as \"5Mbps\"", key));
        }
        value = rate->value / 1e6;
      } else if (const auto* integer = node.as_integer()) {
        value = static_cast<double>(integer->get());
      } else {
        reader.at(key).fail_type("a bit rate such as \"5Mbps\" or an integer of Mbit/s");
      }
      break;
    default: {
      const auto* integer = node.as_integer();
      if (integer == nullptr) reader.at(key).fail_type("an integer");
      value = static_cast<double>(integer->get());
      break;
    }
  }
  // Rounded as the program reads it (fixed point, whole ns, bytes, Mbit/s), then the range.
  const double rounded = std::round(value);
  if (!(rounded >= static_cast<double>(spec.min_value) &&
        rounded <= static_cast<double>(spec.max_value))) {
    reader.fail_at(key, fmt::format("{}, got {} ({})", range, written(node), spec.doc));
  }
  return static_cast<int64_t>(rounded);
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

// A program by name, which must declare `role`: the senders' NICs run sender programs, the
// receiver's NIC receiver programs (a reflector on the senders would leave them uncontrolled).
const qb_dpa_program& read_program(const TableReader& reader, std::string_view key, uint32_t role) {
  const std::string name = reader.required_string(key);
  const qb_dpa_program* program = qb_dpa_find_program(name.c_str());
  if (program == nullptr) {
    reader.fail_at(key,
                   fmt::format("unknown DPA program '{}' (shipped: {})", name, program_list()));
  }
  if (program->role != role) {
    reader.fail_at(key, fmt::format("'{}' is {} program ({}); {} takes {} program: {}", name,
                                    role_name(program->role), program->summary, key,
                                    role_name(role), program_list(role)));
  }
  return *program;
}

}  // namespace

void read_fabric_congestion(const TableReader& reader, FabricSpec& fabric, bool has_topology) {
  if (auto interval = reader.duration_ns("cnp_interval", 0, kMaxIntervalNs, "")) {
    fabric.cnp_interval_ns = *interval;
  }
  if (auto mode = reader.string("mode")) {
    if (*mode == "lossy") {
      if (!fabric.switched && !has_topology) {
        reader.fail_at("mode", "mode = \"lossy\" drops at the switch: it needs switch = true "
                               "(or a [topology])");
      }
      fabric.lossy = true;
    } else if (*mode != "lossless") {
      reader.fail_at("mode", fmt::format("unknown mode '{}' (use lossless or lossy)", *mode));
    }
  }
  // Lossless buffers are sized by the credit loop (docs/dpa.md); a lossy egress class holds
  // `buffer` bytes and drops what does not fit (on a [topology]: every switch egress class).
  if (reader.has("buffer")) {
    if (!fabric.lossy) {
      reader.fail_at("buffer",
                     "buffer is the lossy switch's egress class buffer: it needs mode = \"lossy\"");
    }
    // At least two of the largest packets (a 4096-byte MTU packet with its headers).
    fabric.buffer_bytes = read_bytes(reader, "buffer", kMinLossyBufferBytes, kMaxEcnBytes);
  } else if (fabric.lossy) {
    reader.fail_at("mode",
                   "mode = \"lossy\" needs buffer (the switch egress class buffer, e.g. "
                   "buffer = \"256KB\")");
  }
  if (reader.has("retransmit_timeout")) {
    if (!fabric.lossy) {
      reader.fail_at("retransmit_timeout", "retransmit_timeout needs mode = \"lossy\"");
    }
    fabric.retransmit_timeout_ns =
        *reader.duration_ns("retransmit_timeout", kMinRetransmitTimeoutNs, kMaxRetransmitTimeoutNs,
                            "at least a packet's way; at most an RC QP's longest timeout, "
                            "4.096 us x 2^31");
    fabric.retransmit_timeout_loc = reader.value_loc("retransmit_timeout");
  }
  const toml::table* ecn = reader.subtable("ecn");
  if (ecn == nullptr) return;
  const TableReader red(*ecn, reader.key_path("ecn"), reader.file());
  red.allow_only({"min_threshold", "max_threshold", "max_probability", "classes"});
  if (!red.has("min_threshold")) red.fail_missing("min_threshold", "ECN marking needs it");
  fabric.ecn = true;
  fabric.ecn_marking.enabled = true;
  fabric.ecn_marking.min_bytes = read_bytes(red, "min_threshold", 0, kMaxEcnBytes);
  fabric.ecn_marking.max_bytes = red.has("max_threshold")
                                     ? read_bytes(red, "max_threshold", 0, kMaxEcnBytes)
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
  const qb_dpa_program& program = read_program(reader, "program", QB_DPA_ROLE_SENDER);
  plan.program = program.name;
  plan.params = read_params(reader, "params", program);
  if (reader.has("receiver_program")) {
    const qb_dpa_program& receiver = read_program(reader, "receiver_program", QB_DPA_ROLE_RECEIVER);
    plan.receiver_program = receiver.name;
    plan.receiver_params = read_params(reader, "receiver_params", receiver);
  } else if (reader.has("receiver_params")) {
    reader.fail_at("receiver_params", "receiver_params needs a receiver_program");
  }
  if (auto threads = reader.integer("threads", 1, kMaxDpaThreads)) {
    plan.threads = static_cast<uint32_t>(*threads);
  }
  if (auto cost = reader.duration_ns("handler_cost", 0, kMaxHandlerCostNs,
                                     "a handler must keep up with an event per RTT")) {
    plan.handler_cost_ns = *cost;
  }
  if (auto queue = reader.integer("queue_events", 1, kMaxQueueEvents)) {
    plan.queue_events = static_cast<uint32_t>(*queue);
  }
  if (auto interval = reader.duration_ns("tx_sample_interval", 0, kMaxIntervalNs, "0: none")) {
    plan.tx_sample_interval_ns = *interval;
  }
  return spec;
}

void check_scenario_congestion(const Scenario& scenario) {
  const FabricSpec& fabric = scenario.fabric;
  // A [topology] marks at every switch egress.
  if (fabric.ecn && !fabric.switched && !scenario.topology) {
    fail("ECN marking happens at the switch: [fabric.ecn] needs switch = true or a [topology]",
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
