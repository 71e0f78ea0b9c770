#!/usr/bin/env bash
# One command on a fresh Debian 12 machine: install what is missing, build, and run the main
# suite (configs/mlx5_two_groups.toml) on the simulator, the embedded default driver.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# Only the build tools and the simulator's libraries: no DPDK, rdma-core, OpenSM (whose Debian
# package starts a subnet manager), ibsim, tshark, clang or Chromium.
QB_SETUP_PROFILE=minimal "$root/scripts/setup.sh"
QB_BUILD_TARGET=qosbench "$root/scripts/build.sh"
build_dir=${QB_BUILD_DIR:-$root/build}
mkdir -p "$root/out"
exec "$build_dir/apps/qosbench/qosbench" run "$root/configs/mlx5_two_groups.toml" \
  --json "$root/out/mlx5_two_groups.json" "$@"
