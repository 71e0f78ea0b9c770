#!/usr/bin/env bash
# One command on a fresh Debian 12 machine: install what is missing, build with warnings as
# errors, and run every test (unit, integration, end-to-end), the fuzzers for a bounded time,
# and the sanitizer pass (scripts/sanitize.sh): unit, integration and e2e once more under
# ASan+UBSan in build-asan/, and the multi-threaded tests under TSan in build-tsan/. CI (.ci/run)
# calls exactly this. Minutes measured: docs/testing.md ("The sanitizer pass in CI").
# QB_SANITIZERS=0 leaves both sanitizer parts out; =asan or =tsan runs only that one.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh" -DQB_WERROR=ON
build_dir=${QB_BUILD_DIR:-$root/build}
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" --timeout 900
if [[ -x "$root/scripts/fuzz.sh" && "${QB_SKIP_FUZZ:-0}" != 1 ]]; then
  "$root/scripts/fuzz.sh"
fi
case "${QB_SANITIZERS:-all}" in
  0) ;;
  asan | tsan) QB_SANITIZE_ONLY=$QB_SANITIZERS "$root/scripts/sanitize.sh" ;;
  *) "$root/scripts/sanitize.sh" ;;
esac
