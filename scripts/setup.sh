#!/usr/bin/env bash
# Installs the Debian 12 packages qosbench needs to build and test, and the browser test's npm
# packages. Idempotent: packages already present are not reinstalled, apt is not touched at all
# when nothing is missing, and npm only runs when tests/browser/node_modules is missing or older
# than its package-lock.json.
#
# QB_SETUP_PROFILE=full (default) installs everything the tests use; QB_SETUP_PROFILE=minimal only
# the build tools and libraries the simulator needs (what scripts/quickstart.sh uses): no DPDK,
# rdma-core, OpenSM, ibsim, infiniband-diags, tshark, clang or Chromium. Switches override the
# profile one by one (1 = install): QB_SETUP_FUZZ, QB_SETUP_BROWSER, QB_SETUP_DPDK,
# QB_SETUP_OPENSM, QB_SETUP_VERBS, QB_SETUP_MPI, QB_SETUP_SOFTROCE (scripts/setup_softroce.sh:
# qemu, busybox, rdma tools and Debian's kernel unpacked into .cache/softroce for ctest -L softroce).
#
# OpenSM: Debian's opensm package enables and starts a subnet manager on every port, which on an
# InfiniBand host puts a new SM on the fabric. When this script installs opensm itself, it denies
# the service start during the install (policy-rc.d), disables the service afterwards and fails
# when an opensm service is still running or enabled. An opensm that was installed before is left
# exactly as it is (its service state is the owner's choice).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

profile=${QB_SETUP_PROFILE:-full}
case "$profile" in
  full) default_switch=1 ;;
  minimal) default_switch=0 ;;
  *) echo "setup: QB_SETUP_PROFILE must be full or minimal, not '$profile'" >&2; exit 2 ;;
esac

packages=(
  build-essential cmake ninja-build pkg-config git ccache
  libtomlplusplus-dev libfmt-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
)
# Fuzzing (libFuzzer + sanitizers) needs clang and its runtime.
if [[ "${QB_SETUP_FUZZ:-$default_switch}" == 1 ]]; then
  packages+=(clang-14 libclang-rt-14-dev)
fi
# The DPDK driver (libdpdk-dev pulls every PMD: net_null, net_ring, net_af_xdp, net_mlx5) and
# dpdk-testpmd (in dpdk-dev) for the side-by-side benchmark; iproute2 for the AF_XDP veth/namespace test;
# tshark dissects the RoCEv2 frames the DPDK driver builds (BTH, PSN, ICRC) in a test.
if [[ "${QB_SETUP_DPDK:-$default_switch}" == 1 ]]; then
  packages+=(libdpdk-dev dpdk dpdk-dev iproute2 tshark)
fi
# The verbs driver: libibverbs and libmlx5 (ibverbs-providers) with their headers. No daemon:
# rdma-core's own package (udev rules, rdma-ndd) is not asked for here. libibmad/libibumad:
# the [ib] check's MAD reads of SL2VL and VLArb (nic/, as smpquery reads them).
if [[ "${QB_SETUP_VERBS:-$default_switch}" == 1 ]]; then
  packages+=(libibverbs-dev ibverbs-providers libibmad-dev libibumad-dev)
fi
# Multi-host jobs (cluster/, docs/multi-host.md): Open MPI's headers and mpirun. No daemon.
if [[ "${QB_SETUP_MPI:-$default_switch}" == 1 ]]; then
  packages+=(libopenmpi-dev openmpi-bin)
fi
# The OpenSM conformance tests: the ibsim fabric simulator (with libumad2sim), OpenSM itself,
# and smpquery/saquery to read back what OpenSM programmed.
if [[ "${QB_SETUP_OPENSM:-$default_switch}" == 1 ]]; then
  packages+=(ibsim-utils opensm infiniband-diags)
