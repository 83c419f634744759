#!/usr/bin/env python3
"""How far the table's predictions miss each candidate's measured time, without timing anything.

For every shape of a bench CSV (`gemmroute bench`: every candidate timed), asks `gemmroute
explain` (offline) for the predicted time of every candidate (`predict` selection) and compares
it with the candidate's measured median. A shape's misses are taken relative to its median
candidate's, so that a machine or a run that is faster or slower overall moves nothing: what is
left says which candidates the table makes look slower (negative: measured faster than
predicted) or faster (positive) than they are off its rows. Per candidate, split at item size
m n k < 2^15: mean and median of log2(measured / predicted), relative.

  scripts/prediction_bias.py BENCH.csv... --table FILE [--device cpu] [--cli build/bin/gemmroute]
"""
import argparse
import math
import re
import sys
from collections import defaultdict

from replay_selection import explain, shapes

PREDICTED = re.compile(r"\s+(\S+)\s+([0-9.e+]+) us measured at")


def predictions(cli, device, table, r):
    out, _ = explain(cli, device, table, r)
    return {m.group(1): float(m.group(2))
            for m in map(PREDICTED.match, out.splitlines()) if m}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bench", nargs="+")
    ap.add_argument("--table", required=True)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--cli", default="build/bin/gemmroute")
    a = ap.parse_args()
    misses = defaultdict(list)
    predicted_shapes = 0
    for path in a.bench:
        for r, times, _ in shapes(path, None):
            pred = predictions(a.cli, a.device, a.table, r)
            d = {c: math.log2(times[c] / t) for c, t in pred.items() if c in times}
            if not d:
                continue  # an exact row or no prediction: nothing predicted here
            predicted_shapes += 1
            median = sorted(d.values())[len(d) // 2]
            size = "small" if int(r["m"]) * int(r["n"]) * int(r["k"]) < 32768 else "large"
            for c, v in d.items():
                misses[(c, size)].append(v - median)
    if not misses:
        sys.exit("prediction_bias: no shape was predicted")
    print(f"{predicted_shapes} predicted shapes; log2(measured / predicted), relative to each "
          "shape's median candidate:")
    for (c, size), v in sorted(misses.items()):
        v.sort()
        print(f"  {c:<20} {size:<5} shapes {len(v):4}  mean {sum(v) / len(v):+.3f}  "
              f"median {v[len(v) // 2]:+.3f}  (x{2 ** (sum(v) / len(v)):.2f})")


if __name__ == "__main__":
    main()
