#!/usr/bin/env python3
"""Sweeps the constants of the `model` selection (src/core/model.hpp) offline, on H200 measurements.

A re-implementation of the library's rule in Python, so that its constants can be varied without
a build: per (dtype, candidate) a trend over the table's rows (coefficients >= 0, least relative
squared error), corrected by the candidate's nearest rows, and the vendor guard. At the shipped
constants its picks are the library's (compare with scripts/replay_selection.py, which asks the
library itself). For each measurement set it prints the regret geomean, p95 and max of the picks
and how many are slower than cuBLAS by more than 3%.

  scripts/model_sweep.py [--features lbfk] [--neighbours 8] [--power 2] [--offset 0.5]
                         [--form-step 0.5] [--growth 0.05] [--sigmas 0] [--prior D] [--far D]
                         [--k-weight 1] [--batch-weight 1] [--vendor-cap C]
                         [--vendor-growth G] [--table T | --held-out]

--features: one letter per trend term: l (launch), b (MB moved), f (GFLOP), k (k / 100),
i (thousands of items); an empty string predicts from the neighbours' mean time alone.
--prior D: the trend counts as one more neighbour at distance D. --far D: cuBLAS stays wherever a
native candidate's nearest row is further than D. --k-weight, --batch-weight: the distance's
log2 steps of k and of the batch counted that many times (those of m and n once).
--vendor-cap C: the guard's cuBLAS time at most C times cuBLAS's trend. --vendor-growth G: the
guard's cuBLAS time divided by exp(G d), d cuBLAS's nearest row's distance (as the natives' are
multiplied by exp(growth d)).
--table T: the bench CSVs replayed against T instead of the shipped table.
--held-out: the two training sets against tables built without them (scripts/h200-tables'
first steps; built into a temporary folder with build/bin/gemmroute), instead of the bench CSVs
against the shipped table.
"""
import argparse
import itertools
import math
import os
import re
import subprocess
import tempfile

import replay_selection  # beside this script

R = "bench/results/h200"
UNIT = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
SIZE = {"f32": 4, "f64": 8, "c32": 8, "c64": 16, "bf16": 2}
FLOP = {"f32": 2, "f64": 2, "c32": 8, "c64": 8, "bf16": 2}
ENTRY = re.compile(r"^([^@]+)@([0-9.eE+-]+)(ns|us|ms|s)")
BENCHES = ["launch-only-k/new-offgrid-r1", "launch-only-k/new-offgrid-r2",
           "launch-only-k/new-offgrid2-r1", "launch-only-k/new-offgrid2-r2", "bench-cuda-mixed",
           "bench-cuda-stream-mma-rows", "bench-stream-runs", "model-selection/model-offgrid-r3",
           "model-selection/model-offgrid-r4", "model-selection/model-offgrid2-r3",
           "model-selection/model-mixed-r2"]


def load_table(path):
    rows = []
    for line in open(path):
        if line.startswith("row "):
            f = line.split()
            key = (f[1], f[2], f[3], f[4], int(f[5]), int(f[6]), int(f[7]), int(f[8]))
            times = {}
            for e in f[10:]:
                m = ENTRY.match(e)
                if m:
                    times[m.group(1)] = float(m.group(2)) * UNIT[m.group(3)]
            rows.append((key, times))
    return rows


def measured(path):
    """(key, {candidate: median us}) per shape, as replay_selection.py reads a bench CSV or a
    tuner results CSV."""
    for r, times, _ in replay_selection.shapes(path, "cublas"):
        yield (r["dtype"], r["ta"], r["tb"], r["layout"], int(r["m"]), int(r["n"]), int(r["k"]),
               int(r["batch"])), times


def lg(v):
    return math.log2(max(v, 1))


