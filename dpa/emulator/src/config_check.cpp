// The emulator's config check: each rule names the field it is about, so a suite error or a
// test can say which one is wrong.
#include "config_check.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace qb::dpa {
namespace {

[[noreturn]] void reject(const std::string& what) {
  throw std::invalid_argument("dpa emulator: " + what);
}

void check_program(const qb_dpa_program* program) {
  if (program == nullptr) reject("program is missing");
  const char* name = program->name != nullptr ? program->name : "(unnamed)";
  if (program->handle == nullptr) reject(fmt::format("program->handle of '{}' is null", name));
  if (program->param_count > QB_DPA_MAX_PARAMS) {
    reject(fmt::format("program->param_count of '{}' is {}, more than QB_DPA_MAX_PARAMS ({})", name,
                       program->param_count, QB_DPA_MAX_PARAMS));
  }
  if (program->param_count > 0 && program->params == nullptr) {
    reject(fmt::format("program->params of '{}' is null but param_count is {}", name,
                       program->param_count));
  }
  if (program->context_bytes > QB_DPA_FLOW_CONTEXT_BYTES) {
    reject(fmt::format(
        "program->context_bytes of '{}' is {}, more than QB_DPA_FLOW_CONTEXT_BYTES ({})", name,
        program->context_bytes, QB_DPA_FLOW_CONTEXT_BYTES));
  }
}

std::vector<int64_t> param_block(const EmulatorConfig& config) {
  const qb_dpa_program& program = *config.program;
  const size_t count = program.param_count;
  if (!config.params.empty() && config.params.size() != count) {
    reject(fmt::format("params has {} values but program '{}' declares {}", config.params.size(),
                       program.name != nullptr ? program.name : "(unnamed)", count));
  }
  std::vector<int64_t> block(count);
  for (size_t i = 0; i < count; ++i) {
    const qb_dpa_param_spec& spec = program.params[i];
    const char* name = spec.name != nullptr ? spec.name : "(unnamed)";
    // A default outside its own range is the program's bug; it is reported the same way.
    const int64_t value = config.params.empty() ? spec.default_value : config.params[i];
    if (value < spec.min_value || value > spec.max_value) {
      reject(fmt::format("params[{}] ({}) is {}, outside [{}, {}]", i, name, value, spec.min_value,
                         spec.max_value));
    }
    block[i] = value;
  }
  return block;
}

}  // namespace

std::vector<int64_t> check_config(const EmulatorConfig& config) {
  check_program(config.program);
  if (config.threads < 1) reject("threads must be at least 1");
  if (config.queue_events < 1) reject("queue_events must be at least 1");
  if (config.handler_cost_ns < 0) {
    reject(fmt::format("handler_cost_ns is {}, must not be negative", config.handler_cost_ns));
  }
  if (config.line_rate_mbps < 1) reject("line_rate_mbps must be at least 1");
  return param_block(config);
}

}  // namespace qb::dpa
