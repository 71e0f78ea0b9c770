#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) in build-fuzz/ and runs each for a
# bounded time (QB_FUZZ_SECONDS, default 60). Fails on any crash, leak or sanitizer report;
# the input that triggered it is left in build-fuzz/artifacts/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${QB_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=${QB_FUZZ_SECONDS:-60}
targets=(suite_loader_fuzz)

CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DQB_FUZZ=ON -DQB_BUILD_BENCHMARKS=OFF -DQB_WERROR=ON >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target "${targets[@]}"

mkdir -p "$build_dir/artifacts"
for target in "${targets[@]}"; do
  name=${target%_fuzz}
  corpus="$build_dir/corpus/$name"
  mkdir -p "$corpus"
  echo "fuzz: $target for ${seconds}s"
  log="$build_dir/$name.log"
  rc=0
  "$build_dir/tests/fuzz/$target" -max_total_time="$seconds" -print_final_stats=1 \
    -dict="$root/tests/fuzz/suite.dict" -artifact_prefix="$build_dir/artifacts/" \
    "$corpus" "$root/tests/fuzz/corpus" >"$log" 2>&1 || rc=$?
  grep -E "^(stat::|#[0-9]+ +DONE|SUMMARY)" "$log" || true
  if ((rc != 0)); then
    tail -40 "$log" >&2
    echo "fuzz: $target failed (exit $rc); the input is in $build_dir/artifacts/" >&2
    exit 1
  fi
done
