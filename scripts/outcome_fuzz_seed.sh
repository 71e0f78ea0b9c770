#!/usr/bin/env bash
# Writes the outcome codec's fuzz seed, tests/fuzz/corpus-outcome/sample.bin, in the format this
# checkout encodes (after a change to engine/src/outcome_codec.cpp or the counter table; the
# test OutcomeCodec.TheFuzzSeedIsInThisBuildsFormat fails until it is run). Builds the writer
# into build/ (QB_BUILD_DIR), configured as scripts/build.sh does.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${QB_BUILD_DIR:-$root/build}
[[ -f "$build_dir/build.ninja" ]] || cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build_dir" --target qb_outcome_fuzz_seed
"$build_dir/tests/cluster/qb_outcome_fuzz_seed" "$root/tests/fuzz/corpus-outcome/sample.bin"
echo "wrote tests/fuzz/corpus-outcome/sample.bin"
