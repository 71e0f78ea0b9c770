#!/usr/bin/env bash
# Boots Debian's own kernel (unpacked by scripts/setup_softroce.sh into the project's cache, never
# installed) in a QEMU guest and runs one command in it, on the host's root filesystem shared
# read-only over 9p (so the guest runs this checkout's built binaries), with OUT_DIR shared
# read-write (what the guest writes there is on the host afterwards). Then the guest powers off:
# nothing of it is left running.
#
# usage: softroce_vm.sh OUT_DIR COMMAND [ARG...]
#   COMMAND is a host path outside /tmp and /run (or inside this checkout, which is shared on its
#   own when it lies under them: a clone in /tmp), run by bash in the guest as root in a chroot of
#   the host's root (/proc, /sys, /dev, /tmp and /run the guest's own), with
#   QB_GUEST_KERNEL_DIR the unpacked kernel (`modprobe -d "$QB_GUEST_KERNEL_DIR" MODULE`; the
#   kernel's own module requests go there too). Its exit code is the script's.
# Exit: the command's code; 77 when the guest cannot be made here (no qemu-system-x86_64 or no
# KVM/TCG accelerator in it, no kernel in the cache, no static busybox) with the reason on stdout; 124 when the guest did not
# power off within QB_SOFTROCE_TIMEOUT seconds (default 300: it is killed); 125 when it powered
# off without the command's exit code (a guest boot or mount failure: see OUT_DIR/console.log).
#
# Environment: QB_SOFTROCE_CACHE (default .cache/softroce), QB_SOFTROCE_ACCEL (kvm|tcg; default:
# kvm where /dev/kvm runs ordinary guests, else tcg), QB_SOFTROCE_TIMEOUT, QB_SOFTROCE_MEM_MB
# (default 1024), QB_SOFTROCE_CPUS (default 4: the receiver, the sender and rxe's own work each
# find a CPU in the guest, so the guest does not count its workers as starved).
#
# Why these choices (times in docs/testing.md, "Soft-RoCE in a guest"):
# - the kernel boots as an uncompressed ELF through its PVH entry (Debian's kernel has
#   CONFIG_PVH): no BIOS real-mode set-up and no XZ decompression under emulation;
# - qboot instead of SeaBIOS, -nodefaults (no VGA, no NIC, no option ROM to run);
# - a minimal initramfs: busybox and the ten modules 9p needs, nothing else; the guest's other
#   modules (rdma_rxe, veth) are loaded by the command with the host's modprobe from the cache.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${QB_SOFTROCE_CACHE:-$root/.cache/softroce}
timeout_s=${QB_SOFTROCE_TIMEOUT:-300}
mem_mb=${QB_SOFTROCE_MEM_MB:-1024}
cpus=${QB_SOFTROCE_CPUS:-4}

skip() {
  echo "SKIP: $*"
  exit 77
}