fi
# The browser test of the HTML report: Debian's chromium, and node + npm to install
# playwright-core. A node that is already there (e.g. from another apt source, which bundles its
# own npm and conflicts with Debian's npm package) is used as it is.
browser=${QB_SETUP_BROWSER:-$default_switch}
if [[ "$browser" == 1 ]]; then
  packages+=(chromium)
  command -v node >/dev/null || packages+=(nodejs)
  command -v npm >/dev/null || packages+=(npm)
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

# Test seams (tests/scripts/setup_test.sh): where policy-rc.d lives and the OpenSM check.
policy_rc_d=${QB_SETUP_POLICY_RC_D:-/usr/sbin/policy-rc.d}
opensm_check=${QB_SETUP_OPENSM_CHECK:-$root/scripts/check_opensm_service.sh}

sudo=""
if [[ $(id -u) -ne 0 ]] && ((${#missing[@]} > 0)); then
  command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install packages" >&2; exit 1; }
  sudo="sudo"
fi

apt_install() {
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "$@"
}

# Installs opensm with every service start denied (invoke-rc.d and deb-systemd-invoke ask
# policy-rc.d; 101 = "action forbidden"), then disables the service the package enabled. A
# policy-rc.d already there (containers ship one) is put back afterwards.
install_opensm_without_service() {
  local saved=""
  if [[ -e "$policy_rc_d" ]]; then
    saved="$policy_rc_d.qb-setup-saved"
    $sudo mv "$policy_rc_d" "$saved"
  fi
  # shellcheck disable=SC2064  # expand now: the paths are fixed for this call
  trap "$sudo rm -f '$policy_rc_d'; [[ -z '$saved' ]] || $sudo mv '$saved' '$policy_rc_d'" EXIT
  printf '#!/bin/sh\n# scripts/setup.sh: no service starts while opensm is installed\nexit 101\n' |
    $sudo tee "$policy_rc_d" >/dev/null
  $sudo chmod 755 "$policy_rc_d"
  apt_install opensm
  $sudo rm -f "$policy_rc_d"
  [[ -z "$saved" ]] || $sudo mv "$saved" "$policy_rc_d"
  trap - EXIT
  # The package enabled opensm.service and the SysV links (update-rc.d defaults): undo both.
  if command -v systemctl >/dev/null; then
    $sudo systemctl disable opensm.service >/dev/null 2>&1 || true
  fi
  if command -v update-rc.d >/dev/null; then
    $sudo update-rc.d opensm disable >/dev/null 2>&1 || true
  fi
  if ! "$opensm_check"; then
    echo "setup: ERROR: opensm was installed by this script and its service is still running or" >&2
    echo "setup: enabled (see above). Stop and disable it before this host joins a fabric." >&2
    exit 1
  fi
  echo "setup: opensm installed; its service is neither started nor enabled"
}

install_missing() {
  if ((${#missing[@]} == 0)); then
    echo "setup: all ${#packages[@]} packages present"
    return
  fi
  echo "setup: installing ${missing[*]}"
  local others=() fresh_opensm=0 package
  for package in "${missing[@]}"; do
    if [[ "$package" == opensm ]]; then fresh_opensm=1; else others+=("$package"); fi
  done
  $sudo apt-get update -q
  ((${#others[@]} == 0)) || apt_install "${others[@]}"
  ((fresh_opensm == 0)) || install_opensm_without_service
}
install_missing

# playwright-core, exactly as pinned in the committed lock file; it drives /usr/bin/chromium, so
# no browser is downloaded. The hidden lock file npm writes last marks a finished install.
if [[ "$browser" == 1 ]]; then
  browser_dir="$root/tests/browser"
  stamp="$browser_dir/node_modules/.package-lock.json"
  if [[ ! -f "$stamp" || "$browser_dir/package-lock.json" -nt "$stamp" ]]; then
    echo "setup: npm ci in tests/browser"
    (cd "$browser_dir" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund)
  else
    echo "setup: tests/browser/node_modules up to date"
  fi
fi

# The Soft-RoCE test's guest (its own script: packages and a kernel download into the cache).
if [[ "${QB_SETUP_SOFTROCE:-$default_switch}" == 1 ]]; then
  "$root/scripts/setup_softroce.sh"
fi
