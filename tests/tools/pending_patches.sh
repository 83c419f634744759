#!/usr/bin/env bash
# The kernel changes waiting in dev/pending/ for a GPU run still apply to the tree, in the order
# its README gives, (with NVCC) the files they touch still compile for sm_90, and the patched
# small.cu, stream.cu and reg.cu kernels give exact products when run on the host
# (tests/emulate, patched too where a patch adds cases): a patch that no longer applies, builds or
# computes fails here, not on the device. The patched copy is SCRATCH's; the tree itself is never
# touched.
#
#   tests/tools/pending_patches.sh ROOT SCRATCH [NVCC]
set -euo pipefail
root=$(cd "$1" && pwd) scratch=$(mkdir -p "$2" && cd "$2" && pwd) nvcc=${3:-}
rm -rf "$scratch" && mkdir -p "$scratch"
cp -r "$root/src" "$root/include" "$root/docs" "$root/README.md" "$scratch/"
# Patches may add emulated cases, GPU tests and the decisions they record.
mkdir -p "$scratch/tests" && cp -r "$root/tests/emulate" "$root/tests/cuda" "$scratch/tests/"
order=(05 18 19 31 32 33 34)
shopt -s nullglob
patches=("$root"/dev/pending/[0-9][0-9]-*.patch)
[ ${#patches[@]} -gt 0 ] || { echo "ok: no pending patches"; exit 0; }
# git apply inside a repository applies only below the current folder, relative to the
# repository's root, and skips the rest silently; a scratch folder inside a build tree inside a
# checkout is in one. The ceiling keeps git from finding it, so paths are the scratch folder's.
export GIT_CEILING_DIRECTORIES
GIT_CEILING_DIRECTORIES=$(dirname "$scratch")
for n in "${order[@]}"; do
  for p in "$root"/dev/pending/"$n"-*.patch; do
    (cd "$scratch" && git apply "$p") || { echo "FAIL: $(basename "$p") does not apply" >&2; exit 1; }
    echo "applied $(basename "$p")"
  done
done
touched=$(sed -n 's#^+++ b/##p' "${patches[@]}" | sort -u)
for f in $touched; do  # each file a patch touches now differs from the tree's
  if cmp -s "$root/$f" "$scratch/$f"; then
    echo "FAIL: $f is unchanged after the patches (not applied?)" >&2
    exit 1
  fi
done
for p in "${patches[@]}"; do  # every patch is in the order above
  n=$(basename "$p" | cut -c1-2)
  [[ " ${order[*]} " == *" $n "* ]] || { echo "FAIL: $(basename "$p") is not in the order" >&2; exit 1; }
done
if [ -n "$nvcc" ]; then
  for f in $touched; do
    case "$f" in *.cu)
      "$nvcc" -std=c++20 -arch=sm_90 -c -I "$scratch/src" -I "$scratch/include" -o /dev/null \
        "$scratch/$f" || { echo "FAIL: $f does not compile with the patches" >&2; exit 1; }
      echo "compiled $f"
    esac
  done
fi
for kernels in small stream reg; do  # the patched kernels, run on the host
  if grep -qx "src/cuda/$kernels.cu" <<<"$touched"; then
    "$scratch/tests/emulate/emulate.sh" "$kernels" "$scratch" "$scratch/emulated-$kernels" random 60 2 ||
      { echo "FAIL: the patched $kernels.cu's kernels, emulated (tests/emulate)" >&2; exit 1; }
  fi
done
echo "ok: ${#patches[@]} pending patches apply"
