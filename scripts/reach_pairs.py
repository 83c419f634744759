#!/usr/bin/env python3
"""Checks the reach rule's same-item batch discount against a results file, timing nothing.

For every pair of measured points of one item (dtype, forms, layout, m, n, k) at two batches,
lets the point at one batch speak for the other as a nearest row does (docs/table-format.md,
Look-up: the fastest entry that beat the vendor there by more than 1.03 * exp(growth * d), else
the vendor) and reads how that pick did at the other batch. Prints, per rule, how many native
picks it trusts and how many of those were more than 3% slower than the vendor there.

  scripts/reach_pairs.py RESULTS.csv [--vendor cublas] [--growth 0.2]
"""
import argparse
import csv
import itertools
import math


def measured(path):
    points = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            if r["status"] != "ok":
                continue
            item = (r["dtype"], r["ta"], r["tb"], r["layout"], r["m"], r["n"], r["k"])
            points.setdefault(item, {}).setdefault(int(r["batch"]), {})[r["spelling"]] = float(
                r["median_us"])
    return points


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--vendor", default="cublas")
    ap.add_argument("--growth", type=float, default=0.2)
    a = ap.parse_args()
    points = measured(a.results)
    lg = lambda b: math.log2(max(b, 1))
    rules = [("no discount", 1.0, 1), ("batch at half, any batch", 0.5, 1),
             ("batch at half, both >= 1024 items", 0.5, 1024)]
    for name, weight, floor in rules:
        trusted = slower = 0
        worst = []
        for item, batches in points.items():
            for b_row, b_key in itertools.permutations(batches, 2):
                row, key = batches[b_row], batches[b_key]
                if a.vendor not in row or a.vendor not in key:
                    continue
                w = weight if min(b_row, b_key) >= floor else 1.0
                needed = 1.03 * math.exp(a.growth * w * abs(lg(b_row) - lg(b_key)))
                pick = a.vendor
                for spelling, t in sorted(row.items(), key=lambda x: x[1]):
                    if spelling == a.vendor or row[a.vendor] / t > needed:
                        pick = spelling
                        break
                if pick == a.vendor or pick not in key:
                    continue
                ratio = key[a.vendor] / key[pick]
                trusted += 1
                if ratio < 0.97:
                    slower += 1
                    worst.append((ratio, " ".join(item), b_row, b_key, pick))
        print(f"{name}: {trusted} native picks trusted, {slower} more than 3% slower than "
              f"{a.vendor}")
        for ratio, item, b_row, b_key, pick in sorted(worst)[:5]:
            print(f"    {item}: row at {b_row} items for {b_key}: {pick} {ratio:.3f}x {a.vendor}")


if __name__ == "__main__":
    main()
