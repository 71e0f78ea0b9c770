#!/usr/bin/env bash
# Configures and builds qosbench into build/ (override with QB_BUILD_DIR). Extra arguments go to
# CMake, e.g. scripts/build.sh -DQB_WERROR=ON.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${QB_BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
# QB_BUILD_TARGET=qosbench builds only the program (the quick start does not need the tests);
# several targets are separated by blanks: QB_BUILD_TARGET="qosbench qb_dpdk_txonly".
targets=()
read -r -a targets <<<"${QB_BUILD_TARGET:-}"
cmake --build "$build_dir" -j "$(nproc)" ${targets[0]:+--target "${targets[@]}"}
