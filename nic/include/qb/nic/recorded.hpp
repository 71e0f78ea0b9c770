// A directory standing for the machine (driver option nic_root): sysfs under DIR/sys, devices
// under DIR/dev, and the answers a device would give recorded as files, so that a run (a test,
// or a bug report's snapshot) reads a NIC's state without the NIC:
//   DIR/dcb/<netdev>.hex           the kernel's answer to DCB_CMD_IEEE_GET (hex bytes)
//   DIR/ethtool/<netdev>.txt       `ethtool -S <netdev>` output
//   DIR/mad/<device>-<port>/<attribute>-<modifier>.hex   SMP data (64 bytes, hex; attribute and
//                                  modifier in hex without 0x, e.g. 17-0.hex, 18-10001.hex)
// Writes (DCB sets) are refused: a recording cannot take a setting, unless it was made a fake
// port for tests with DIR/dcb/<netdev>.takes-sets (the settings then rewrite <netdev>.hex; the
// file may say "sets_left N": after N settings the port refuses every one with EIO, and
// "delay_ms N": each setting takes that long).
#pragma once

#include <memory>
#include <string>

#include "qb/nic/dcb_transport.hpp"
#include "qb/nic/ib_qos_state.hpp"
#include "qb/nic/port_counters.hpp"

namespace qb::nic {

std::unique_ptr<DcbTransport> make_recorded_dcb_transport(const std::string& dir);
std::unique_ptr<EthtoolStats> make_recorded_ethtool_stats(const std::string& dir);
std::unique_ptr<SmpSource> make_recorded_smp_source(const std::string& dir,
                                                    const std::string& device, uint8_t port);

/// "0a 1b ..." / "0a1b..." (whitespace and '#' comments ignored) to bytes; nullopt on a bad digit.
std::optional<std::vector<uint8_t>> parse_hex(std::string_view text);

}  // namespace qb::nic
