#include "qb/cluster/sweep.hpp"

#include <fmt/format.h>

#include <cstring>

#include "qb/engine/outcome_codec.hpp"

namespace qb::cluster {
namespace {

// What one rank sends: its outcomes, or the error that stopped it. One marker byte, then
// length-prefixed outcomes or the error's text.
constexpr char kOutcomes = 'o';
constexpr char kFailed = 'e';

std::string pack(const Result<std::vector<engine::RepetitionOutcome>>& mine) {
  if (!mine) return kFailed + mine.error().to_string();
  std::string out(1, kOutcomes);
  for (const auto& outcome : *mine) {
    const std::string bytes = engine::encode_outcome(outcome);
    const uint64_t size = bytes.size();
    out.append(reinterpret_cast<const char*>(&size), sizeof size);
    out += bytes;
  }
  return out;
}

Status unpack(std::string_view bytes, uint32_t rank, std::vector<engine::RepetitionOutcome>& all) {
  const auto bad = [rank](const std::string& why) {
    return make_error(Errc::runtime, fmt::format("rank {}: {}", rank, why));
  };
  if (bytes.empty()) return bad("sent nothing");
  if (bytes.front() == kFailed) return bad(std::string(bytes.substr(1)));
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

}  // namespace

engine::TaskSpread sweep_spread(Communicator& comm, Wait wait, std::string& problem) {
  engine::TaskSpread spread;
  spread.runs_here = [&comm](size_t task) { return task % comm.size() == comm.rank(); };
  spread.exchange = [&comm, wait, &problem](Result<std::vector<engine::RepetitionOutcome>> mine)
      -> Result<std::vector<engine::RepetitionOutcome>> {
    auto gathered = comm.gather(pack(mine), 0, wait);
    if (!gathered) {
      problem = gathered.error().message;
      return mine;  // partial: this rank's own repetitions (or its own error)
    }
    std::vector<engine::RepetitionOutcome> all;
    for (uint32_t rank = 0; rank < gathered->size(); ++rank) {
      if (auto s = unpack((*gathered)[rank], rank, all); !s) return std::move(s).error();
    }
    return all;  // rank 0: everyone's; the others: none (they sent theirs)
  };
  return spread;
}

}  // namespace qb::cluster
