// A multi-host job's endpoint exchange for one repetition (drv::JobExchange over
// HostRole::exchange). Every rank must take part exactly once, or the ranks that did wait for
// the one that did not: the driver exchanges from apply(), and when it failed before (open,
// apply's checks, its own QPs) settle() takes part for it, with its error.
#pragma once

#include <string>
#include <vector>

#include "qb/drivers/backend.hpp"
#include "qb/engine/run.hpp"

namespace qb::engine {

class RepetitionExchange final : public drv::JobExchange {
 public:
  explicit RepetitionExchange(const HostRole& role) : role_(role) {}
  explicit RepetitionExchange(HostRole&&) = delete;  // it keeps a reference

  /// The driver's call. A second call in one repetition is a driver bug: an error, not a
  /// collective the other ranks would never match.
  Result<std::vector<std::string>> all_gather(const std::string& mine) override;
  /// After open/apply, whatever they returned: takes part with `driver_status`'s error (or
  /// nothing) when the driver did not exchange. Returns the job's answer: ok, or the error of
  /// the first rank that failed.
  Status settle(const Status& driver_status);

 private:
  const HostRole& role_;
  bool done_ = false;
};

}  // namespace qb::engine