class Model:
    def __init__(self, rows, a):
        self.rows, self.a = rows, a
        self.exact = {k: t for k, t in rows}
        self.by = {}
        for key, times in rows:
            for c, t in times.items():
                self.by.setdefault((key[0], c), []).append((key, t))
        self.coef = {dc: self.fit(lst) for dc, lst in self.by.items()} if a.features else {}

    def x(self, key):
        dt, _, _, _, m, n, k, b = key
        terms = {"l": 1.0, "b": (m * k + k * n + m * n) * b * SIZE[dt] * 1e-6,
                 "f": FLOP[dt] * m * n * k * b * 1e-9, "k": k * 1e-2, "i": b * 1e-3}
        return [terms[c] for c in self.a.features]

    def fit(self, lst):
        """Least relative squared error with coefficients >= 0, by enumerating supports."""
        X = [self.x(k) for k, _ in lst]
        t = [tt for _, tt in lst]
        nf, best = len(X[0]), None
        for r in range(1, nf + 1):
            for S in itertools.combinations(range(nf), r):
                A = [[x[i] / tt for i in S] for x, tt in zip(X, t)]
                G = [[sum(row[i] * row[j] for row in A) for j in range(r)] for i in range(r)]
                h = [sum(row[i] for row in A) for i in range(r)]
                p = solve(G, h)
                if p is None or min(p) < 0:
                    continue
                full = [0.0] * nf
                for i, v in zip(S, p):
                    full[i] = v
                err = sum((sum(u * v for u, v in zip(x, full)) / tt - 1) ** 2
                          for x, tt in zip(X, t))
                if best is None or err < best[0]:
                    best = (err, full)
        return best[1]

    def trend(self, dt, c, key):
        if not self.a.features:
            return 1.0
        return max(sum(u * v for u, v in zip(self.x(key), self.coef[(dt, c)])), 1e-6)

    def dist(self, p, q):
        w = (1.0, 1.0, self.a.k_weight, self.a.batch_weight)
        d = sum(wi * abs(lg(p[i]) - lg(q[i])) for wi, i in zip(w, (4, 5, 6, 7)))
        return d + self.a.form_step * sum(p[i] != q[i] for i in (1, 2, 3))

    def predict(self, key, c):
        """(predicted us, nearest distance, spread of log(time / trend)) or None."""
        lst = self.by.get((key[0], c))
        if not lst:
            return None
        near = sorted(((self.dist(key, k), i, k, t) for i, (k, t) in enumerate(lst)))
        near = near[: self.a.neighbours]
        w = [1.0 / (d + self.a.offset) ** self.a.power for d, _, _, _ in near]
        r = [math.log(t / self.trend(key[0], c, k)) for _, _, k, t in near]
        # --prior D: the trend itself counts as one more neighbour at distance D (residual 0),
        # so far neighbours correct it less than near ones.
        w0 = 0.0 if self.a.prior is None else 1.0 / (self.a.prior + self.a.offset) ** self.a.power
        mu = sum(wi * ri for wi, ri in zip(w, r)) / (sum(w) + w0)
        var = sum(wi * (ri - mu) ** 2 for wi, ri in zip(w, r)) / sum(w)
        return self.trend(key[0], c, key) * math.exp(mu), near[0][0], math.sqrt(var)

    def pick(self, key, times):
        if key in self.exact and any(c in times for c in self.exact[key]):
            return next(c for c in self.exact[key] if c in times)  # walked in rank order
        pred = {c: p for c in times if (p := self.predict(key, c)) is not None}
        v = pred.get("cublas")
        if v is not None:
            # --vendor-cap C: the guard's cuBLAS time at most C times its trend;
            # --vendor-growth G: the guard's cuBLAS time divided by exp(G d), d its nearest row's.
            vendor_us = v[0] * math.exp(-self.a.vendor_growth * v[1])
            if self.a.vendor_cap is not None:
                vendor_us = min(vendor_us, self.a.vendor_cap * self.trend(key[0], "cublas", key))
        def guarded(c):
            if v is None or c == "cublas":
                return False
            t, d, s = pred[c]
            if self.a.far is not None and d > self.a.far:
                return True  # --far D: no row of the candidate within D, the vendor stays
            spread = self.a.sigmas * math.sqrt(s * s + v[2] * v[2])
            return not t * math.exp(self.a.growth * d + spread) < vendor_us
        return min(pred, key=lambda c: (guarded(c), pred[c][0]))


