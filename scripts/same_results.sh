#!/usr/bin/env bash
# Refactoring check: the results JSON (and `explain --json`) of every suite in configs/ and tests/
# must be the same before and after a change, except run metadata (host, date, tool version) and
# wall time. Runs every suite on the simulator (virtual time, deterministic per seed) with one job.
#
#   scripts/same_results.sh --before REV           # builds REV's qosbench in a temporary worktree
#   scripts/same_results.sh --before-bin PATH      # or uses a qosbench built earlier
#   [--after-bin PATH]                             # default: build/apps/qosbench/qosbench
#   [--ignore KEY]...                              # leave KEY out of the JSON comparison (at any
#                                                  # depth) and compare no console output: e.g.
#                                                  # the judged fields when judging changed
#
# Exit 0 when every file matches, 1 when one differs (the first differing keys are printed).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
before_rev="" before_bin="" after_bin="$root/build/apps/qosbench/qosbench"
ignore=()
while (($#)); do
  case "$1" in
    --before) before_rev=$2; shift 2 ;;
    --before-bin) before_bin=$2; shift 2 ;;
    --after-bin) after_bin=$2; shift 2 ;;
    --ignore) ignore+=(--ignore "$2"); shift 2 ;;
    *) echo "usage: $0 (--before REV | --before-bin PATH) [--after-bin PATH]" >&2; exit 2 ;;
  esac
done
[[ -n "$before_rev" || -n "$before_bin" ]] || { echo "$0: give --before REV or --before-bin PATH" >&2; exit 2; }
work=$(mktemp -d)
cleanup() {
  if [[ -n "$before_rev" && -d "$work/src" ]]; then git -C "$root" worktree remove --force "$work/src"; fi
  rm -rf "$work"
}
trap cleanup EXIT

if [[ -n "$before_rev" ]]; then
  git -C "$root" worktree add --detach "$work/src" "$before_rev" >/dev/null
  cmake -S "$work/src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DQB_BUILD_TESTS=OFF -DQB_BUILD_BENCHMARKS=OFF >/dev/null
  cmake --build "$work/build" -j "$(nproc)" --target qosbench >/dev/null
  before_bin="$work/build/apps/qosbench/qosbench"
fi
[[ -x "$before_bin" && -x "$after_bin" ]] || { echo "$0: missing binary ($before_bin or $after_bin)" >&2; exit 2; }

mapfile -t suites < <(cd "$root" && { ls configs/*.toml; find tests -name '*.toml' -not -path '*/fuzz/*' -not -path '*/node_modules/*'; } | sort)
status=0
for suite in "${suites[@]}"; do
  for side in before after; do
    bin=$before_bin; [[ $side == after ]] && bin=$after_bin
    out="$work/$side/${suite//\//_}"
    mkdir -p "$work/$side"
    (cd "$root" && "$bin" run "$suite" --driver sim --jobs 1 --json "$out.results.json" >"$out.stdout" 2>&1) || echo "exit $?" >>"$out.stdout"
    # Its warnings go to stderr, apart: the JSON file holds the JSON alone.
    (cd "$root" && "$bin" explain "$suite" --json >"$out.explain.json" 2>"$out.explain.err") || true
  done
  # Ignoring keys: the console prints them, so it is left out of the comparison.
  ((${#ignore[@]})) && rm -f "$work/before/${suite//\//_}.stdout" "$work/after/${suite//\//_}.stdout"
  if python3 "$root/scripts/same_results_diff.py" "${ignore[@]}" "$work/before/${suite//\//_}" "$work/after/${suite//\//_}"; then
    echo "same: $suite"
  else
    echo "DIFFERENT: $suite"
    status=1
  fi
done
exit $status
