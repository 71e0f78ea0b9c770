#include "repetition_exchange.hpp"

namespace qb::engine {

Result<std::vector<std::string>> RepetitionExchange::all_gather(const std::string& mine) {
  if (done_) {
    return make_error(Errc::runtime,
                      "the driver exchanged its endpoints twice in one repetition");
  }
  done_ = true;
  return role_.exchange(mine);
}

Status RepetitionExchange::settle(const Status& driver_status) {
  if (done_) return {};
  done_ = true;
  Result<std::string> mine = std::string();
  if (!driver_status) mine = driver_status.error();
  auto answer = role_.exchange(mine);
  if (!answer) return std::move(answer).error();
  return {};
}

}  // namespace qb::engine
