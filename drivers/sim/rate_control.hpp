// The simulator's per-flow rate-control seam, for congestion-control programs (the DPA
// emulator's adapter, dpa_rate_control.hpp, implements RateControl; tests do too). Attach a
// program with SimPort::attach().
//
// Events out (RateEvent): the flow's first message was posted (start), a packet of the flow
// started on the NIC's link (sent), its message's ACK reached the sender (ack), a congestion
// notification reached the sender (cnp: the receiver answers ECN-marked packets, at most one per
// flow per interval, see SimSwitch), an RTT probe came back (rtt), an RTT probe reached the
// receiver (probe: only when the program asks for it, and then it must answer_probe(); else the
// receiver's NIC answers at once), a timer the program set went off (timer), the program's own
// wake-up (wakeup), a NACK reached the sender (nack: lossy fabric only, see SimSwitch).
// Actions in (RateActions, callable from on_start() and on_event()): set a flow's rate, request
// an RTT probe, answer one, set a flow's timer or the program's wake-up; read a host's Tx
// counter.
//
// Model (docs/semantics.md, "Rate control"):
// - A flow's rate is enforced by a rate limiter in its NIC, in front of its class's scheduling
//   tree: while the limiter holds the flow, the tree does not see it. The limiter is a token
//   bucket on wire bytes, as deep as a capped tree element's (20 us of the rate, at least two
//   largest packets); a new rate rescales what the flow still owes.
// - A program runs at the instant of its event and takes no virtual time; what it does applies
//   at once (a program that models its own processing time, like the DPA emulator, applies its
//   actions later from a wake-up). ACKs are seen when the engine polls their completion (at
//   their instant: virtual time does not pass a due completion unpolled).
// - An RTT probe leaves when asked and takes no link time. It reaches the receiver after the
//   propagation delay plus (with a switch) the time the bytes the egress sends before it take
//   at the switch rate (SimSwitch::bytes_ahead_of_probe()), and its answer comes back after
//   one more propagation delay.
//   One probe per flow at a time (a probe a program left unanswered is replaced by the next).
// - Without a program none of this exists: SimPort builds the same model as before.
#pragma once

#include <cstdint>
#include <span>

namespace qb::drv::sim {

struct RateEvent {
  enum class Kind : uint8_t { sent, ack, cnp, rtt, timer, start, probe, wakeup, nack };
  Kind kind = Kind::sent;
  uint32_t flow = 0;
  int64_t time_ns = 0;    // virtual time of the event
  uint32_t bytes = 0;     // sent: the packet's wire bytes; ack: the message's payload bytes
  uint64_t sequence = 0;  // ack: the message's sequence
  /// rtt: the probe's round trip; ack: from the message's first byte on the wire to its ACK.
  int64_t rtt_ns = 0;
  int64_t probe_sent_ns = 0;      // rtt, probe: when the probe left the sender
  int64_t probe_answered_ns = 0;  // rtt: when the receiver answered it
};

/// The bit of `kind` in RateControl::event_mask().
constexpr uint32_t rate_event_bit(RateEvent::Kind kind) noexcept {
  return 1U << static_cast<uint32_t>(kind);
}
inline constexpr uint32_t kAllRateEvents = (1U << 9) - 1;

/// What a program learns when a run starts.
struct RateStart {
  uint32_t flows = 0;
  uint32_t hosts = 1;
  std::span<const uint32_t> host_of_flow;  // per flow
  int64_t line_rate_bps = 0;               // every host's NIC port
};

/// What a program may do. Calls naming a flow that does not exist do nothing.
class RateActions {
 public:
  /// Limits `flow` to `rate_bps` wire bits per second from now on; 0 (or less) removes the limit.
  virtual void set_rate(uint32_t flow, double rate_bps) noexcept = 0;
  /// Sends an RTT probe for `flow` now; an rtt event answers it. Ignored while one is out.
  virtual void request_rtt_probe(uint32_t flow) noexcept = 0;
  /// A timer event for `flow` `delay_ns` from now, replacing its pending one; < 0 cancels.
  virtual void set_timer(uint32_t flow, int64_t delay_ns) noexcept = 0;
  /// Answers `flow`'s probe waiting at the receiver (a probe event) now; its rtt event follows
  /// one propagation delay later. Ignored when no probe of the flow waits.
  virtual void answer_probe(uint32_t flow) noexcept = 0;
  /// The program's own wake-up event `delay_ns` from now, replacing a pending one; < 0 cancels.
  virtual void set_wakeup(int64_t delay_ns) noexcept = 0;
  /// Wire bytes host `host`'s NIC has started on its link since the run began.
  virtual uint64_t tx_wire_bytes(uint32_t host) const noexcept = 0;

 protected:
  ~RateActions() = default;
};

/// A rate-control program. Called on the simulator's thread; must not throw.
class RateControl {
 public:
  virtual ~RateControl() = default;
  /// The events the program wants (rate_event_bit() of each kind); read when the run starts.
  /// `sent` costs a call per packet.
  virtual uint32_t event_mask() const noexcept = 0;
  /// Time zero of a run (every flow unlimited, no timer): initial actions.
  virtual void on_start(const RateStart& start, RateActions& actions) noexcept = 0;
  virtual void on_event(const RateEvent& event, RateActions& actions) noexcept = 0;
};

}  // namespace qb::drv::sim
