// The shipped programs by name (dpa/programs' registry, qb_dpa/programs.h). Built only where
// the qb_dpa_programs library exists (dpa/emulator/CMakeLists.txt).
#include <string>
#include <string_view>
#include <vector>

#include "qb/dpa/emulator.hpp"
#include "qb_dpa/programs.h"

namespace qb::dpa {

const qb_dpa_program* find_program(std::string_view name) noexcept {
  // Walks the registry rather than calling qb_dpa_find_program: that one wants a C string, and
  // making one could throw here.
  const uint32_t count = qb_dpa_program_count();
  for (uint32_t i = 0; i < count; ++i) {
    const qb_dpa_program* program = qb_dpa_program_at(i);
    if (program != nullptr && program->name != nullptr && name == program->name) return program;
  }
  return nullptr;
}

std::vector<std::string> program_names() {
  std::vector<std::string> names;
  const uint32_t count = qb_dpa_program_count();
  names.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    const qb_dpa_program* program = qb_dpa_program_at(i);
    if (program != nullptr && program->name != nullptr) names.emplace_back(program->name);
  }
  return names;
}

}  // namespace qb::dpa