out=${1:?usage: softroce_vm.sh OUT_DIR COMMAND [ARG...]}
shift
(($# > 0)) || { echo "usage: softroce_vm.sh OUT_DIR COMMAND [ARG...]" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)

qemu=$(command -v qemu-system-x86_64 || true)
[[ -n "$qemu" ]] || skip "no qemu-system-x86_64 (Debian: qemu-system-x86; scripts/setup_softroce.sh installs it)"
busybox=""
for candidate in /bin/busybox /usr/bin/busybox; do
  if [[ -x "$candidate" ]] && ! ldd "$candidate" >/dev/null 2>&1; then busybox=$candidate; fi
done
[[ -n "$busybox" ]] || skip "no static busybox (Debian: busybox-static; scripts/setup_softroce.sh installs it)"
kdir="$cache/kernel/current"
[[ -f "$kdir/.complete" ]] || skip "no Debian kernel in $cache/kernel (run scripts/setup_softroce.sh)"
kdir=$(cd "$kdir" && pwd -P)
release=$(basename "$kdir")
modules="$kdir/lib/modules/$release"
[[ -f "$modules/modules.dep" ]] || skip "$modules has no modules.dep (run scripts/setup_softroce.sh again)"
kernel="$kdir/boot/vmlinux-$release"
[[ -f "$kernel" ]] || kernel="$kdir/boot/vmlinuz-$release"

accel=${QB_SOFTROCE_ACCEL:-}
if [[ -z "$accel" ]]; then
  # A KVM that runs ordinary guests: kvm_intel or kvm_amd. (kvm_pvm, the paravirtual KVM of some
  # nested clouds, runs only kernels built as PVM guests: Debian's hangs there before its first
  # console line.)
  accel=tcg
  if [[ -r /dev/kvm && -w /dev/kvm ]] && [[ -d /sys/module/kvm_intel || -d /sys/module/kvm_amd ]]; then
    accel=kvm
  fi
fi
case "$accel" in
  kvm) accel_args=(-accel kvm -cpu host) ;;
  tcg) accel_args=(-accel tcg,thread=multi -cpu max) ;;
  *) echo "softroce_vm: QB_SOFTROCE_ACCEL must be kvm or tcg, not '$accel'" >&2; exit 2 ;;
esac
# A QEMU built without the accelerator (e.g. no TCG, and no usable KVM) cannot run the guest.
# (Read whole first: `grep -q` on the pipe could kill qemu with SIGPIPE, a false "no".)
accels=$("$qemu" -accel help 2>/dev/null || true)
if ! grep -qx "$accel" <<<"$accels"; then
  skip "$qemu has no $accel accelerator ($(tail -n +2 <<<"$accels" | tr '\n' ' '))"
fi
bios_args=()
[[ -f /usr/share/qemu/qboot.rom ]] && bios_args=(-bios /usr/share/qemu/qboot.rom)

