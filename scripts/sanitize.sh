#!/usr/bin/env bash
# The tests once more under sanitizers (GCC, warnings as errors; benchmarks not built):
#   build-asan/  QB_SANITIZE=address,undefined: ctest -L 'unit|integration|e2e'
#   build-tsan/  QB_SANITIZE=thread: the tests that run more than one thread at once (only
#                their programs are built)
# Any report fails the test it happened in. QB_SANITIZE_ONLY=asan|tsan runs one of the two.
# Third-party false positives only go in tests/sanitizers/*.supp, each with its reason.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
only=${QB_SANITIZE_ONLY:-}
jobs=${QB_SANITIZE_JOBS:-$(nproc)}
supp=$root/tests/sanitizers
# halt_on_error: a finding ends the test with an error instead of scrolling by.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$supp/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:suppressions=$supp/tsan.supp}
# Multi-threaded tests: repetitions over --jobs workers (sim), the DPDK worker loop and CLI.
tsan_tests=${QB_TSAN_TESTS:-'Determinism\.|DpdkEngine\.|DpdkCli\.|Cli\.Interrupt|Cli\.Run'}

configure() {  # dir sanitizers
  cmake -S "$root" -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DQB_WERROR=ON \
    -DQB_BUILD_BENCHMARKS=OFF -DQB_SANITIZE="$2" >/dev/null
}

if [[ -z "$only" || "$only" == asan ]]; then
  start=$SECONDS
  configure "$root/build-asan" address,undefined
  cmake --build "$root/build-asan" -j "$jobs"
  ctest --test-dir "$root/build-asan" --output-on-failure -j "$jobs" --timeout 1800 \
    -L 'unit|integration|e2e' -LE browser
  echo "sanitize: asan+ubsan took $((SECONDS - start)) s"
fi
if [[ -z "$only" || "$only" == tsan ]]; then
  start=$SECONDS
  configure "$root/build-tsan" thread
  # Only the programs of the multi-threaded tests (the DPDK ones when DPDK is built).
  targets=(qosbench qb_integration_tests qb_e2e_tests)
  for dpdk in qb_dpdk_tests qb_dpdk_cli_tests; do
    if cmake --build "$root/build-tsan" --target help | grep -q "^$dpdk:"; then targets+=("$dpdk"); fi
  done
  cmake --build "$root/build-tsan" -j "$jobs" --target "${targets[@]}"
  ctest --test-dir "$root/build-tsan" --output-on-failure -j "$jobs" --timeout 1800 \
    -R "$tsan_tests"
  echo "sanitize: tsan took $((SECONDS - start)) s"
fi
