#!/usr/bin/env bash
# An A/B build's configure step (src/cuda/CMakeLists.txt, GEMMROUTE_AB_PATCHES): dev/pending's
# patches of stream.cu, small.cu and reg.cu apply to the build folder's copy of src/ in order, each
# patched copy differs from the tree's file, and a patch of another file is refused by name.
# Configure only: the build itself is the device's (scripts/gpu-check AB_PATCHES=...).
#
#   tests/tools/ab_configure.sh ROOT SCRATCH
set -euo pipefail
root=$(cd "$1" && pwd) scratch=$2
rm -rf "$scratch" && mkdir -p "$scratch"
common=(-G Ninja -DGEMMROUTE_CUDA=ON -DGEMMROUTE_BUILD_TESTS=OFF -DGEMMROUTE_BUILD_BLAS=OFF)
# The pending patches, chain by chain in the order dev/pending/README.md gives
# (tests/tools/pending_patches.sh's `chains`): each chain is an A/B build of its own, as the
# device builds them. A tree with pending patches but no chain read fails: the test must not
# pass by checking nothing.
chains_line=$(sed -n 's/^chains=(\(.*\))$/\1/p' "$root/tests/tools/pending_patches.sh")
eval "chains=($chains_line)"
pending=("$root"/dev/pending/[0-9][0-9]-*.patch)
if [ -f "${pending[0]}" ] && [ ${#chains[@]} -eq 0 ]; then
  echo "FAIL: no chains=(...) read from tests/tools/pending_patches.sh" >&2
  exit 1
fi
built=0
for c in "${!chains[@]}"; do
  patches=()
  for n in ${chains[$c]}; do
    for p in "$root"/dev/pending/"$n"-*.patch; do
      # Those of src/cuda's files only: a patch that adds emulator cases (tests/emulate) goes
      # with its kernel patch but is not a kernel to build twice.
      [ -f "$p" ] && ! grep '^+++ b/' "$p" | grep -qv '^+++ b/src/cuda/' && patches+=("$p")
    done
  done
  [ ${#patches[@]} -gt 0 ] || continue
  list=$(IFS=';' && echo "${patches[*]}")
  cmake -S "$root" -B "$scratch/ab-$c" "${common[@]}" -DGEMMROUTE_AB_PATCHES="$list" \
    >"$scratch/ab-$c.log" 2>&1 ||
    { cat "$scratch/ab-$c.log"; echo "FAIL: the A/B configure of chain ${chains[$c]}" >&2; exit 1; }
  for f in $(sed -n 's#^+++ b/##p' "${patches[@]}" | sort -u); do
    copy="$scratch/ab-$c/src/cuda/ab/$f"
    [ -f "$copy" ] || { echo "FAIL: no patched copy at $copy" >&2; exit 1; }
    if cmp -s "$copy" "$root/$f"; then
      echo "FAIL: the patched copy of $f is the tree's" >&2
      exit 1
    fi
  done
  built=$((built + ${#patches[@]}))
done
# A patch of another file (tiled.cu, made here) is refused, saying why.
mkdir -p "$scratch/a/src/cuda" "$scratch/b/src/cuda"
cp "$root/src/cuda/tiled.cu" "$scratch/a/src/cuda/tiled.cu"
{ cat "$root/src/cuda/tiled.cu"; echo "// changed"; } >"$scratch/b/src/cuda/tiled.cu"
(cd "$scratch" && diff -u a/src/cuda/tiled.cu b/src/cuda/tiled.cu >tiled.patch) || true
if cmake -S "$root" -B "$scratch/bad" "${common[@]}" -DGEMMROUTE_AB_PATCHES="$scratch/tiled.patch" \
  >"$scratch/bad.log" 2>&1; then
  echo "FAIL: a patch of tiled.cu was taken" >&2
  exit 1
fi
tr -s ' \n' ' ' <"$scratch/bad.log" |
  grep -q "takes patches of src/cuda/stream.cu, small.cu and reg.cu only" ||
  { cat "$scratch/bad.log"; echo "FAIL: the refusal does not say why" >&2; exit 1; }
echo "ok: A/B configure ($built patches in ${#chains[@]} chains)"
