#!/usr/bin/env bash
# What the Soft-RoCE test (tests/softroce, docs/testing.md) needs, from Debian 12 only:
# - on the host: qemu-system-x86 (the guest), busybox-static (the guest's initramfs), and the
#   tools the guest runs from the host's root shared read-only: iproute2 (`ip`, `rdma`),
#   rdma-core + ibverbs-providers (librxe), ibverbs-utils (ibv_devinfo), tcpdump (the capture),
#   tshark (dissects the capture), kmod (depmod for the unpacked kernel, modprobe in the guest);
# - Debian's own kernel, linux-image-amd64's current package, downloaded (`apt-get download`)
#   and unpacked (`dpkg -x`) into the project's cache folder, never installed as the host's
#   kernel: $QB_SOFTROCE_CACHE (default .cache/softroce in the checkout)/kernel/<release>/.
# Idempotent: nothing is installed or downloaded again when it is there. No service is started.
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${QB_SOFTROCE_CACHE:-$root/.cache/softroce}

packages=(qemu-system-x86 busybox-static iproute2 rdma-core ibverbs-providers ibverbs-utils
  tcpdump tshark kmod)
missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
sudo=""
if [[ $(id -u) -ne 0 ]]; then
  sudo="sudo"
fi
updated=0
if ((${#missing[@]} > 0)); then
  echo "setup_softroce: installing ${missing[*]}"
  $sudo apt-get update -q
  updated=1
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The kernel: the package linux-image-amd64 points at (linux-image-6.1.0-N-amd64).
image=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-/ {print $2; exit}')
if [[ -z "$image" && $updated == 0 ]]; then
  $sudo apt-get update -q
  image=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-/ {print $2; exit}')
fi
if [[ -z "$image" ]]; then
  echo "setup_softroce: apt knows no linux-image-amd64 (is this Debian 12 with its main archive?)" >&2
  exit 1
fi
release=${image#linux-image-}
dest="$cache/kernel/$release"
if [[ -f "$dest/.complete" ]]; then
  echo "setup_softroce: kernel $release present in $dest"
else
  echo "setup_softroce: downloading $image into $cache (unpacked, not installed)"
  mkdir -p "$cache/debs"
  (cd "$cache/debs" && apt-get -o APT::Sandbox::User=root download -q "$image")
  deb=$(ls -t "$cache/debs/${image}_"*.deb | head -1)
  rm -rf "$dest.tmp"
  mkdir -p "$dest.tmp"
  dpkg -x "$deb" "$dest.tmp"
  [[ -f "$dest.tmp/boot/vmlinuz-$release" ]] || { echo "setup_softroce: $deb has no boot/vmlinuz-$release" >&2; exit 1; }
  rm -rf "$dest"
  mv "$dest.tmp" "$dest"
  rm -f "$deb"
  # modules.dep for modprobe (an installed kernel gets it from its postinst).
  depmod -b "$dest" "$release"
  # The kernel uncompressed (an ELF with a PVH entry: the guest boots it directly, where under
  # emulation the bzImage's own XZ decompression takes tens of seconds).
  python3 - "$dest/boot/vmlinuz-$release" "$dest/boot/vmlinux-$release" <<'PY'
import lzma, sys
data = open(sys.argv[1], "rb").read()
start = data.find(b"\xfd7zXZ\x00")
if start < 0:
    sys.exit(f"{sys.argv[1]}: no XZ stream (not an XZ-compressed bzImage)")
elf = lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(data[start:])
if elf[:4] != b"\x7fELF":
    sys.exit(f"{sys.argv[1]}: its XZ stream is not an ELF kernel")
open(sys.argv[2], "wb").write(elf)
PY
  touch "$dest/.complete"
  echo "setup_softroce: kernel $release unpacked in $dest"
fi
# The runner boots the newest complete one; older ones are left for the owner to remove.
ln -sfn "$release" "$cache/kernel/current"
