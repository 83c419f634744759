#!/usr/bin/env python3
"""Draws an off-grid shapes file: one shape for each scalar, form pair and layout (52 in all),
sizes and batches log-uniform and never a multiple of 4 (so no lattice point matches by
construction), kept when the work is in a range a bench run times in seconds.

usage: scripts/draw_offgrid.py SEED MAX_SIZE MAX_BATCH > FILE
"""
import math
import random
import sys


def buckets():
    """Every (dtype, ta, tb, layout) a CUDA table has rows for, in the files' order."""
    for dtype in ("f32", "f64", "c32", "c64"):
        forms = "NTC" if dtype.startswith("c") else "NT"
        for ta in forms:
            for tb in forms:
                for layout in ("packed", "strided"):
                    yield dtype, ta, tb, layout


def main():
    seed, max_size, max_batch = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)

    def log_uniform(hi):
        while True:
            v = int(round(math.exp(rng.uniform(0, math.log(hi)))))
            if 1 <= v <= hi and (v < 4 or v % 4 != 0):
                return v

    print(f"# Off-grid shapes drawn by scripts/draw_offgrid.py {seed} {max_size} {max_batch}:")
    print("# one shape per scalar, form pair and layout; m, n, k log-uniform in [1, "
          f"{max_size}], batch")
    print(f"# log-uniform in [1, {max_batch}], none a multiple of 4 above 3; kept when "
          "1e3 <= m*n*k*batch")
    print("# (x4 for complex) <= 4e7. Do not regenerate: bench results compare only on the "
          "same shapes.")
    print("# dtype ta tb layout m n k batch")
    for dtype, ta, tb, layout in buckets():
        while True:
            m, n, k = (log_uniform(max_size) for _ in range(3))
            batch = log_uniform(max_batch)
            work = m * n * k * batch * (4 if dtype.startswith("c") else 1)
            if 1e3 <= work <= 4e7:
                break
        print(f"{dtype} {ta} {tb} {layout} {m} {n} {k} {batch}")


if __name__ == "__main__":
    main()
