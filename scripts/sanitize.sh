#!/usr/bin/env bash
# The tests once more under sanitizers (GCC, warnings as errors; benchmarks not built):
#   build-asan/  QB_SANITIZE=address,undefined: ctest -L 'unit|integration|e2e'
#   build-tsan/  QB_SANITIZE=thread: the tests that run more than one thread at once
# Any report fails the test it happened in. QB_SANITIZE_ONLY=asan|tsan runs one of the two.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
only=${QB_SANITIZE_ONLY:-}
# halt_on_error: a finding ends the test with an error instead of scrolling by.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:halt_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
# Multi-threaded tests: repetitions over --jobs workers (sim), the DPDK worker loop and CLI.
tsan_tests=${QB_TSAN_TESTS:-'Determinism\.|DpdkEngine\.|DpdkCli\.|Cli\.Interrupt|Cli\.Run'}

build() {  # dir sanitizers targets...
  local dir=$1 sanitizers=$2
  shift 2
  cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DQB_WERROR=ON \
    -DQB_BUILD_BENCHMARKS=OFF -DQB_SANITIZE="$sanitizers" >/dev/null
  cmake --build "$dir" -j "$(nproc)" "$@"
}

if [[ -z "$only" || "$only" == asan ]]; then
  start=$SECONDS
  build "$root/build-asan" address,undefined
  ctest --test-dir "$root/build-asan" --output-on-failure -j "$(nproc)" --timeout 1800 \
    -L 'unit|integration|e2e' -LE browser
  echo "sanitize: asan+ubsan took $((SECONDS - start)) s"
fi
if [[ -z "$only" || "$only" == tsan ]]; then
  start=$SECONDS
  build "$root/build-tsan" thread
  ctest --test-dir "$root/build-tsan" --output-on-failure -j "$(nproc)" --timeout 1800 \
    -R "$tsan_tests"
  echo "sanitize: tsan took $((SECONDS - start)) s"
fi
