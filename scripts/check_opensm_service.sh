#!/usr/bin/env bash
# Fails (exit 1, saying why) when an opensm subnet manager service is running or enabled on this
# host; exit 0 otherwise. scripts/setup.sh runs it after installing opensm itself, and the ctest
# check `opensm_service_not_enabled` runs it on hosts with systemd. Why: a subnet manager started
# by a test set-up joins whatever InfiniBand fabric the host is cabled to.
set -uo pipefail
# Test seams (tests/scripts/setup_test.sh runs this against a fake host).
etc=${QB_OPENSM_CHECK_ETC:-/etc}
systemd_run=${QB_OPENSM_CHECK_SYSTEMD_RUN:-/run/systemd/system}
problems=()

if command -v systemctl >/dev/null; then
  # is-enabled works without a running systemd (it reads the unit links and the SysV links).
  state=$(systemctl is-enabled opensm.service 2>/dev/null)
  case "$state" in
    enabled | enabled-runtime | alias | linked | linked-runtime)
      problems+=("systemctl is-enabled opensm.service: $state") ;;
  esac
fi
if [[ -d "$systemd_run" ]]; then
  if systemctl is-active --quiet opensm.service; then
    problems+=("systemctl is-active opensm.service: active")
  fi
  instances=$(systemctl list-units --state=active --no-legend --plain 'opensm@*' 2>/dev/null)
  [[ -z "$instances" ]] || problems+=("active opensm@ instances: $instances")
else
  # No systemd (a container): enabled means a SysV start link, running means a process.
  for link in "$etc"/rc[2-5].d/S*opensm; do
    [[ -e "$link" ]] && problems+=("SysV start link $link")
  done
  if command -v pgrep >/dev/null && pgrep -x opensm >/dev/null; then
    problems+=("an opensm process is running (pgrep -x opensm)")
  fi
fi

if ((${#problems[@]} > 0)); then
  for problem in "${problems[@]}"; do echo "opensm service check: FAIL: $problem" >&2; done
  exit 1
fi
echo "opensm service check: no opensm service running or enabled"
