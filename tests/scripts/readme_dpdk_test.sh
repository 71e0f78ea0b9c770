#!/usr/bin/env bash
# README's DPDK section keeps its promises: the build command it gives builds every program the
# section runs from build/ (qb_dpdk_txonly was once left out), every suite it names exists, and
# its Tx-only suite really is Tx-only on net_null (no net_ring port, rx_port = "none").
# Usage: readme_dpdk_test.sh SOURCE_DIR BUILD_DIR NAME=FILE... (the build's programs, from CMake;
# an empty FILE: not built). Skipped (77) when the DPDK driver is not built.
set -euo pipefail
source_dir=$1 build_dir=$2
shift 2
declare -A built=()
for pair in "$@"; do built[${pair%%=*}]=${pair#*=}; done
section=$(awk '/^## DPDK/{on=1; next} /^## /{on=0} on' "$source_dir/README.md")
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

targets=$(grep -o 'QB_BUILD_TARGET="[^"]*"' <<<"$section" | head -1 | sed 's/.*="\(.*\)"/\1/')
[[ -n "$targets" ]] || { echo "FAIL: README's DPDK section gives no QB_BUILD_TARGET=\"...\" build command" >&2; exit 1; }
if [[ -z "${built[qb_dpdk_txonly]:-}" ]]; then
  echo "SKIP: the DPDK driver is not built here (no qb_dpdk_txonly target)"
  exit 77
fi
for program in $(grep -o 'build/[A-Za-z0-9_/]*' <<<"$section" | sort -u); do
  name=${program##*/}
  grep -qw "$name" <<<"$targets" || fail "README runs $program but its build command builds only: $targets"
  if [[ -z "${built[$name]:-}" ]]; then
    fail "README runs $program: not a program this build makes"
  elif [[ "${built[$name]}" != "$build_dir/${program#build/}" ]]; then
    fail "README runs $program: the build writes it to ${built[$name]}"
  fi
done
for suite in $(grep -o '\(tests\|configs\)/[A-Za-z0-9_/]*\.toml' <<<"$section" | sort -u); do
  [[ -f "$source_dir/$suite" ]] || fail "README names $suite: no such file"
done
tx_only=$(tr '\n' ' ' <<<"$section" | grep -o 'Tx only on `net_null`: `qosbench run [^ `]*' | awk '{print $NF}')
if [[ -z "$tx_only" ]]; then
  fail "README's Tx-only recipe names no suite"
else
  grep -q '^rx_port = "none"' "$source_dir/$tx_only" || fail "$tx_only is not Tx only (rx_port)"
  grep -q '^tx_port = "net_null0"' "$source_dir/$tx_only" || fail "$tx_only does not send on net_null0"
  ! grep -q 'net_ring' "$source_dir/$tx_only" || fail "$tx_only still names a net_ring port"
fi
((failures == 0)) || exit 1
echo "README DPDK section: build command, programs and suites agree"