work=$(mktemp -d /tmp/qb-softroce-vm.XXXXXX)
qemu_pid=""
cleanup() {
  if [[ -n "$qemu_pid" ]] && kill -0 "$qemu_pid" 2>/dev/null; then
    kill -KILL "$qemu_pid" 2>/dev/null || true
    wait "$qemu_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The initramfs: busybox, 9p's modules in dependency order, and /init.
ir="$work/initramfs"
mkdir -p "$ir/bin" "$ir/modules"
cp "$busybox" "$ir/bin/busybox"
nine_p_modules=(virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci netfs
  fscache 9pnet 9pnet_virtio 9p)
for m in "${nine_p_modules[@]}"; do
  path=$(grep -E "(^|/)$m\.ko(\.[a-z]+)?:" "$modules/modules.dep" | cut -d: -f1)
  [[ -n "$path" ]] || skip "$release has no module $m"
  cp "$modules/$path" "$ir/modules/"
  echo "$(basename "$path")" >>"$ir/modules/order"
done
# The command, in bash's quoting, run by the host's bash in the guest (busybox sh has no arrays).
[[ "$out" != *"'"* ]] || { echo "softroce_vm: OUT_DIR cannot contain a quote" >&2; exit 2; }
echo "out='$out'" >"$ir/out"
# The guest's /tmp and /run are its own: a checkout under them (its scripts, its build, the
# kernel cache) is shared on its own, read-only, at the same path.
src_args=()
src=""
if [[ "$root" == /tmp/* || "$root" == /run/* ]]; then
  [[ "$root" != *"'"* ]] || { echo "softroce_vm: the checkout's path cannot contain a quote" >&2; exit 2; }
  src=$root
  src_args=(-virtfs "local,path=$root,mount_tag=qbsrc,security_model=none,readonly=on,multidevs=remap")
fi
echo "src='$src'" >"$ir/src"
echo "kdir='$kdir'" >"$ir/kdir"
# The kernel's own module requests (crc32 for rxe's ICRC, qdiscs, ...) run /sbin/modprobe in the
# initramfs: the host's modprobe on the cache's modules.
mkdir -p "$ir/sbin"
printf '#!/bin/busybox sh\nexec /bin/busybox chroot /host /usr/sbin/modprobe -d %q "$@"\n' \
  "$kdir" >"$ir/sbin/modprobe"
chmod +x "$ir/sbin/modprobe"
{
  printf '%q ' "$@"
  echo
} >"$out/.guest_command"
cat >"$ir/init" <<'EOF'
#!/bin/busybox sh
b=/bin/busybox
$b mkdir -p /proc /sys /dev /host
$b mount -t proc proc /proc
$b mount -t sysfs sys /sys
$b mount -t devtmpfs dev /dev
say() { echo "qb-guest: $*" >/dev/console; }
die() { say "$*"; $b poweroff -f; }
for m in $($b cat /modules/order); do
  $b insmod "/modules/$m" || die "insmod $m failed"
done
$b mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose host /host ||
  die "cannot mount the host's root (9p tag host)"
$b mount -t proc proc /host/proc
$b mount -t sysfs sys /host/sys
$b mount -t devtmpfs dev /host/dev
$b mount -t tmpfs tmp /host/tmp
$b mount -t tmpfs run /host/run
. /out
. /kdir
. /src
if [ -n "$src" ]; then
  $b mkdir -p "/host$src"
  $b mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose qbsrc "/host$src" ||
    die "cannot mount the checkout (9p tag qbsrc)"
fi
$b mkdir -p "/host$out"
$b mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 qbout "/host$out" ||
  die "cannot mount the output folder (9p tag qbout)"
say "up $($b cut -d' ' -f1 /proc/uptime) s after the kernel started"
$b chroot /host /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb \
  "QB_GUEST_KERNEL_DIR=$kdir" /bin/bash "$out/.guest_command" >/host/dev/console 2>&1
rc=$?
echo "$rc" >"/host$out/guest_rc"
$b sync
say "command exited $rc at $($b cut -d' ' -f1 /proc/uptime) s; powering off"
$b poweroff -f
EOF
chmod +x "$ir/init"
(cd "$ir" && find . | "$busybox" cpio -o -H newc -R 0:0 2>/dev/null | gzip -1 >"$work/initramfs.gz")

rm -f "$out/guest_rc"
echo "softroce_vm: booting $release ($accel, $cpus CPUs, $mem_mb MiB) for: $*"
start_ns=$(date +%s%N)
# The serial console goes to OUT_DIR/console.log (the test prints it).
"$qemu" -M pc -nodefaults "${bios_args[@]}" "${accel_args[@]}" -m "$mem_mb" -smp "$cpus" \
  -display none -no-reboot -serial "file:$out/console.log" \
  -kernel "$kernel" -initrd "$work/initramfs.gz" \
  -append "console=ttyS0 quiet panic=-1 mitigations=off clocksource=hpet" \
  -virtfs "local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap" \
  -virtfs "local,path=$out,mount_tag=qbout,security_model=none" "${src_args[@]}" &
qemu_pid=$!
deadline=$((SECONDS + timeout_s))
while kill -0 "$qemu_pid" 2>/dev/null; do
  if ((SECONDS >= deadline)); then
    echo "softroce_vm: the guest did not power off within $timeout_s s: killed (see $out/console.log)"
    exit 124
  fi
  sleep 0.5
done
wait "$qemu_pid" || true
qemu_pid=""
elapsed_ms=$((($(date +%s%N) - start_ns) / 1000000))
echo "softroce_vm: guest powered off after $((elapsed_ms / 1000)).$(printf %03d $((elapsed_ms % 1000))) s"
if [[ ! -f "$out/guest_rc" ]]; then
  echo "softroce_vm: the guest ended without running the command: see $out/console.log"
  tail -n 20 "$out/console.log" 2>/dev/null || true
  exit 125
fi
exit "$(cat "$out/guest_rc")"
