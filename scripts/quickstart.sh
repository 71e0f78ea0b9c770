#!/usr/bin/env bash
# One command on a fresh Debian 12 machine: install what is missing, build, and run the main
# suite (configs/mlx5_two_groups.toml) on the simulator, the embedded default driver.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
QB_SETUP_FUZZ=0 QB_SETUP_BROWSER=0 "$root/scripts/setup.sh"
QB_BUILD_TARGET=qosbench "$root/scripts/build.sh"
build_dir=${QB_BUILD_DIR:-$root/build}
mkdir -p "$root/out"
exec "$build_dir/apps/qosbench/qosbench" run "$root/configs/mlx5_two_groups.toml" \
  --json "$root/out/mlx5_two_groups.json" "$@"
