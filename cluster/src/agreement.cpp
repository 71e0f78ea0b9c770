#include "qb/cluster/agreement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <vector>

namespace qb::cluster {
namespace {

constexpr char kSeparator = '\x1f';  // never in a path, key or message qosbench writes

std::vector<std::string_view> split(std::string_view text) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t end = text.find(kSeparator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

uint32_t to_number(std::string_view text) {
  uint32_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

// "e" code where file line column message | "r" hash name
std::string encode(const Readiness& ready) {
  const char s = kSeparator;
  if (ready.error) {
    const Error& e = *ready.error;
    return fmt::format("e{}{}{}{}{}{}{}{}{}{}{}", static_cast<int>(e.code), s, e.where, s,
                       e.loc.file, s, e.loc.line, s, e.loc.column, s, e.message);
  }
  return fmt::format("r{}{}{}", ready.suite_hash, s, ready.suite_name);
}

Error decode_error(std::string_view text, uint32_t rank) {
  const auto parts = split(text.substr(1));
  if (parts.size() < 6) {
    return make_error(Errc::runtime, fmt::format("rank {} sent an unreadable error", rank));
  }
  Error error;
  error.code = static_cast<Errc>(to_number(parts[0]));
  error.where = std::string(parts[1]);
  error.loc = SourceLoc{std::string(parts[2]), to_number(parts[3]), to_number(parts[4])};
  error.message = std::string(parts[5]);
  return error;
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
      const auto parts = split(body.substr(1));
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
