#include "qb/cluster/agreement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <vector>

#include "error_wire.hpp"

namespace qb::cluster {
namespace {

// "e" code where file line column message | "r" hash name driver
std::string encode(const Readiness& ready) {
  const char s = kSeparator;
  if (ready.error) return encode_error(*ready.error);
  return fmt::format("r{}{}{}{}{}", ready.suite_hash, s, ready.suite_name, s, ready.driver);
}

std::string encode_status(const Status& status) {
  if (status) return "ok";
  Readiness failed;
  failed.error = status.error();
  return encode(failed);
}

// One rank's gathered text, "<body><separator><host>": its body and host, and the error it
// brought (a body starting with 'e'), encoded and named by its rank and host once (an error it
// relayed from an earlier agreement names its rank already).
struct RankText {
  std::string_view body;
  std::string host;
  std::optional<std::string> error;
};
RankText read_rank_text(const std::string& text, uint32_t rank) {
  RankText read;
  const size_t host_at = text.rfind(kSeparator);
  read.body = std::string_view(text).substr(0, host_at);
  read.host = host_at == std::string::npos ? std::string() : text.substr(host_at + 1);
  if (!read.body.empty() && read.body.front() == 'e') {
    Error error = decode_error(read.body, rank);
    if (!names_a_rank(error.message)) {
      error.message = fmt::format("on rank {} ({}): {}", rank, read.host, error.message);
    }
    read.error = encode_status(error);
  }
  return read;
}

// The first error among every rank's gathered text; nullopt when no rank brought one.
std::optional<std::string> first_error(const std::vector<std::string>& gathered) {
  for (uint32_t rank = 0; rank < gathered.size(); ++rank) {
    if (auto error = read_rank_text(gathered[rank], rank).error) return error;
  }
  return std::nullopt;
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
    std::string_view root_driver;
    for (uint32_t rank = 0; rank < gathered->size(); ++rank) {
      const RankText read = read_rank_text((*gathered)[rank], rank);
      const std::string& host = read.host;
      if (read.error) {
        decision = *read.error;
        break;
      }
      const auto parts = split_fields(read.body.substr(1));
      const std::string_view driver = parts.size() > 2 ? parts[2] : std::string_view();
      if (rank == 0) {
        root_hash = parts[0];
        root_driver = driver;
      } else if (driver != root_driver) {
        // Drivers make different collectives (verbs exchanges its QPs, DPDK does not).
        decision = encode_status(make_error(
            Errc::usage,
            fmt::format("rank {} ({}) runs driver '{}' and rank 0 driver '{}': give every rank "
                        "the same --driver",
                        rank, host, driver, root_driver),
            "--driver"));
        break;
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
  auto agreed = comm.broadcast(first_error(*gathered).value_or("ok"), 0, wait);
  if (!agreed) return std::move(agreed).error();
  if (*agreed == "ok") return {};
  return decode_error(*agreed, 0);
}

Result<std::vector<std::string>> agree_all_gather(Communicator& comm,
                                                  const Result<std::string>& mine,
                                                  const Wait& wait) {
  // Each rank: "v<bytes>" or its encoded error, then its host. Rank 0 answers with the first
  // error, or "v" and every rank's bytes, each behind its length.
  const std::string mine_text =
      (mine ? "v" + *mine : encode_error(mine.error())) + kSeparator + comm.host_name();
  auto gathered = comm.gather(mine_text, 0, wait);
  if (!gathered) return std::move(gathered).error();
  std::string answer;
  if (comm.rank() == 0) {
    if (auto failed = first_error(*gathered)) {
      answer = std::move(*failed);
    } else {
      answer = "v";
      for (uint32_t rank = 0; rank < gathered->size(); ++rank) {
        const RankText read = read_rank_text((*gathered)[rank], rank);
        if (read.body.empty()) {
          // Answered, not returned: the other ranks wait for rank 0's broadcast.
          answer = encode_status(make_error(
              Errc::runtime, fmt::format("rank {}'s all-gather bytes came malformed", rank)));
          break;
        }
        const std::string_view bytes = read.body.substr(1);
        answer += fmt::format("{}:", bytes.size());
        answer += bytes;
      }
    }
  }
  auto agreed = comm.broadcast(answer, 0, wait);
  if (!agreed) return std::move(agreed).error();
  if (agreed->empty() || agreed->front() != 'v') return decode_error(*agreed, 0);
  std::vector<std::string> every;
  std::string_view rest = std::string_view(*agreed).substr(1);
  while (!rest.empty()) {
    const size_t colon = rest.find(':');
    size_t length = 0;
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + std::min(colon, rest.size()),
                                           length);
    if (colon == std::string_view::npos || colon == 0 || ec != std::errc{} ||
        end != rest.data() + colon || length > rest.size() - colon - 1) {
      return make_error(Errc::runtime, "rank 0's all-gather answer is malformed or cut short");
    }
    every.emplace_back(rest.substr(colon + 1, length));
    rest.remove_prefix(colon + 1 + length);
  }
  if (every.size() != comm.size()) {
    return make_error(Errc::runtime, fmt::format("rank 0's all-gather answer holds {} ranks' "
                                                 "bytes for a job of {}",
                                                 every.size(), comm.size()));
  }
  return every;
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
