#!/usr/bin/env python3
"""The bank model of scripts/grouped_wavefronts.py against cases worked by hand."""
import os
import sys

sys.path.insert(0, os.path.join(sys.argv[1], "scripts"))
import grouped_wavefronts as g  # noqa: E402


def check(what, got, want):
    if got != want:
        sys.exit(f"FAILED {what}: {got}, expected {want}")


check("32 lanes, consecutive words", g.wavefronts([(i, 1) for i in range(32)]), 1)
check("32 lanes, one word (a broadcast)", g.wavefronts([(5, 1)] * 32), 1)
check("32 lanes, words 4 apart", g.wavefronts([(4 * i, 1) for i in range(32)]), 4)
check("32 lanes, words 32 apart", g.wavefronts([(32 * i, 1) for i in range(32)]), 32)
check("32 lanes, consecutive 16-byte runs", g.wavefronts([(4 * i, 4) for i in range(32)]), 4)
check("8 lanes, 16-byte runs 68 words apart", g.wavefronts([(68 * i, 4) for i in range(8)]), 1)
check("along_k_ld", [g.along_k_ld(k) for k in (1, 4, 5, 8, 9, 17, 64)], [4, 4, 12, 12, 12, 20, 68])
# One 64 x 64 item: 16 k steps of four 16-byte loads of A and of B a warp; B's rows 64 long
# (16 units, even) put a warp's two columns on one bank group: 2 wavefronts a load, A's 16 rows
# 68 apart 2 (256 bytes).
one = g.block_wavefronts(64, 1, 0, set())
check("64^3 loop A", one["loop A"], 8 * 16 * 4 * 2)
check("64^3 loop B", one["loop B"], 8 * 16 * 4 * 2)
padded = g.block_wavefronts(63, 1, 0, {"05"})
shipped = g.block_wavefronts(63, 1, 0, set())
if not padded["loop B"] < shipped["loop B"] / 2:
    sys.exit(f"FAILED 05 at 63^3: loop B {padded['loop B']} against {shipped['loop B']}")
print("ok: grouped_wavefronts model")
