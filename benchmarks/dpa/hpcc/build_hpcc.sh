#!/usr/bin/env bash
# Build HPCC's ns-3.17 simulator (simulation/scratch/third.cc) without waf, with the system g++.
#
#   build_hpcc.sh HPCC_SOURCE [BUILD_DIR]
#
# HPCC_SOURCE: a checkout of alibaba-edu/High-Precision-Congestion-Control (the directory with
# simulation/ in it, or simulation/ itself), or a git repository of it, bare or not (its HEAD is
# taken with `git archive`). BUILD_DIR (default /tmp/hpcc-build) receives:
#   src/simulation/   the extracted sources (never the checkout itself; replaced only when they change)
#   include/ns3/      module headers, aggregate <module>-module.h, core-config.h (gen_build.py)
#   gen/CMakeLists.txt, obj/   the CMake build; obj/third is the simulator
#   check_trace       the trace summariser compare.sh --check uses
# JOBS (default 2) sets the parallel compile jobs. Nothing is written outside BUILD_DIR.
#
# Needs: g++ (tested with Debian 12's 12.2), cmake >= 3.16, make, python3, git (for a git
# source), tar. No patches to HPCC's sources are needed for g++ 12 with -std=gnu++11 (waf's own
# standard, HPCC's waf-tools/cflags.py): every file compiles as it is; HPCC's README advice to
# use gcc-5 concerns its waf build.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { echo "build_hpcc.sh: $*" >&2; exit 1; }

[[ $# -ge 1 && $# -le 2 ]] || die "usage: build_hpcc.sh HPCC_SOURCE [BUILD_DIR]
  HPCC_SOURCE: a checkout of alibaba-edu/High-Precision-Congestion-Control or a (bare) git
  repository of it, e.g. /work/.mirror/alibaba-edu+High-Precision-Congestion-Control/repo"
source_path=$1
build=${2:-/tmp/hpcc-build}
jobs=${JOBS:-2}

for tool in g++ cmake make python3 tar sha1sum; do
  command -v "$tool" > /dev/null || die "$tool not found (apt-get install g++ cmake make python3 tar coreutils)"
done
[[ -e $source_path ]] || die "HPCC source '$source_path' does not exist (give a checkout of alibaba-edu/High-Precision-Congestion-Control or a git mirror of it)"
[[ -d $source_path ]] || die "HPCC source '$source_path' is not a directory"
# Absolute, so that a source given as `.` or `..` names a directory, not a path to tar up.
source_path=$(cd "$source_path" && pwd)
if [[ ! -f $source_path/simulation/scratch/third.cc && ! -f $source_path/scratch/third.cc ]]; then
  command -v git > /dev/null || die "'$source_path' is not an HPCC checkout, and git (to read it as a repository) is not found"
fi

mkdir -p "$build"
build=$(cd "$build" && pwd)
stage="$build/stage"
rm -rf "$stage"
mkdir -p "$stage"
trap 'rm -rf "$stage"' EXIT  # gone on any failure; moved into place on success

# 1. Extract simulation/ into the stage.
if [[ -f $source_path/simulation/scratch/third.cc ]]; then
  tar -C "$source_path" --exclude=simulation/build --exclude='*.pyc' -cf - simulation | tar -C "$stage" -xf -
  origin="checkout $source_path"
elif [[ -f $source_path/scratch/third.cc && -d $source_path/src/point-to-point ]]; then
  tar -C "$source_path/.." --exclude="$(basename "$source_path")/build" -cf - "$(basename "$source_path")" \
    | tar -C "$stage" -xf -
  [[ $(basename "$source_path") == simulation ]] || mv "$stage/$(basename "$source_path")" "$stage/simulation"
  origin="checkout $source_path"
elif git --git-dir="$source_path" rev-parse --verify -q HEAD > /dev/null 2>&1 ||
     git -C "$source_path" rev-parse --verify -q HEAD > /dev/null 2>&1; then
  if git --git-dir="$source_path" rev-parse --verify -q HEAD > /dev/null 2>&1; then
    gitcmd=(git --git-dir="$source_path")
  else
    gitcmd=(git -C "$source_path")
  fi
  "${gitcmd[@]}" cat-file -e HEAD:simulation/scratch/third.cc 2> /dev/null ||
    die "$source_path is a git repository without simulation/scratch/third.cc at HEAD: not HPCC's"
  "${gitcmd[@]}" archive HEAD simulation | tar -C "$stage" -xf -
  origin="git $source_path at $("${gitcmd[@]}" rev-parse HEAD)"
else
  die "'$source_path' is neither an HPCC checkout (no simulation/scratch/third.cc) nor a git repository of it"
fi
[[ -f $stage/simulation/src/point-to-point/model/rdma-hw.cc ]] ||
  die "no simulation/src/point-to-point/model/rdma-hw.cc in $origin: not HPCC's ns-3"

# 2. Patches: none needed (see the header). A patch for a newer compiler would be applied here,
#    to the stage, never to the checkout.

# 3. Replace src/ only when the sources changed, so an unchanged tree is not rebuilt.
tree_hash() { (cd "$1" && find simulation/src simulation/scratch -type f -print0 | LC_ALL=C sort -z |
               xargs -0 sha1sum | sha1sum | cut -d' ' -f1); }
new_hash=$(tree_hash "$stage")
old_hash=$(cat "$build/src/.tree-hash" 2> /dev/null || true)
if [[ $new_hash != "$old_hash" ]]; then
  rm -rf "$build/src"
  mv "$stage" "$build/src"
  echo "$new_hash" > "$build/src/.tree-hash"
  echo "build_hpcc.sh: sources from $origin -> $build/src (tree $new_hash)"
else
  rm -rf "$stage"
  echo "build_hpcc.sh: sources unchanged ($origin, tree $new_hash)"
fi

# 4. Headers, config headers, CMakeLists.txt; then the build.
python3 "$here/gen_build.py" "$build/src/simulation" "$build"
cmake -S "$build/gen" -B "$build/obj" -DCMAKE_BUILD_TYPE= -DCMAKE_CXX_COMPILER=g++ > "$build/cmake-configure.log" ||
  { tail -20 "$build/cmake-configure.log" >&2; die "cmake configure failed (log: $build/cmake-configure.log)"; }
cmake --build "$build/obj" -j "$jobs" ||
  die "the build failed (file and error above); build dir $build/obj"

# 5. The trace summariser for compare.sh --check, against the same headers.
if [[ ! -x $build/check_trace || $here/check_trace.cc -nt $build/check_trace ]]; then
  g++ -std=gnu++11 -O2 -w -I "$build/include" "$here/check_trace.cc" -o "$build/check_trace"
fi
echo "build_hpcc.sh: $build/obj/third and $build/check_trace ready"
