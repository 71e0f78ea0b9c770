// The receiver's side of RC go-back-N in a lossy fabric (docs/dpa.md, "Lossy mode"): per flow
// the next PSN it expects. That packet is delivered; any other is discarded. The first
// out-of-sequence packet of each sender round makes the receiver NACK with the PSN it expects,
// as an mlx5 responder NACKs a sequence error once and again only after the requester went
// back. A round is the sender's epoch: the number of times it went back, which each packet
// carries (so a NACK lost to nothing but a second drop of the retransmission is sent again).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace qb::drv::sim {

class GoBackNReceiver {
 public:
  enum class Verdict : uint8_t { deliver, discard, discard_and_nack };

  void reset(uint32_t flows) {
    expected_psn_.assign(flows, 0);
    nacked_rounds_.assign(flows, 0);
  }
  void start() noexcept {
    std::fill(expected_psn_.begin(), expected_psn_.end(), 0);
    std::fill(nacked_rounds_.begin(), nacked_rounds_.end(), 0);
  }
  Verdict on_arrival(uint32_t flow, uint32_t psn, uint32_t epoch) noexcept {
    uint32_t& expected = expected_psn_[flow];
    if (psn == expected) {
      ++expected;
      return Verdict::deliver;
    }
    // A duplicate (psn below: a timeout went back while the packet was on its way) or a
    // packet of a round already NACKed.
    if (psn < expected || nacked_rounds_[flow] > epoch) return Verdict::discard;
    nacked_rounds_[flow] = epoch + 1;
    return Verdict::discard_and_nack;
  }
  uint32_t expected_psn(uint32_t flow) const noexcept { return expected_psn_[flow]; }

 private:
  std::vector<uint32_t> expected_psn_;   // per flow
  std::vector<uint32_t> nacked_rounds_;  // per flow: epoch + 1 of its last NACK (0: none)
};

}  // namespace qb::drv::sim
