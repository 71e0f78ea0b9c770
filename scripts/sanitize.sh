#!/usr/bin/env bash
# The tests once more under sanitizers (GCC, warnings as errors; benchmarks not built):
#   build-asan/  QB_SANITIZE=address,undefined: ctest -L 'unit|integration|e2e' (not the
#                Soft-RoCE guest: an emulated guest running the instrumented binary measures the
#                machine, not the code)
#   build-tsan/  QB_SANITIZE=thread: the tests that run more than one thread at once (only
#                their programs are built; docs/testing.md lists them and why)
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
# The tests that run more than one thread at once (ctest names, anchored):
#  - qosbench run on the simulator: repetitions side by side (--jobs, nproc by default) and the
#    live view's printer thread (Cli, CongestionCli, ConsoleUnits, OutputCli, ReportCli,
#    LiveCli), signals and the stop flag (InterruptCli);
#  - the engine with jobs > 1 and its serialised interval sink (Determinism, ConfigSuite with the
#    default jobs, LiveIntervals, LiveIntervalsInterrupted);
#  - DPDK through the CLI: two workers on two lcores, signals during EAL init, link wait and a
#    busy run, the starvation watch (DpdkCli, DpdkCliHangs, DpdkCliStarved, DpdkCliFault);
#  - verbs on the fake device: a receiver thread against a sender, an interrupter thread,
#    signals on the CLI (VerbsTwoHosts, VerbsDriver.InterruptedRun..., VerbsCli.Interrupt...,
#    VerbsCli.CtrlC...), three ranks of a job on threads (VerbsJob);
#  - a job's collectives with its ranks on threads (AgreeAllGather, RepetitionExchange).
# Left out, single-threaded: unit tests, DpdkEngine (one worker), ImportOpensm*, LateStartSeries,
# the other VerbsCli tests (one worker on the fake, minutes each under TSan; the live printer
# thread is covered by LiveCli and DpdkCli).
tsan_tests=${QB_TSAN_TESTS:-'^(Cli|CongestionCli|ConsoleUnits|OutputCli|ReportCli|LiveCli|InterruptCli|Determinism|Configs/ConfigSuite|Configs/LiveIntervals|LiveIntervalsInterrupted|DpdkCli|DpdkCliHangs|DpdkCliStarved|Faults/DpdkCliFault|VerbsTwoHosts|VerbsJob|VerbsFabricJob|AgreeAllGather|RepetitionExchange)\.|^VerbsDriver\.InterruptedRun|^VerbsCli\.(Interrupt|CtrlC)'}

configure() {  # dir sanitizers
  cmake -S "$root" -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DQB_WERROR=ON \
    -DQB_BUILD_BENCHMARKS=OFF -DQB_SANITIZE="$2" >/dev/null
}

if [[ -z "$only" || "$only" == asan ]]; then
  start=$SECONDS
  configure "$root/build-asan" address,undefined
  cmake --build "$root/build-asan" -j "$jobs"
  ctest --test-dir "$root/build-asan" --output-on-failure -j "$jobs" --timeout 1800 \
    -L 'unit|integration|e2e' -LE 'browser|softroce'
  echo "sanitize: asan+ubsan took $((SECONDS - start)) s"
fi
if [[ -z "$only" || "$only" == tsan ]]; then
  start=$SECONDS
  configure "$root/build-tsan" thread
  # Only the programs of the multi-threaded tests (DPDK's and verbs' when those are built).
  targets=(qosbench qb_integration_tests qb_e2e_tests qb_cluster_tests)
  # The list read whole first: `grep -q` on the pipe would close it early, ninja then dies of
  # SIGPIPE and, under pipefail, the target was silently left out (its tests with it).
  known_targets=$(cmake --build "$root/build-tsan" --target help)
  for optional in qb_dpdk_cli_tests qb_verbs_tests qb_verbs_cli_tests; do
    if grep -q "^$optional:" <<<"$known_targets"; then
      targets+=("$optional")
    fi
  done
  cmake --build "$root/build-tsan" -j "$jobs" --target "${targets[@]}"
  # A second signal ends qosbench at once (_exit from the handler, by design): a thread still
  # unjoined then (the live printer, a repetition) is no leak of ours, so those tests run without
  # thread-leak reports; races are still reported there.
  exit_now_tests='^(InterruptCli\.ASecondSignal|DpdkCliHangs\.ASecondSignal)'
  ctest --test-dir "$root/build-tsan" --output-on-failure -j "$jobs" --timeout 1800 \
    -R "$tsan_tests" -E "$exit_now_tests"
  TSAN_OPTIONS="$TSAN_OPTIONS:report_thread_leaks=0" ctest --test-dir "$root/build-tsan" \
    --output-on-failure -j "$jobs" --timeout 1800 -R "$exit_now_tests"
  echo "sanitize: tsan took $((SECONDS - start)) s"
fi
