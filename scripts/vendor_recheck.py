#!/usr/bin/env python3
"""Finds the table rows where an outlying campaign time of the vendor could hide a loss, and
which of them a fresh time of the vendor alone brings near the winner (bench/results/h200/
README.md, "Checking the rows cuBLAS lost").

  scripts/vendor_recheck.py rows TABLE [--vendor cublas] [--under 1.6] [--skip-dtype bf16]
      shapes-file lines: the rows whose winner is not the vendor and whose vendor time is under
      UNDER times the winner's (measure them with `tune --shapes` and a spec of the vendor alone)
  scripts/vendor_recheck.py flag TABLE RESULTS.csv [--vendor cublas] [--within 1.08]
      shapes-file lines: the rows whose fresh vendor time (RESULTS.csv) is within WITHIN times
      the winner's table time (each with its ratio on standard error); give them a confirming
      run (`tune --confirm`)
"""
import argparse
import csv
import re
import sys


def table_rows(path):
    """{key: [(candidate, median_us), ...]} in the table's order (the winner first)."""
    rows = {}
    for line in open(path):
        if not line.startswith("row "):
            continue
        words = line.split()
        found = []
        for word in words[10:]:
            m = re.match(r"(.+)@([0-9.e+-]+)us", word)
            if m:
                found.append((m.group(1), float(m.group(2))))
        rows[tuple(words[1:9])] = found
    return rows


def shapes_line(key):
    dtype, ta, tb, layout, m, n, k, batch = key
    return f"{dtype} {ta} {tb} {m} {n} {k} {batch} {layout}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("mode", choices=["rows", "flag"])
    ap.add_argument("table")
    ap.add_argument("results", nargs="?")
    ap.add_argument("--vendor", default="cublas")
    ap.add_argument("--under", type=float, default=1.6)
    ap.add_argument("--within", type=float, default=1.08)
    ap.add_argument("--skip-dtype", action="append", default=None)
    args = ap.parse_args()
    skip = set(args.skip_dtype if args.skip_dtype is not None else ["bf16"])
    rows = table_rows(args.table)
    if args.mode == "rows":
        for key, found in rows.items():
            times = dict(found)
            if key[0] in skip or args.vendor not in times or found[0][0] == args.vendor:
                continue
            if times[args.vendor] < args.under * found[0][1]:
                print(shapes_line(key))
        return 0
    if not args.results:
        ap.error("flag needs RESULTS.csv")
    for r in csv.DictReader(l for l in open(args.results) if not l.startswith("#")):
        if r["spelling"] != args.vendor or r["status"] != "ok":
            continue
        key = (r["dtype"], r["ta"], r["tb"], r["layout"], r["m"], r["n"], r["k"], r["batch"])
        found = rows.get(key)
        if not found or found[0][0] == args.vendor:
            continue
        ratio = float(r["median_us"]) / found[0][1]
        if ratio < args.within:
            print(shapes_line(key))
            print(f"{shapes_line(key)}: {args.vendor} {ratio:.3f}x the winner ({found[0][0]})",
                  file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
