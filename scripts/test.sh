#!/usr/bin/env bash
# One command on a fresh Debian 12 machine: install what is missing, build with warnings as
# errors, and run every test (unit, integration, end-to-end), the fuzzers for a bounded time,
# and the sanitizer pass (scripts/sanitize.sh): unit, integration and e2e once more under
# ASan+UBSan in build-asan/. CI (.ci/run) calls exactly this.
# Minutes measured here (a 2-core VM shared with two other engineers' builds, so about a third
# of the machine): the tests and fuzzers ~11 (before); the ASan+UBSan pass 58 (build ~54 of
# which, from scratch with an empty ccache; its 503 tests 4.2). On a runner of its own the
# build takes about a third of that: ~20 minutes, ~31 in all.
# QB_SANITIZERS=0 leaves the pass out; QB_SANITIZERS=all adds the TSan part (the multi-worker
# tests in build-tsan/), which has not been run to the end yet: it is not in CI until it has.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh" -DQB_WERROR=ON
build_dir=${QB_BUILD_DIR:-$root/build}
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" --timeout 900
if [[ -x "$root/scripts/fuzz.sh" && "${QB_SKIP_FUZZ:-0}" != 1 ]]; then
  "$root/scripts/fuzz.sh"
fi
case "${QB_SANITIZERS:-asan}" in
  0) ;;
  all) "$root/scripts/sanitize.sh" ;;
  *) QB_SANITIZE_ONLY=asan "$root/scripts/sanitize.sh" ;;
esac
