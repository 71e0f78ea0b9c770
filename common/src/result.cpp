#include "qb/common/result.hpp"

namespace qb {

const char* errc_name(Errc code) noexcept {
  switch (code) {
    case Errc::invalid_config:
      return "invalid_config";
    case Errc::usage:
      return "usage";
    case Errc::not_supported:
      return "not_supported";
    case Errc::unavailable:
      return "unavailable";
    case Errc::runtime:
      return "runtime";
    case Errc::io:
      return "io";
    case Errc::invalid_measurement:
      return "invalid_measurement";
  }
  return "unknown";
}

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
