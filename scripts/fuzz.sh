#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) in build-fuzz/ and runs each for a
# bounded time: by default suite_loader_fuzz 60 s, congestion_tables_fuzz 30 s, opensm_conf_fuzz
# 30 s, opensm_policy_fuzz 30 s, results_reader_fuzz 30 s, outcome_codec_fuzz 20 s,
# ibnetdiscover_fuzz 20 s, driver_tables_fuzz 15 s, ib_diag_fuzz 15 s (250 s in all);
# QB_FUZZ_SECONDS=N gives every
# target N seconds. Fails on any crash, leak or sanitizer report; the input that triggered it is
# left in build-fuzz/artifacts/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${QB_FUZZ_BUILD_DIR:-$root/build-fuzz}
# target:default seconds:seed corpus:dictionary
specs=(
  "suite_loader_fuzz:60:corpus:suite.dict"
  "congestion_tables_fuzz:30:corpus-congestion:congestion.dict"
  "opensm_conf_fuzz:30:corpus-opensm-conf:opensm-conf.dict"
  "opensm_policy_fuzz:30:corpus-opensm-policy:opensm-policy.dict"
  "results_reader_fuzz:30:corpus-results:results.dict"
  "outcome_codec_fuzz:20:corpus-outcome:outcome.dict"
  "ibnetdiscover_fuzz:20:corpus-ibnet:ibnet.dict"
  "driver_tables_fuzz:15:corpus-driver-tables:driver-tables.dict"
  "ib_diag_fuzz:15:corpus-ib-diag:ib-diag.dict"
)
targets=()
for spec in "${specs[@]}"; do targets+=("${spec%%:*}"); done

CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DQB_FUZZ=ON -DQB_BUILD_BENCHMARKS=OFF -DQB_WERROR=ON >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target "${targets[@]}"

mkdir -p "$build_dir/artifacts"
for spec in "${specs[@]}"; do
  IFS=: read -r target default_seconds seeds dict <<<"$spec"
  seconds=${QB_FUZZ_SECONDS:-$default_seconds}
  name=${target%_fuzz}
  corpus="$build_dir/corpus/$name"
  mkdir -p "$corpus"
  echo "fuzz: $target for ${seconds}s"
  log="$build_dir/$name.log"
  rc=0
  "$build_dir/tests/fuzz/$target" -max_total_time="$seconds" -print_final_stats=1 \
    -dict="$root/tests/fuzz/$dict" -artifact_prefix="$build_dir/artifacts/" \
    "$corpus" "$root/tests/fuzz/$seeds" >"$log" 2>&1 || rc=$?
  grep -E "^(stat::|#[0-9]+ +DONE|SUMMARY)" "$log" || true
  if ((rc != 0)); then
    tail -40 "$log" >&2
    echo "fuzz: $target failed (exit $rc); the input is in $build_dir/artifacts/" >&2
    exit 1
  fi
done
