#!/usr/bin/env python3
"""Replays a table's selection over a bench CSV without timing anything.

For every shape of BENCH.csv, asks `gemmroute explain` (offline: no device needed) which
candidate the table picks, and reads that candidate's median from the same CSV's
candidates_us column, where the bench timed every candidate. Prints the regret and the speedup
over the vendor that the pick would have had in that run, per shape and in summary. This
compares selections (GEMMROUTE_SELECT, tables) on one set of measurements; it is not a new
measurement, and a pick the bench did not time is reported as such.

  scripts/replay_selection.py BENCH.csv --device cuda:0 [--table FILE] [--cli build/bin/gemmroute]
"""
import argparse
import csv
import math
import os
import subprocess
import sys


def rows(path):
    with open(path, newline="") as f:
        yield from csv.DictReader(line for line in f if not line.startswith("#"))


def pick(cli, device, table, r):
    cmd = [cli, "explain", "--device", device, "--dtype", r["dtype"], "--ta", r["ta"], "--tb",
           r["tb"], "--m", r["m"], "--n", r["n"], "--k", r["k"], "--batch", r["batch"],
           "--layout", r["layout"]]
    if table:
        cmd += ["--table", table]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("choice:"):
            return line.split(":", 1)[1].strip()
    raise SystemExit(f"replay_selection: no choice line for {r['shape']}:\n{out}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bench")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--table")
    ap.add_argument("--cli", default="build/bin/gemmroute")
    a = ap.parse_args()
    regrets, speedups, missing = [], [], 0
    for r in rows(a.bench):
        if r["status"] != "ok":
            continue
        times = {}
        for entry in r["candidates_us"].split(";"):
            name, _, t = entry.rpartition("=")
            times[name] = float(t)
        best, vendor = float(r["t_best_us"]), float(r["t_vendor_us"])
        c = pick(a.cli, a.device, a.table, r)
        if c not in times:
            missing += 1
            print(f"{r['shape']:<36} {c:<30} not timed by the bench")
            continue
        t = times[c]
        regrets.append(t / best)
        speedups.append(vendor / t)
        print(f"{r['shape']:<36} {c:<30} regret {t / best:6.3f}  vendor/pick {vendor / t:6.3f}")
    if not regrets:
        sys.exit("replay_selection: no shape replayed")
    gm = lambda v: math.exp(sum(map(math.log, v)) / len(v))
    srt = sorted(regrets)
    p95 = srt[min(len(srt) - 1, math.ceil(0.95 * len(srt)) - 1)]
    print(f"replayed {len(regrets)} shapes ({missing} picks not timed) with "
          f"GEMMROUTE_SELECT={os.environ.get('GEMMROUTE_SELECT', '(default)')}: regret geomean "
          f"{gm(regrets):.3f} p95 {p95:.3f} max {srt[-1]:.3f} | speedup vs vendor geomean "
          f"{gm(speedups):.3f} min {min(speedups):.3f}")


if __name__ == "__main__":
    main()
