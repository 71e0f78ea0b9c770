// The port's QoS for one run: read through DCB netlink before anything is made, compared with
// the suite's [eth]; with nic_qos = "apply" the suite's settings are programmed for the run and
// the state read before is put back when it ends (restore(), or the destructor: an error half
// way, an exception, Ctrl-C's teardown), then read again to check that it took. Before the
// program the state read is journalled (restore_journal.hpp), so that a kill -9 or a second
// Ctrl-C leaves what `qosbench nic-restore` needs; a restore that fails is noted for the
// verdict (left_changed.hpp).
#pragma once

#include <memory>
#include <span>
#include <string>

#include "qb/common/result.hpp"
#include "qb/nic/dcb_transport.hpp"
#include "qb/nic/eth_qos_check.hpp"
#include "qb/nic/eth_qos_state.hpp"

namespace qb::nic {

/// driver option nic_qos: "check" (a mismatch stops the run), "apply" (programmed for the run,
/// restored after), "off" (not read).
enum class QosMode { check, apply, off };

struct EthQosTarget {
  std::string ifname;
  std::string port_label;  // "mlx5_0 port 1", for messages
  policy::EthPortQos suite;
  std::vector<uint8_t> flow_dscps;  // the DSCPs the suite's flows mark
  std::string option_key;           // "driver.verbs.nic_qos", named in the fixes
};

/// Reads `<sysfs_root>/sys/class/net/<ifname>/qos/trust` (mlx5's OFED driver), empty when absent.
std::string read_sysfs_trust(const std::string& sysfs_root, const std::string& ifname);

/// Reads the port's state: IEEE_GET through `transport` and the sysfs trust.
Result<EthQosState> read_eth_qos(DcbTransport& transport, const std::string& sysfs_root,
                                 const std::string& ifname);

/// Puts `before` back on its port (before.ifname): the sysfs trust when it had one, then what
/// differs in DCB, read again and compared. Errc::runtime naming what is left changed and the
/// dcb commands that put it back by hand.
Status restore_eth_qos(DcbTransport& transport, const std::string& sysfs_root,
                       const EthQosState& before);

/// A journal found for the port before a run (a killed run's): with `restore` (nic_qos =
/// "apply") its state is put back and the journal removed (a note says so); without, or when
/// its pid still runs, Errc::unavailable with the command that restores it. Nothing found: "".
Result<std::string> settle_stale_journal(DcbTransport& transport, const std::string& sysfs_root,
                                         const std::string& journal_file, bool restore,
                                         const std::string& option_key);

class EthQosSession {
 public:
  /// check: a mismatch is Errc::unavailable at the first differing key, the message listing
  /// every key with the NIC's value and the fixes. apply: CAP_NET_ADMIN first
  /// (`has_net_admin`), then the program, then a read-back that must match.
  /// `state_dir`: where the restore journal goes (empty: default_nic_state_dir()).
  static Result<std::unique_ptr<EthQosSession>> begin(DcbTransport& transport,
                                                      std::string sysfs_root,
                                                      const EthQosTarget& target, QosMode mode,
                                                      bool has_net_admin,
                                                      std::string state_dir = {});
  ~EthQosSession();
  EthQosSession(const EthQosSession&) = delete;
  EthQosSession& operator=(const EthQosSession&) = delete;

  /// Puts back the state read before the program (nothing when nothing was programmed), reads
  /// it again and compares; the journal is removed once it took. Errc::runtime naming what is
  /// left changed, the journal kept and `qosbench nic-restore` named, and the port noted in
  /// take_ports_left_changed(). Once; later calls return the first answer.
  Status restore();
  bool programmed() const noexcept { return programmed_; }
  const EthQosState& before() const noexcept { return before_; }
  /// One line for stderr: what was read, matched or programmed.
  const std::string& note() const noexcept { return note_; }
  /// The restore journal while the port is programmed ("" before, and after a restore).
  const std::string& journal() const noexcept { return journal_; }

 private:
  EthQosSession(DcbTransport& transport, std::string sysfs_root, std::string ifname)
      : transport_(transport), sysfs_root_(std::move(sysfs_root)), ifname_(std::move(ifname)) {}
  Status run(const EthQosProgram& program, std::string_view what);
  DcbTransport& transport_;
  std::string sysfs_root_;
  std::string ifname_;
  EthQosState before_;
  bool programmed_ = false;
  bool restored_ = false;
  Status restore_status_;
  std::string note_;
  std::string journal_;    // the restore journal's path while programmed
  std::string exit_note_;  // what a second Ctrl-C prints (exit_cleanup.hpp)
};

}  // namespace qb::nic
