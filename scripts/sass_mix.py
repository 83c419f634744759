#!/usr/bin/env python3
"""Where a kernel's instructions go, from an ncu source page (no device needed).

Reads the CSV that `ncu --import REPORT --page source --csv --print-source sass` writes (the
report taken with `--section SourceCounters`) and prints the executed warp instructions by
opcode, then by straight-line run (consecutive SASS lines executed equally often: a loop body
or a branch-free stretch), largest first, each with its share of the kernel's instructions and
of its warp stall samples. The runs name where to look: a loop's instructions per multiply-add,
a staging path's per element.

  scripts/sass_mix.py SOURCE.csv [--runs N]
"""
import argparse
import csv
import re
from collections import Counter


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source", help="ncu --page source --csv --print-source sass output")
    ap.add_argument("--runs", type=int, default=15, help="straight-line runs to list")
    args = ap.parse_args()
    with open(args.source, newline="") as f:
        rows = [r for r in csv.reader(f)]
    head = next(i for i, r in enumerate(rows) if "Instructions Executed" in r)
    h = rows[head]
    data = [r for r in rows[head + 1:] if len(r) >= len(h)]
    count_at, source_at = h.index("Instructions Executed"), h.index("Source")
    samples_at = h.index("Warp Stall Sampling (All Samples)")
    count = [int(r[count_at].replace(",", "")) for r in data]
    samples = [int(r[samples_at].replace(",", "")) for r in data]
    text = [r[source_at].strip() for r in data]
    total, total_samples = sum(count), max(sum(samples), 1)
    print(f"{total} warp instructions, {total_samples} stall samples")
    ops = Counter()
    for t, n in zip(text, count):
        op = re.sub(r"^@!?U?P\w+\s+", "", t).split()
        ops[op[0] if op else "?"] += n
    print("by opcode:")
    for op, n in ops.most_common(12):
        print(f"  {op:18s} {n:12d}  {100 * n / total:5.1f}%")
    runs, i = [], 0
    while i < len(data):
        j = i
        while j + 1 < len(data) and count[j + 1] == count[i]:
            j += 1
        runs.append((count[i] * (j - i + 1), i, j))
        i = j + 1
    print("by straight-line run (lines, times executed, share of instructions and of samples):")
    for n, i, j in sorted(runs, reverse=True)[:args.runs]:
        s = sum(samples[i:j + 1])
        print(f"  {i:5d}-{j:<5d} {j - i + 1:4d} lines x {count[i]:8d}  {100 * n / total:5.1f}%  "
              f"{100 * s / total_samples:5.1f}%  {text[i][:36]} .. {text[j][:36]}")


if __name__ == "__main__":
    main()
