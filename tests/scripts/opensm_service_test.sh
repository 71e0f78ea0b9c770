#!/usr/bin/env bash
# On a host with systemd and opensm installed: no opensm service may be running or enabled
# (scripts/setup.sh installs opensm without its service). Skipped (77) without systemd, as in
# containers, and where opensm is not installed. An owner who enabled opensm on purpose sees
# this fail; that is the point of the check on a test machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [[ ! -d /run/systemd/system ]]; then
  echo "SKIP: systemd is not running here (a container?): no service to check"
  exit 77
fi
if ! dpkg-query -W -f='${Status}' opensm 2>/dev/null | grep -q "install ok installed"; then
  echo "SKIP: opensm is not installed"
  exit 77
fi
exec "$root/scripts/check_opensm_service.sh"
