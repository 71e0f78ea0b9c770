#!/usr/bin/env bash
# builds_alone.sh CC INCLUDE_DIR PROGRAM.c [NM]
# A DPA program must build on its own for the DPA compiler: plain C11, freestanding, no floating
# point (-mgeneral-regs-only on x86 rejects any), only the device API header reachable, and the
# object must call nothing (no undefined symbols: no libc, no malloc, no compiler helpers).
set -euo pipefail
cc=$1
include_dir=$2
source=$3
nm_tool=${4:-nm}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
object="$work/$(basename "$source" .c).o"

# Only a copy is compiled, from an empty folder: a quoted #include of a file beside the source
# would be found beside the original. -nostdinc plus the compiler's own folder leaves the
# freestanding headers (stdint.h, stddef.h) and the device API: no libc header is reachable.
cp "$source" "$work/program.c"
compiler_headers=$("$cc" -print-file-name=include)
flags=(-std=c11 -pedantic -Werror -Wall -Wextra -ffreestanding -O2 -c
       -nostdinc -isystem "$compiler_headers")
case "$(uname -m)" in
  x86_64 | i?86) flags+=(-mgeneral-regs-only) ;;
esac
if ! "$cc" "${flags[@]}" -I "$include_dir" "$work/program.c" -o "$object"; then
  echo "FAIL: $source does not build alone (flags: ${flags[*]} -I $include_dir)" >&2
  exit 1
fi
undefined=$("$nm_tool" -u "$object")
if [[ -n "$undefined" ]]; then
  echo "FAIL: $source calls outside itself:" >&2
  echo "$undefined" >&2
  exit 1
fi
echo "OK: $source builds alone, no undefined symbols"
