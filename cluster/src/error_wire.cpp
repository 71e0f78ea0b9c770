#include "error_wire.hpp"

#include <fmt/format.h>

namespace qb::cluster {
std::vector<std::string_view> split_fields(std::string_view text) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t end = text.find(kSeparator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

std::string encode_error(const Error& e) {
  const char s = kSeparator;
  return fmt::format("e{}{}{}{}{}{}{}{}{}{}{}", static_cast<int>(e.code), s, e.where, s, e.loc.file,
                     s, e.loc.line, s, e.loc.column, s, e.message);
}

Error decode_error(std::string_view text, uint32_t rank) {
  const auto parts = split_fields(text.substr(1));
  if (text.empty() || text.front() != 'e' || parts.size() < 6) {
    return make_error(Errc::runtime, fmt::format("rank {} sent an unreadable error", rank));
  }
  Error error;
  error.code = static_cast<Errc>(field_number<uint32_t>(parts[0]));
  error.where = std::string(parts[1]);
  error.loc = SourceLoc{std::string(parts[2]), field_number<uint32_t>(parts[3]),
                        field_number<uint32_t>(parts[4])};
  error.message = std::string(parts[5]);
  return error;
}

}  // namespace qb::cluster
