// A backend that does nothing, for the tests of the generic driver layer: it opens, starts and
// stops, takes no message and its clock stands still; the optional ops keep their defaults. A
// test overrides what it is about.
#pragma once

#include <span>
#include <string_view>

#include "qb/drivers/backend.hpp"

namespace qb::drv {

class IdleBackend : public DriverBackend, public Queue, public Clock {
 public:
  Capabilities capabilities() const override { return Capabilities{}; }
  Status open(const Topology&) override { return {}; }
  Status start() override { return {}; }
  Queue& queue(uint32_t) override { return *this; }
  Clock& clock(uint32_t) override { return *this; }
  Status stop() override { return {}; }
  void close() noexcept override {}
  uint32_t tx_burst(std::span<const Message>) noexcept override { return 0; }
  uint32_t poll(std::span<Completion>) noexcept override { return 0; }
  int64_t now_ns() noexcept override { return 0; }
  void wait_until(int64_t) noexcept override {}
  std::string_view name() const noexcept override { return "virtual"; }
};

}  // namespace qb::drv
