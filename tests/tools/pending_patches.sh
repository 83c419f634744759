#!/usr/bin/env bash
# The kernel changes waiting in dev/pending/ for a GPU run still apply to the tree, in the order
# its README gives, (with NVCC) the files they touch still compile for sm_90, and the patched
# small.cu, stream.cu and reg.cu kernels give exact products when run on the host
# (tests/emulate, patched too where a patch adds cases): a patch that no longer applies, builds or
# computes fails here, not on the device. The patched copies are SCRATCH's; the tree itself is
# never touched.
#
# The patches form chains, each applied in its order to a copy of the tree of its own: a patch
# written against the shipped file where another chain's patch rewrites the same code stands
# alone, and whichever lands second is written again over the first; patches of another file
# form a chain of their own.
#
#   tests/tools/pending_patches.sh ROOT SCRATCH [NVCC]
set -euo pipefail
root=$(cd "$1" && pwd) scratch=$(mkdir -p "$2" && cd "$2" && pwd) nvcc=${3:-}
rm -rf "$scratch" && mkdir -p "$scratch"
chains=("05 18 19" "44" "45")
shopt -s nullglob
patches=("$root"/dev/pending/[0-9][0-9]-*.patch)
[ ${#patches[@]} -gt 0 ] || { echo "ok: no pending patches"; exit 0; }
for p in "${patches[@]}"; do  # every patch is in one chain
  n=$(basename "$p" | cut -c1-2)
  [[ " ${chains[*]} " == *" $n "* ]] || { echo "FAIL: $(basename "$p") is in no chain" >&2; exit 1; }
done
# git apply inside a repository applies only below the current folder, relative to the
# repository's root, and skips the rest silently; a scratch folder inside a build tree inside a
# checkout is in one. The ceiling keeps git from finding it, so paths are the scratch folder's.
export GIT_CEILING_DIRECTORIES
GIT_CEILING_DIRECTORIES=$scratch

# check_chain DIR N...: patches N... applied in turn to a copy of the tree in DIR, compiled and
# emulated.
check_chain() {
  local dir=$1 n p f kernels
  shift
  mkdir -p "$dir"
  cp -r "$root/src" "$root/include" "$root/docs" "$root/README.md" "$dir/"
  # Patches may add emulated cases, GPU tests and the decisions they record.
  mkdir -p "$dir/tests" && cp -r "$root/tests/emulate" "$root/tests/cuda" "$root"/tests/*.hpp \
    "$dir/tests/"
  local mine=()
  for n in "$@"; do
    for p in "$root"/dev/pending/"$n"-*.patch; do
      (cd "$dir" && git apply "$p") || { echo "FAIL: $(basename "$p") does not apply" >&2; exit 1; }
      echo "applied $(basename "$p")"
      mine+=("$p")
    done
  done
  [ ${#mine[@]} -gt 0 ] || return 0
  local touched
  touched=$(sed -n 's#^+++ b/##p' "${mine[@]}" | sort -u)
  for f in $touched; do  # each file a patch touches now differs from the tree's
    if cmp -s "$root/$f" "$dir/$f"; then
      echo "FAIL: $f is unchanged after the patches (not applied?)" >&2
      exit 1
    fi
  done
  if [ -n "$nvcc" ]; then
    for f in $touched; do
      case "$f" in src/cuda/*.cpp | *.cu)  # nvcc passes a .cpp to the host compiler
        "$nvcc" -std=c++20 -arch=sm_90 -c -I "$dir/src" -I "$dir/include" -I "$dir/tests" \
          -o /dev/null "$dir/$f" || { echo "FAIL: $f does not compile with the patches" >&2; exit 1; }
        echo "compiled $f"
      esac
    done
  fi
  for kernels in small stream reg; do  # the patched kernels, run on the host
    if grep -qx "src/cuda/$kernels.cu" <<<"$touched"; then
      "$dir/tests/emulate/emulate.sh" "$kernels" "$dir" "$dir/emulated-$kernels" random 60 2 ||
        { echo "FAIL: the patched $kernels.cu's kernels, emulated (tests/emulate)" >&2; exit 1; }
    fi
  done
}

i=0
for chain in "${chains[@]}"; do
  # shellcheck disable=SC2086  # a chain is its patches' numbers, split on spaces
  check_chain "$scratch/chain-$i" $chain
  i=$((i + 1))
done
echo "ok: ${#patches[@]} pending patches apply"
