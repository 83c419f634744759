#!/usr/bin/env python3
"""Draws training shapes for the CUDA table where cuBLAS changes behaviour and the lattice has no
rows: batches of thin items, one or two of m, n and k in 1..3, the others log-uniform in
[4, MAX_SIZE], batch log-uniform in [256, MAX_BATCH]; two shapes for each scalar, form pair and
layout (104 in all), kept when the work is in a range a tune run times in a second or so and A,
B and C together take at most 256 MiB.

Why: the time model's picks that ran slower than cuBLAS (bench/results/h200/README.md, "A time
model per candidate") and the cuBLAS rows it mispredicted were such shapes (f32 T T 1 x 218 x 4 x
1742, c32 T T 1 x 95 x 1 x 27651, f64 T N 213 x 3 x 1 x 5048): their nearest rows lie 4 to 7
units away, where a neighbour's correction is as often right as wrong, so only rows there help.

usage: scripts/draw_thin.py SEED MAX_SIZE MAX_BATCH > FILE
"""
import math
import random
import sys

from draw_offgrid import buckets

PATTERNS = ("m", "n", "k", "mk", "nk")  # which of m, n, k are thin


def main():
    seed, max_size, max_batch = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)

    def log_uniform(lo, hi):
        return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))

    print(f"# Thin-item training shapes drawn by scripts/draw_thin.py {seed} {max_size} "
          f"{max_batch}: two")
    print("# per scalar, form pair and layout; one or two of m, n, k in 1..3, the others "
          f"log-uniform in [4, {max_size}],")
    print(f"# batch log-uniform in [256, {max_batch}]; kept when 1e5 <= m*n*k*batch "
          "(x4 for complex) <= 4e8 and A, B, C fit 256 MiB.")
    print("# dtype ta tb layout m n k batch")
    for dtype, ta, tb, layout in buckets():
        elem = {"f32": 4, "f64": 8, "c32": 8, "c64": 16}[dtype]
        for _ in range(2):
            while True:
                thin = rng.choice(PATTERNS)
                m, n, k = (rng.randint(1, 3) if d in thin else log_uniform(4, max_size)
                           for d in "mnk")
                batch = log_uniform(256, max_batch)
                work = m * n * k * batch * (4 if dtype.startswith("c") else 1)
                set_bytes = (m * k + k * n + m * n) * batch * elem
                if 1e5 <= work <= 4e8 and set_bytes <= 256 << 20:
                    break
            print(f"{dtype} {ta} {tb} {layout} {m} {n} {k} {batch}")


if __name__ == "__main__":
    main()
