#!/usr/bin/env bash
# An A/B build's configure step (src/cuda/CMakeLists.txt, GEMMROUTE_AB_PATCHES): dev/pending's
# stream.cu patches apply to the build folder's copy of src/ in order, the copy differs from the
# tree's stream.cu, and a patch of another file is refused by name. Configure only: the build
# itself is the device's (scripts/gpu-check AB_PATCHES=...).
#
#   tests/tools/ab_configure.sh ROOT SCRATCH
set -euo pipefail
root=$(cd "$1" && pwd) scratch=$2
rm -rf "$scratch" && mkdir -p "$scratch"
stream=("$root"/dev/pending/0[89]-stream-*.patch)
[ -f "${stream[0]}" ] || { echo "ok: no stream.cu patches pending"; exit 0; }
list=$(IFS=';' && echo "${stream[*]}")
common=(-G Ninja -DGEMMROUTE_CUDA=ON -DGEMMROUTE_BUILD_TESTS=OFF -DGEMMROUTE_BUILD_BLAS=OFF)
cmake -S "$root" -B "$scratch/ab" "${common[@]}" -DGEMMROUTE_AB_PATCHES="$list" >"$scratch/ab.log" 2>&1 ||
  { cat "$scratch/ab.log"; echo "FAIL: the A/B configure" >&2; exit 1; }
copy="$scratch/ab/src/cuda/ab/src/cuda/stream.cu"
[ -f "$copy" ] || { echo "FAIL: no patched copy at $copy" >&2; exit 1; }
if cmp -s "$copy" "$root/src/cuda/stream.cu"; then
  echo "FAIL: the patched copy is the tree's stream.cu" >&2
  exit 1
fi
other=$(ls "$root"/dev/pending/0[0-7]-*.patch 2>/dev/null | head -n 1)
if [ -n "$other" ]; then
  if cmake -S "$root" -B "$scratch/bad" "${common[@]}" -DGEMMROUTE_AB_PATCHES="$other" \
    >"$scratch/bad.log" 2>&1; then
    echo "FAIL: a patch of another file than stream.cu was taken" >&2
    exit 1
  fi
  tr -s ' \n' ' ' <"$scratch/bad.log" | grep -q "takes patches of src/cuda/stream.cu only" ||
    { cat "$scratch/bad.log"; echo "FAIL: the refusal does not say why" >&2; exit 1; }
fi
echo "ok: A/B configure (${#stream[@]} patches)"
