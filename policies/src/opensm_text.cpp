#include "opensm_text.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace qb::policy::opensm_text {

Result<std::string> read_file(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return make_error(Errc::invalid_config,
                      "cannot read " + std::string(what) + ": " + std::strerror(errno), {},
                      SourceLoc{path, 0, 0});
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) {
    return make_error(Errc::invalid_config, "cannot read " + std::string(what), {},
                      SourceLoc{path, 0, 0});
  }
  return buffer.str();
}

}  // namespace qb::policy::opensm_text
