#!/usr/bin/env bash
# Runs src/cuda's small.cu, stream.cu or reg.cu kernels on the host (small_emulated.cpp,
# stream_emulated.cpp, reg_emulated.cpp): extracts their code from ROOT's file, compiles it with
# its emulator in SCRATCH, and runs the sweep named (by default a random one). ROOT may be a
# patched copy of the tree (tests/tools/pending_patches.sh).
#
#   tests/emulate/emulate.sh small|stream|reg ROOT SCRATCH [SWEEP...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kernels=$1 root=$(cd "$2" && pwd) scratch=$(mkdir -p "$3" && cd "$3" && pwd)
shift 3
case "$kernels" in
  small | stream | reg) ;;
  *) echo "emulate.sh: small, stream or reg, not $kernels" >&2; exit 2 ;;
esac
[ $# -gt 0 ] || set -- random 150 1
python3 "$here/extract_kernels.py" "$root/src/cuda/$kernels.cu" "$scratch/${kernels}_kernels.inc"
# The stub cuda_runtime.h comes first on the include path.
# (#pragma unroll is the device compiler's; a host compiler cannot see that C is read only where
# beta != 0.)
"${CXX:-g++}" -std=c++20 -O2 -Wall -Wno-unknown-pragmas -Wno-maybe-uninitialized -Wno-unused-function \
  -I "$here" -I "$root/src" -I "$root/include" -I "$scratch" \
  "$here/${kernels}_emulated.cpp" -o "$scratch/${kernels}_emulated"
"$scratch/${kernels}_emulated" "$@"
