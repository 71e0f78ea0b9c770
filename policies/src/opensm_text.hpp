// Text handling shared by the two OpenSM readers (opensm.conf and qos-policy.conf): OpenSM reads
// both line by line, with '#' starting a comment anywhere on a line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "qb/common/result.hpp"

namespace qb::policy::opensm_text {

inline bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/// `text` without leading and trailing blanks; `offset` is where the result starts in `text`.
inline std::string_view trim(std::string_view text, size_t& offset) {
  size_t begin = 0;
  while (begin < text.size() && is_blank(text[begin])) ++begin;
  size_t end = text.size();
  while (end > begin && is_blank(text[end - 1])) --end;
  offset = begin;
  return text.substr(begin, end - begin);
}

/// Calls visit(line_number, line) for every line (1-based), the comment cut off; stops at and
/// returns the first failing Status.
template <class Visit>
Status for_each_line(std::string_view text, Visit&& visit) {
  uint32_t line_number = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_number;
    if (const size_t hash = line.find('#'); hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    if (Status status = visit(line_number, line); !status) return status;
  }
  return {};
}

/// The whole file; an unreadable one is Errc::invalid_config naming `what` and the path.
Result<std::string> read_file(const std::string& path, std::string_view what);

}  // namespace qb::policy::opensm_text
