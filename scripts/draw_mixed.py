#!/usr/bin/env python3
"""Draws a mixed GPU shapes file: every scalar, form and layout, sizes log-uniform in
[1, MAX_SIZE], batches log-uniform in [1, MAX_BATCH], kept when one operand set (A, B and C of
every item) is under 2 GiB and the work under MAX_MACS multiply-adds (complex counted as 4).

The distribution is the one `bench/shapes/cuda-mixed.txt` was drawn from; a file drawn with
another seed is a training set for `tune --shapes` that shares no shape with the bench file, so
a table tuned on it is judged on shapes it never measured.

usage: scripts/draw_mixed.py SEED COUNT [MAX_SIZE MAX_BATCH MAX_MACS] > FILE
"""
import math
import random
import sys


def main():
    if len(sys.argv) not in (3, 6):
        sys.exit(__doc__.strip().splitlines()[-1])
    seed, count = int(sys.argv[1]), int(sys.argv[2])
    max_size, max_batch, max_macs = (
        (int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])) if len(sys.argv) == 6
        else (4096, 100000, 4e10))
    rng = random.Random(seed)
    log_uniform = lambda hi: max(1, min(hi, int(round(math.exp(rng.uniform(0, math.log(hi)))))))
    size_of = {"f32": 4, "f64": 8, "c32": 8, "c64": 16}

    print(f"# Mixed shapes drawn by scripts/draw_mixed.py {seed} {count} {max_size} {max_batch} "
          f"{max_macs:g}:")
    print(f"# sizes log-uniform in [1, {max_size}], batches in [1, {max_batch}], every scalar, "
          "form and layout;")
    print(f"# kept when one operand set is under 2 GiB and the work under {max_macs:g} "
          "multiply-adds. Do not regenerate.")
    print("# dtype ta tb layout m n k batch")
    drawn = 0
    while drawn < count:
        dtype = rng.choice(list(size_of))
        forms = "NTC" if dtype.startswith("c") else "NT"
        ta, tb = rng.choice(forms), rng.choice(forms)
        layout = rng.choice(("packed", "strided"))
        m, n, k = (log_uniform(max_size) for _ in range(3))
        batch = log_uniform(max_batch)
        set_bytes = (m * k + k * n + m * n) * batch * size_of[dtype]
        macs = m * n * k * batch * (4 if dtype.startswith("c") else 1)
        if set_bytes >= 2 << 30 or macs > max_macs:
            continue
        print(f"{dtype} {ta} {tb} {layout} {m} {n} {k} {batch}")
        drawn += 1


if __name__ == "__main__":
    main()
