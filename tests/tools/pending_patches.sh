#!/usr/bin/env bash
# The kernel changes waiting in dev/pending/ for a GPU run still apply to the tree, in the order
# its README gives, (with NVCC) the files they touch still compile for sm_90, and the patched
# small.cu, stream.cu and reg.cu kernels give exact products when run on the host
# (tests/emulate, patched too where a patch adds cases): a patch that no longer applies, builds or
# computes fails here, not on the device. The patched copies are SCRATCH's; the tree itself is
# never touched.
#
#   tests/tools/pending_patches.sh ROOT SCRATCH [NVCC]
set -euo pipefail
root=$(cd "$1" && pwd) scratch=$(mkdir -p "$2" && cd "$2" && pwd) nvcc=${3:-}
rm -rf "$scratch" && mkdir -p "$scratch"
# `order` applies to the tree in this order, one patch on top of the other (tests/tools/
# ab_configure.sh builds its kernel patches beside the shipped ones); `apart` is a second chain,
# applied to the tree alone, for changes that edit the same lines as `order`'s (whichever lands
# first, the other chain is rebased on it). None waits apart now (20 and 21, the k-split tiles,
# were measured and dropped on 2026-12-06).
order=(05 16 17 18 19)
apart=()
shopt -s nullglob
patches=("$root"/dev/pending/[0-9][0-9]-*.patch)
[ ${#patches[@]} -gt 0 ] || { echo "ok: no pending patches"; exit 0; }
for p in "${patches[@]}"; do  # every patch is in one of the chains above
  n=$(basename "$p" | cut -c1-2)
  [[ " ${order[*]} ${apart[*]} " == *" $n "* ]] ||
    { echo "FAIL: $(basename "$p") is not in the order" >&2; exit 1; }
done
# git apply inside a repository applies only below the current folder, relative to the
# repository's root, and skips the rest silently; a scratch folder inside a build tree inside a
# checkout is in one. The ceiling keeps git from finding it, so paths are the scratch folder's.
export GIT_CEILING_DIRECTORIES
GIT_CEILING_DIRECTORIES=$scratch

# Applies the chain's patches to a copy of the tree in SCRATCH/NAME, compiles what they touch
# and runs the patched kernels on the host.
check_chain() {
  local name=$1 copy="$scratch/$1"
  shift
  local chain=() n p
  for n in "$@"; do
    for p in "$root"/dev/pending/"$n"-*.patch; do chain+=("$p"); done
  done
  [ ${#chain[@]} -gt 0 ] || return 0
  mkdir -p "$copy"
  cp -r "$root/src" "$root/include" "$root/docs" "$root/README.md" "$copy/"
  # Patches may add emulated cases, GPU tests and the decisions they record.
  mkdir -p "$copy/tests" && cp -r "$root/tests/emulate" "$root/tests/cuda" "$copy/tests/"
  for p in "${chain[@]}"; do
    (cd "$copy" && git apply "$p") || { echo "FAIL: $(basename "$p") does not apply" >&2; exit 1; }
    echo "applied $(basename "$p")"
  done
  local touched f kernels
  touched=$(sed -n 's#^+++ b/##p' "${chain[@]}" | sort -u)
  for f in $touched; do  # each file a patch touches now differs from the tree's
    if cmp -s "$root/$f" "$copy/$f"; then
      echo "FAIL: $f is unchanged after the patches (not applied?)" >&2
      exit 1
    fi
  done
  if [ -n "$nvcc" ]; then
    for f in $touched; do
      case "$f" in *.cu)
        "$nvcc" -std=c++20 -arch=sm_90 -c -I "$copy/src" -I "$copy/include" -o /dev/null \
          "$copy/$f" || { echo "FAIL: $f does not compile with the patches" >&2; exit 1; }
        echo "compiled $f"
      esac
    done
  fi
  for kernels in small stream reg; do  # the patched kernels, run on the host
    if grep -qx "src/cuda/$kernels.cu" <<<"$touched"; then
      "$copy/tests/emulate/emulate.sh" "$kernels" "$copy" "$copy/emulated-$kernels" random 60 2 ||
        { echo "FAIL: the patched $kernels.cu's kernels, emulated (tests/emulate)" >&2; exit 1; }
    fi
  done
}

check_chain order "${order[@]}"
check_chain apart "${apart[@]}"
echo "ok: ${#patches[@]} pending patches apply"
