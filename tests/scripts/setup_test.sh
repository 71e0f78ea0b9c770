#!/usr/bin/env bash
# scripts/setup.sh on a fake Debian host (fake apt-get, dpkg-query, systemctl, update-rc.d, pgrep
# on PATH; nothing real is installed): the minimal profile installs only the build + simulator
# set; a fresh opensm is installed with its service start denied and left disabled; an opensm the
# owner installed before is not touched; a service that stays enabled fails the set-up loudly.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

make_host() {  # $1 = a directory for one fake host
  local host=$1
  mkdir -p "$host/bin" "$host/state" "$host/etc"
  : >"$host/state/installed"
  cat >"$host/bin/id" <<'X'
#!/bin/sh
echo 0
X
  cat >"$host/bin/dpkg-query" <<X
#!/bin/sh
for p; do last=\$p; done
grep -qx "\$last" "$host/state/installed" && printf 'install ok installed'
exit 0
X
  # apt-get install: records the packages; opensm's maintainer scripts enable the service and
  # start it unless policy-rc.d answers 101, as invoke-rc.d/deb-systemd-invoke do.
  cat >"$host/bin/apt-get" <<X
#!/bin/sh
[ "\$1" = install ] || exit 0
for p; do
  case "\$p" in -*|install) continue ;; esac
  echo "\$p" >>"$host/state/installed"
  echo "\$p" >>"$host/state/apt.log"
  if [ "\$p" = opensm ]; then
    touch "$host/state/enabled"
    rc=0; "\$QB_SETUP_POLICY_RC_D" opensm.service start || rc=\$?
    [ "\$rc" = 101 ] || touch "$host/state/active"
  fi
done
X
  cat >"$host/bin/systemctl" <<X
#!/bin/sh
case "\$1" in
  is-enabled) if [ -f "$host/state/enabled" ]; then echo enabled; else echo disabled; exit 1; fi ;;
  is-active) [ -f "$host/state/active" ] ;;
  disable) [ -f "$host/state/stuck" ] || rm -f "$host/state/enabled"; echo disable >>"$host/state/systemctl.log" ;;
  *) exit 0 ;;
esac
X
  cat >"$host/bin/update-rc.d" <<'X'
#!/bin/sh
exit 0
X
  cat >"$host/bin/pgrep" <<X
#!/bin/sh
[ -f "$host/state/active" ]
X
  chmod +x "$host/bin/"*
}

run_setup() {  # $1 = host, then VAR=VALUE settings; output in $host/out, exit code echoed
  local host=$1; shift
  env PATH="$host/bin:$PATH" QB_SETUP_BROWSER=0 QB_SETUP_SOFTROCE=0 QB_SETUP_POLICY_RC_D="$host/policy-rc.d" \
    QB_OPENSM_CHECK_ETC="$host/etc" QB_OPENSM_CHECK_SYSTEMD_RUN="$host/no-systemd" "$@" \
    bash "$root/scripts/setup.sh" >"$host/out" 2>&1 && echo 0 || echo $?
}

# 1. The minimal profile: build tools and the simulator's libraries only.
host=$work/minimal; make_host "$host"
rc=$(run_setup "$host" QB_SETUP_PROFILE=minimal)
[[ $rc == 0 ]] || fail "minimal: exit $rc: $(cat "$host/out")"
grep -qx libtomlplusplus-dev "$host/state/apt.log" || fail "minimal: libtomlplusplus-dev not installed"
for p in libdpdk-dev dpdk dpdk-dev tshark opensm ibsim-utils infiniband-diags chromium clang-14 libibverbs-dev libibmad-dev \
  libopenmpi-dev openmpi-bin; do
  ! grep -qx "$p" "$host/state/apt.log" || fail "minimal profile installed $p"
done

# 2. A fresh opensm (full profile): never started, disabled afterwards, the container's own
#    policy-rc.d put back.
host=$work/fresh; make_host "$host"
printf '#!/bin/sh\nexit 0\n' >"$host/policy-rc.d"; chmod +x "$host/policy-rc.d"
rc=$(run_setup "$host")
[[ $rc == 0 ]] || fail "fresh: exit $rc: $(cat "$host/out")"
grep -qx opensm "$host/state/apt.log" || fail "fresh: opensm not installed"
grep -qx tshark "$host/state/apt.log" || fail "fresh: the full profile did not install tshark"
grep -qx openmpi-bin "$host/state/apt.log" || fail "fresh: the full profile did not install openmpi-bin"
grep -qx libibmad-dev "$host/state/apt.log" || fail "fresh: the full profile did not install libibmad-dev"
[[ ! -f "$host/state/active" ]] || fail "fresh: opensm was started during the install"
[[ ! -f "$host/state/enabled" ]] || fail "fresh: opensm left enabled"
grep -q 'exit 0' "$host/policy-rc.d" || fail "fresh: the existing policy-rc.d was not restored"
grep -q "neither started nor enabled" "$host/out" || fail "fresh: no confirmation printed"

# 3. opensm installed and enabled by the owner before: left as it is.
host=$work/owned; make_host "$host"
echo opensm >"$host/state/installed"; touch "$host/state/enabled"
rc=$(run_setup "$host")
[[ $rc == 0 ]] || fail "owned: exit $rc: $(cat "$host/out")"
[[ -f "$host/state/enabled" ]] || fail "owned: the owner's enabled opensm was disabled"
[[ ! -f "$host/state/systemctl.log" ]] || fail "owned: systemctl was called on the owner's opensm"
[[ ! -e "$host/policy-rc.d" ]] || fail "owned: a policy-rc.d was left behind"

# 4. A service that stays enabled after our install fails the set-up, saying so.
host=$work/stuck; make_host "$host"; touch "$host/state/stuck"
rc=$(run_setup "$host")
[[ $rc != 0 ]] || fail "stuck: the set-up passed with opensm enabled"
grep -q "is-enabled opensm.service: enabled" "$host/out" || fail "stuck: no reason printed: $(cat "$host/out")"
[[ ! -e "$host/policy-rc.d" ]] || fail "stuck: a policy-rc.d was left behind"

# 5. The quick start asks for the minimal profile.
grep -q '^QB_SETUP_PROFILE=minimal "$root/scripts/setup.sh"' "$root/scripts/quickstart.sh" ||
  fail "scripts/quickstart.sh does not run setup.sh with QB_SETUP_PROFILE=minimal"

((failures == 0)) || exit 1
echo "setup.sh: 5 cases passed"
