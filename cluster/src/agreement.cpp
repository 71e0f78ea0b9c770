#include "qb/cluster/agreement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "error_wire.hpp"

namespace qb::cluster {
namespace {

// "e" code where file line column message | "r" hash name
std::string encode(const Readiness& ready) {
  const char s = kSeparator;
  if (ready.error) return encode_error(*ready.error);
  return fmt::format("r{}{}{}", ready.suite_hash, s, ready.suite_name);
}

std::string encode_status(const Status& status) {
  if (status) return "ok";
  Readiness failed;
  failed.error = status.error();
  return encode(failed);
}

}  // namespace

Status agree_to_start(Communicator& comm, const Readiness& mine, const Wait& wait) {
  // Rank names travel with the answer: rank r's host as the others cannot see it.
  const std::string mine_text = encode(mine) + kSeparator + comm.host_name();
  auto gathered = comm.gather(mine_text, 0, wait);
  if (!gathered) return std::move(gathered).error();
  std::string decision = "ok";
  if (comm.rank() == 0) {
    std::string_view root_hash;
    for (uint32_t rank = 0; rank < gathered->size(); ++rank) {
      const std::string& text = (*gathered)[rank];
      const size_t host_at = text.rfind(kSeparator);
      const std::string host = text.substr(host_at + 1);
      const std::string_view body = std::string_view(text).substr(0, host_at);
      if (!body.empty() && body.front() == 'e') {
        Error error = decode_error(body, rank);
        error.message = fmt::format("on rank {} ({}): {}", rank, host, error.message);
        decision = encode_status(error);
        break;
      }
      const auto parts = split_fields(body.substr(1));
      if (rank == 0) {
        root_hash = parts[0];
      } else if (parts[0] != root_hash) {
        decision = encode_status(make_error(
            Errc::usage,
            fmt::format("rank {} ({}) loaded a different suite file than rank 0 (content hash "
                        "{} against {}): give every rank the same file",
                        rank, host, parts[0], root_hash)));
        break;
      }
    }
    if (decision == "ok" && mine.job_error) decision = encode_status(*mine.job_error);
  }
  auto agreed = comm.broadcast(decision, 0, wait);
  if (!agreed) return std::move(agreed).error();
  if (*agreed == "ok") return {};
  return decode_error(*agreed, 0);
}

Status agree_status(Communicator& comm, const Status& mine, const Wait& wait) {
  Readiness ready;
  if (!mine) ready.error = mine.error();
  const std::string mine_text = encode(ready) + kSeparator + comm.host_name();
  auto gathered = comm.gather(mine_text, 0, wait);
  if (!gathered) return std::move(gathered).error();
  std::string decision = "ok";
  for (uint32_t rank = 0; rank < gathered->size(); ++rank) {
    const std::string& text = (*gathered)[rank];
    const size_t host_at = text.rfind(kSeparator);
    const std::string_view body = std::string_view(text).substr(0, host_at);
    if (!body.empty() && body.front() == 'e') {
      Error error = decode_error(body, rank);
      error.message =
          fmt::format("on rank {} ({}): {}", rank, text.substr(host_at + 1), error.message);
      decision = encode_status(error);
      break;
    }
  }
  auto agreed = comm.broadcast(decision, 0, wait);
  if (!agreed) return std::move(agreed).error();
  if (*agreed == "ok") return {};
  return decode_error(*agreed, 0);
}

int agree_exit_code(Communicator& comm, int mine, const Wait& wait) {
  auto gathered = comm.gather(std::to_string(mine), 0, wait);
  std::string code = "3";
  if (gathered && comm.rank() == 0) {
    int highest = 0;
    for (const std::string& text : *gathered) highest = std::max(highest, std::stoi(text));
    code = std::to_string(highest);
  }
  auto agreed = comm.broadcast(code, 0, wait);
  return agreed ? std::stoi(*agreed) : 3;
}

}  // namespace qb::cluster
