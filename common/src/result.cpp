#include "qb/common/result.hpp"

namespace qb {

int exit_code_for(Errc code) noexcept {
  return (code == Errc::invalid_config || code == Errc::usage) ? 2 : 3;
}

std::string Error::to_string() const {
  std::string out;
  if (!loc.file.empty()) {
    out += loc.file;
    if (loc.line != 0) {
      out += ':' + std::to_string(loc.line);
      if (loc.column != 0) out += ':' + std::to_string(loc.column);
    }
    out += ": ";
  }
  out += "error: ";
  if (!where.empty()) out += where + ": ";
  out += message;
  return out;
}

}  // namespace qb
