#!/usr/bin/env python3
"""Replays a table's selection over measured shapes without timing anything.

For every shape, asks `gemmroute explain` (offline: no device needed) which candidate the table
picks, and reads that candidate's median from the measurements given, where every candidate was
timed. Prints the regret and the speedup over the vendor that the pick would have had, per shape
and in summary (and per scalar). This compares selections (GEMMROUTE_SELECT, tables) on one set
of measurements; it is not a new measurement, and a pick that was not timed is reported as such.

The measurements are either a bench CSV (`gemmroute bench`: its candidates_us column) or a tuner
results CSV (`gemmroute tune`: one row per point and candidate). The second is a held-out test
when the table was built without those points: the H200's 400 training shapes against a table of
the lattice alone, for example:

  gemmroute table build bench/results/h200/cuda-quick-results.csv --out /tmp/lat.table
  scripts/replay_selection.py bench/results/h200/cuda-mixed-train-results.csv \\
      --device cuda:0 --table /tmp/lat.table

  scripts/replay_selection.py MEASURED.csv --device cuda:0 [--table FILE] [--vendor NAME]
      [--cli build/bin/gemmroute] [--quiet]
"""
import argparse
import csv
import math
import os
import subprocess
import sys

KEY = ("dtype", "ta", "tb", "m", "n", "k", "batch", "layout")


def rows(path):
    with open(path, newline="") as f:
        yield from csv.DictReader(line for line in f if not line.startswith("#"))


def candidate_times(r):
    """{candidate: median us} of a bench CSV row (its candidates_us column)."""
    times = {}
    for entry in r["candidates_us"].split(";"):
        name, _, t = entry.rpartition("=")
        times[name] = float(t)
    return times


def shapes(path, vendor):
    """(key fields, {candidate: median us}, vendor us or None) per shape, in file order."""
    first = next(rows(path), None)
    if first is None:
        return
    if "candidates_us" in first:  # a bench CSV
        for r in rows(path):
            if r["status"] != "ok":
                continue
            yield r, candidate_times(r), float(r["t_vendor_us"])
        return
    points = {}  # a tuner results CSV: the ok rows of each point
    for r in rows(path):
        key = tuple(r[f] for f in KEY)
        entry = points.setdefault(key, (dict(zip(KEY, key)), {}))
        if r["status"] == "ok":
            entry[1][r["spelling"]] = float(r["median_us"])
    for fields, times in points.values():
        if times:
            yield fields, times, times.get(vendor)


def explain(cli, device, table, r):
    """What `gemmroute explain` prints for the shape r (offline), and its command line."""
    cmd = [cli, "explain", "--device", device, "--dtype", r["dtype"], "--ta", r["ta"], "--tb",
           r["tb"], "--m", r["m"], "--n", r["n"], "--k", r["k"], "--batch", r["batch"],
           "--layout", r["layout"]]
    if table:
        cmd += ["--table", table]
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout, cmd


def pick(cli, device, table, r):
    out, cmd = explain(cli, device, table, r)
    for line in out.splitlines():
        if line.startswith("choice:"):
            return line.split(":", 1)[1].strip()
    raise SystemExit(f"replay_selection: no choice line for {' '.join(cmd)}:\n{out}")


def geomean(v):
    return math.exp(sum(map(math.log, v)) / len(v))


def p95(v):
    s = sorted(v)
    return s[min(len(s) - 1, math.ceil(0.95 * len(s)) - 1)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("measured")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--table")
    ap.add_argument("--vendor", help="the vendor's spelling (default: cublas on CUDA, else "
                    "openblas)")
    ap.add_argument("--cli", default="build/bin/gemmroute")
    ap.add_argument("--quiet", action="store_true", help="the summary lines only")
    a = ap.parse_args()
    vendor = a.vendor or ("cublas" if a.device.startswith("cuda") else "openblas")
    regrets, speedups, missing = [], [], 0
    by_scalar = {}
    for r, times, t_vendor in shapes(a.measured, vendor):
        shape = " ".join(r[f] for f in ("dtype", "ta", "tb", "layout", "m", "n", "k", "batch"))
        c = pick(a.cli, a.device, a.table, r)
        if c not in times:
            missing += 1
            if not a.quiet:
                print(f"{shape:<40} {c:<30} not timed")
            continue
        t, best = times[c], min(times.values())
        regrets.append(t / best)
        by_scalar.setdefault(r["dtype"], []).append(t / best)
        line = f"{shape:<40} {c:<30} regret {t / best:6.3f}"
        if t_vendor is not None:
            speedups.append(t_vendor / t)
            line += f"  vendor/pick {t_vendor / t:6.3f}"
        if not a.quiet:
            print(line)
    if not regrets:
        sys.exit("replay_selection: no shape replayed")
    for scalar in sorted(by_scalar):
        v = by_scalar[scalar]
        print(f"  {scalar:<12} regret geomean {geomean(v):.3f} p95 {p95(v):.3f} "
              f"max {max(v):.3f} (n {len(v)})")
    line = (f"replayed {len(regrets)} shapes ({missing} picks not timed) with "
            f"GEMMROUTE_SELECT={os.environ.get('GEMMROUTE_SELECT', '(default)')}: regret geomean "
            f"{geomean(regrets):.3f} p95 {p95(regrets):.3f} max {max(regrets):.3f}")
    if speedups:
        below = sum(1 for s in speedups if s < 0.97)
        line += (f" | speedup vs vendor geomean {geomean(speedups):.3f} min {min(speedups):.3f}"
                 f", under 0.97 at {below}")
    print(line)


if __name__ == "__main__":
    main()
