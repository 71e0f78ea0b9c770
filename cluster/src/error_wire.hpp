// An Error as text, to travel between the ranks of a job with its code (and so its exit code),
// key and location: "e" then the fields, separated by kSeparator.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "qb/common/result.hpp"

namespace qb::cluster {

inline constexpr char kSeparator = '\x1f';  // never in a path, key or message qosbench writes

std::vector<std::string_view> split_fields(std::string_view text);
std::string encode_error(const Error& error);
/// `text` as encode_error wrote it; an Error saying so when it is not (from `rank`).
Error decode_error(std::string_view text, uint32_t rank);

}  // namespace qb::cluster
