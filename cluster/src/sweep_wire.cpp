#include "sweep_wire.hpp"

#include <fmt/format.h>

#include <cstring>

#include "error_wire.hpp"
#include "qb/engine/outcome_codec.hpp"

namespace qb::cluster {

// What one rank sends: 'o' and its length-prefixed outcomes, or the error that stopped it
// (error_wire: starts with 'e').
constexpr char kOutcomes = 'o';

std::string pack_outcomes(const Result<std::vector<engine::RepetitionOutcome>>& mine) {
  if (!mine) return encode_error(mine.error());
  std::string out(1, kOutcomes);
  for (const auto& outcome : *mine) {
    const std::string bytes = engine::encode_outcome(outcome);
    const uint64_t size = bytes.size();
    out.append(reinterpret_cast<const char*>(&size), sizeof size);
    out += bytes;
  }
  return out;
}

Status unpack_outcomes(std::string_view bytes, uint32_t rank,
                       std::vector<engine::RepetitionOutcome>& all) {
  const auto bad = [rank](const std::string& why) {
    return make_error(Errc::runtime, fmt::format("rank {}: {}", rank, why));
  };
  if (bytes.empty()) return bad("sent nothing");
  if (bytes.front() == 'e') {
    Error error = decode_error(bytes, rank);
    // Errors the job agreed on name their rank already ("on rank 1 (host): ...").
    if (!names_a_rank(error.message)) {
      error.message = fmt::format("on rank {}: {}", rank, error.message);
    }
    return error;
  }
  if (bytes.front() != kOutcomes) return bad("sent something that is not a result");
  bytes.remove_prefix(1);
  while (!bytes.empty()) {
    uint64_t size = 0;
    if (bytes.size() < sizeof size) return bad("truncated result");
    std::memcpy(&size, bytes.data(), sizeof size);
    bytes.remove_prefix(sizeof size);
    if (size > bytes.size()) return bad("truncated result");
    auto outcome = engine::decode_outcome(bytes.substr(0, size));
    if (!outcome) return bad(outcome.error().message);
    all.push_back(std::move(*outcome));
    bytes.remove_prefix(size);
  }
  return {};
}
}  // namespace qb::cluster