def solve(G, h):
    n = len(h)
    M = [row[:] + [hv] for row, hv in zip(G, h)]
    for i in range(n):
        p = max(range(i, n), key=lambda r: abs(M[r][i]))
        if abs(M[p][i]) < 1e-300:
            return None
        M[i], M[p] = M[p], M[i]
        for r in range(i + 1, n):
            f = M[r][i] / M[i][i]
            for c in range(i, n + 1):
                M[r][c] -= f * M[i][c]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (M[i][n] - sum(M[i][c] * x[c] for c in range(i + 1, n))) / M[i][i]
    return x


def report(name, model, path):
    regrets, slower = [], 0
    for key, times in measured(path):
        c = model.pick(key, times)
        regrets.append(times[c] / min(times.values()))
        slower += "cublas" in times and times[c] > 1.03 * times["cublas"]
    s = sorted(regrets)
    g = math.exp(sum(map(math.log, s)) / len(s))
    print(f"{name:<40} regret geomean {g:.3f} p95 {s[math.ceil(0.95 * len(s)) - 1]:.3f} "
          f"max {s[-1]:.3f} | slower than cublas by > 3%: {slower} of {len(s)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--features", default="lbfk")
    ap.add_argument("--neighbours", type=int, default=8)
    ap.add_argument("--power", type=float, default=2)
    ap.add_argument("--offset", type=float, default=0.5)
    ap.add_argument("--form-step", type=float, default=0.5)
    ap.add_argument("--growth", type=float, default=0.05)
    ap.add_argument("--sigmas", type=float, default=0)
    ap.add_argument("--prior", type=float, default=None)
    ap.add_argument("--far", type=float, default=None)
    ap.add_argument("--vendor-cap", type=float, default=None)
    ap.add_argument("--vendor-growth", type=float, default=0.0)
    ap.add_argument("--k-weight", type=float, default=1.0)
    ap.add_argument("--batch-weight", type=float, default=1.0)
    ap.add_argument("--held-out", action="store_true")
    ap.add_argument("--cli", default="build/bin/gemmroute")
    ap.add_argument("--table", default="tables/cuda/nvidia-h200-132sm.table",
                    help="the table the bench CSVs are replayed against (not with --held-out)")
    a = ap.parse_args()
    if not a.held_out:
        model = Model(load_table(a.table), a)
        for f in BENCHES:
            report(f, model, f"{R}/{f}.csv")
        return
    with tempfile.TemporaryDirectory() as tmp:
        def build(results, out, *more):
            subprocess.run([a.cli, "table", "build", f"{R}/{results}-results.csv", "--confirm",
                            f"{R}/{results}-confirm.csv", "--margin", "0.03", "--out", out,
                            "--force", *more], check=True, capture_output=True)
        lat = os.path.join(tmp, "lat.table")
        subprocess.run([a.cli, "table", "build", f"{R}/cuda-quick-results.csv", "--confirm",
                        f"{R}/cuda-stream-runs-confirm.csv", "--margin", "0.03", "--generic",
                        "--out", lat, "--force"], check=True, capture_output=True)
        for held, other in (("cuda-offgrid-train", "cuda-mixed-train"),
                            ("cuda-mixed-train", "cuda-offgrid-train")):
            table = os.path.join(tmp, f"without-{held}.table")
            build(other, table, "--merge", lat)
            report(f"{held} (held out)", Model(load_table(table), a), f"{R}/{held}-results.csv")


if __name__ == "__main__":
    main()
