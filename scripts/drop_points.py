#!/usr/bin/env python3
"""Drops the rows of chosen points from a tuner results CSV, so that `tune --resume` measures
those points again (all their candidates, in one run) after a kernel changed.

  scripts/drop_points.py RESULTS.csv --where EXPR [--before-run TIMESTAMP] [--dry-run]

EXPR is a Python expression over a point's key: dtype, ta, tb, layout (strings), m, n, k,
batch (integers) and rows (the elements in 16 bytes: 4 for f32, 2 for f64 and c32, 1 for
c64). With --before-run, only points that have no row in the run that started at TIMESTAMP
(its "# started" or "# resumed" line) or in any later run are dropped: the points a resumed
run has already measured again stay. Comment lines are kept; the file is rewritten in place.

Example (the cuda.stream row tiles that read B's k runs as vectors, 2c19223):
  scripts/drop_points.py bench/results/h200/cuda-quick-results.csv \\
    --before-run 2026-12-02T00:21:18Z \\
    --where "dtype != 'c64' and ta == tb == 'N' and layout == 'packed' and \\
             max(m, n, k) <= 64 and m % rows == 0 and k % rows == 0"
"""
import argparse
import sys

ELEMENT_BYTES = {"f32": 4, "f64": 8, "c32": 8, "c64": 16}
KEY_FIELDS = ["dtype", "ta", "tb", "layout", "m", "n", "k", "batch"]


def point_of(header, line):
    r = dict(zip(header, line.rstrip("\n").split(",")))
    return tuple(r[f] for f in KEY_FIELDS)


def matches(expr, point):
    dtype, ta, tb, layout, m, n, k, batch = point
    names = {"dtype": dtype, "ta": ta, "tb": tb, "layout": layout, "m": int(m), "n": int(n),
             "k": int(k), "batch": int(batch), "rows": 16 // ELEMENT_BYTES[dtype], "max": max}
    return bool(eval(expr, {"__builtins__": {}}, names))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--where", required=True)
    ap.add_argument("--before-run", metavar="TIMESTAMP")
    ap.add_argument("--dry-run", action="store_true")
    a = ap.parse_args()

    with open(a.results) as f:
        lines = f.readlines()
    header = None
    recent = set()  # points with a row in the run --before-run names or a later one
    in_recent = a.before_run is None
    for line in lines:
        if line.startswith("#"):
            if a.before_run and line.startswith(("# started", "# resumed")) and \
                    line.split()[2] >= a.before_run:
                in_recent = True
            continue
        if header is None:
            header = line.rstrip("\n").split(",")
            continue
        if in_recent and a.before_run:
            recent.add(point_of(header, line))
    if header is None or any(f not in header for f in KEY_FIELDS):
        sys.exit(f"{a.results}: not a results CSV (no header with {', '.join(KEY_FIELDS)})")

    kept, dropped, points = [], 0, set()
    header_at = next(i for i, line in enumerate(lines) if not line.startswith("#"))
    for i, line in enumerate(lines):
        if i <= header_at or line.startswith("#"):
            kept.append(line)
            continue
        p = point_of(header, line)
        if p not in recent and matches(a.where, p):
            dropped += 1
            points.add(p)
        else:
            kept.append(line)
    print(f"{a.results}: {len(points)} points, {dropped} rows "
          f"{'would be ' if a.dry_run else ''}dropped; `tune --resume` measures them again")
    if not a.dry_run:
        with open(a.results, "w") as f:
            f.writelines(kept)


if __name__ == "__main__":
    main()
