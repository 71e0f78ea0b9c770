#!/usr/bin/env bash
# Configures and builds qosbench into build/ (override with QB_BUILD_DIR). Extra arguments go to
# CMake, e.g. scripts/build.sh -DQB_WERROR=ON.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${QB_BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
# QB_BUILD_TARGET=qosbench builds only the program (the quick start does not need the tests).
cmake --build "$build_dir" -j "$(nproc)" ${QB_BUILD_TARGET:+--target "$QB_BUILD_TARGET"}
