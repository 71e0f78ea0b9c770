// An Error as text, to travel between the ranks of a job with its code (and so its exit code),
// key and location: "e" then the fields, separated by kSeparator.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "qb/common/result.hpp"

namespace qb::cluster {

inline constexpr char kSeparator = '\x1f';  // never in a path, key or message qosbench writes

std::vector<std::string_view> split_fields(std::string_view text);
/// A field's number; 0 when it is not one (the fields are written by qosbench's own ranks).
template <class Integer>
Integer field_number(std::string_view text) {
  Integer value{};
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}
std::string encode_error(const Error& error);
/// Whether an error's message names the rank it came from already ("on rank 1 (h1): ...",
/// anywhere: a step may have wrapped it), so that relaying it does not name a rank twice.
inline bool names_a_rank(std::string_view message) {
  return message.find("on rank ") != std::string_view::npos;
}
/// `text` as encode_error wrote it; an Error saying so when it is not (from `rank`).
Error decode_error(std::string_view text, uint32_t rank);

}  // namespace qb::cluster
