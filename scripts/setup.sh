#!/usr/bin/env bash
# Installs the Debian 12 packages qosbench needs to build and test, and the browser test's npm
# packages. Idempotent: packages already present are not reinstalled, apt is not touched at all
# when nothing is missing, and npm only runs when tests/browser/node_modules is missing or older
# than its package-lock.json. Switches (default 1): QB_SETUP_FUZZ, QB_SETUP_BROWSER, QB_SETUP_DPDK,
# QB_SETUP_OPENSM, QB_SETUP_VERBS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

packages=(
  build-essential cmake ninja-build pkg-config git
  libtomlplusplus-dev libfmt-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
)
# Fuzzing (libFuzzer + sanitizers) needs clang and its runtime.
if [[ "${QB_SETUP_FUZZ:-1}" == 1 ]]; then
  packages+=(clang-14 libclang-rt-14-dev)
fi
# The DPDK driver (libdpdk-dev pulls every PMD: net_null, net_ring, net_af_xdp, net_mlx5) and
# dpdk-testpmd (in dpdk-dev) for the side-by-side benchmark; iproute2 for the AF_XDP veth/namespace test;
# tshark dissects the RoCEv2 frames the DPDK driver builds (BTH, PSN, ICRC) in a test.
if [[ "${QB_SETUP_DPDK:-1}" == 1 ]]; then
  packages+=(libdpdk-dev dpdk dpdk-dev iproute2 tshark)
fi
# The verbs driver: libibverbs and libmlx5 (ibverbs-providers) with their headers. No daemon:
# rdma-core's own package (udev rules, rdma-ndd) is not asked for here.
if [[ "${QB_SETUP_VERBS:-1}" == 1 ]]; then
  packages+=(libibverbs-dev ibverbs-providers)
fi
# The OpenSM conformance tests: the ibsim fabric simulator (with libumad2sim), OpenSM itself,
# and smpquery/saquery to read back what OpenSM programmed.
if [[ "${QB_SETUP_OPENSM:-1}" == 1 ]]; then
  packages+=(ibsim-utils opensm infiniband-diags)
fi
# The browser test of the HTML report: Debian's chromium, and node + npm to install
# playwright-core. A node that is already there (e.g. from another apt source, which bundles its
# own npm and conflicts with Debian's npm package) is used as it is.
browser=${QB_SETUP_BROWSER:-1}
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

install_missing() {
  if ((${#missing[@]} == 0)); then
    echo "setup: all ${#packages[@]} packages present"
    return
  fi
  echo "setup: installing ${missing[*]}"
  local sudo=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install packages" >&2; exit 1; }
    sudo="sudo"
  fi
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
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
