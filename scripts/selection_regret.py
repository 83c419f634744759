#!/usr/bin/env python3
"""Per-scalar regret of each selection in `bench --compare-selection` CSVs, against the best of
every candidate and against the best of the candidates the table holds (--table-candidates):
the second separates what the selection loses between rows from what the table cannot choose
(a candidate it was never measured with).

  scripts/selection_regret.py BENCH.csv... [--table-candidates a,b,c]
"""
import argparse
import csv
import math


def rows(path):
    with open(path, newline="") as f:
        yield from csv.DictReader(line for line in f if not line.startswith("#"))


def summary(v):
    v = sorted(v)
    g = math.exp(sum(math.log(x) for x in v) / len(v))
    p95 = v[min(len(v) - 1, math.ceil(0.95 * len(v)) - 1)]
    return f"geomean {g:.3f} p95 {p95:.3f} max {v[-1]:.3f} (n {len(v)})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--table-candidates", default="")
    a = ap.parse_args()
    allowed = set(a.table_candidates.split(",")) if a.table_candidates else None
    for path in a.csv:
        by = {}
        for r in rows(path):
            if r["status"] != "ok" or not r["t_nearest_us"] or not r["t_predict_us"]:
                continue
            selections = ["nearest", "predict"] + (["model"] if r.get("t_model_us") else [])
            cands = dict(x.rsplit("=", 1) for x in r["candidates_us"].split(";") if x)
            times = {k: float(v) for k, v in cands.items() if not allowed or k in allowed}
            best = min(times.values())
            noise = float(r["noise_over_best"]) if r["noise_over_best"] else None
            for scalar in (r["dtype"], "all"):
                d = by.setdefault(scalar, {"model": [], "nearest": [], "predict": [], "noise": []})
                for which in selections:
                    d[which].append(float(r[f"t_{which}_us"]) / best)
                if noise:
                    d["noise"].append(noise)
        print(path + (" (best of the table's candidates)" if allowed else " (best of all)"))
        for scalar in sorted(by, key=lambda s: (s == "all", s)):
            for what in ("model", "predict", "nearest", "noise"):
                if by[scalar][what]:
                    print(f"  {scalar:4} {what:8} {summary(by[scalar][what])}")


if __name__ == "__main__":
    main()
