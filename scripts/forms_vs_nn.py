#!/usr/bin/env python3
"""Transposed small batches against N N, each relative to its own roofline, from a CUDA table's
rows (issue 11: "rectangular and transposed small shapes at least as good relative to their own
roofline as the square ones within 10%").

For every square row with max(m, n, k) <= 64 and batch >= 16384 whose form is not N N and whose
N N twin (same scalar, layout, size and batch) is a row too: the fastest native candidate's
fraction of the roofline, over the twin's. The roofline is max(bytes / 4252 GB/s, flops / the
large-GEMM rate of the scalar), the bytes A and B read and C read and written (the tuner's beta
is not 0). Per scalar and form: the geomean of that ratio, its least value and where, and how
many points read under 0.9.

  scripts/forms_vs_nn.py [TABLE] [--points]     (default: tables/cuda/nvidia-h200-132sm.table)
  scripts/forms_vs_nn.py [TABLE] --rect RESULTS.csv [--same-card]
  scripts/forms_vs_nn.py [TABLE] --overlay RESULTS.csv [--overlay ...] [--ab]

--overlay: the candidates a tuner results CSV measured replace their times in the table's rows
of the same keys (a kernel measured again after a change, before its rows are merged). With
--ab, the overlays are A/B runs (tuning/cuda-stream-tiles-ab.spec): each `:ab=1` time stands in
for its shipped twin's, as if the patch had landed.

--rect: the same for the rectangles of a tuner results CSV (tune --shapes
tuning/cuda-small-rect.txt), each against the table's square N N row of side max(m, n, k), same
scalar, layout and batch. With --same-card, the squares are taken from RESULTS.csv itself (the
twins measured in the same run, on a card the table was not measured on).
"""
import argparse
import math

from model_sweep import FLOP, SIZE, load_table, measured  # beside this script

COPY_GBS = 4252
RATE_TFLOPS = {"f32": 51.0, "f64": 57.7, "c32": 53.4, "c64": 53.8}


def roofline_us(key):
    dt, _, _, _, m, n, k, b = key
    moved = (m * k + k * n + 2 * m * n) * b * SIZE[dt]
    flops = FLOP[dt] * m * n * k * b
    return max(moved / (COPY_GBS * 1e3), flops / (RATE_TFLOPS[dt] * 1e6))


def rectangles(table, path, same_card=False):
    rows = measured(path) if same_card else load_table(table)
    squares = {key: times for key, times in rows if key[4] == key[5] == key[6]}
    ratios = []
    for key, times in measured(path):
        dt, ta, tb, layout, m, n, k, b = key
        side = max(m, n, k)
        twin_key = (dt, "N", "N", layout, side, side, side, b)
        twin = squares.get(twin_key)
        native = {c: t for c, t in times.items() if c != "cublas"}
        twin_native = {c: t for c, t in (twin or {}).items() if c != "cublas"}
        if m == n == k or not native or not twin_native:
            continue
        r = (roofline_us(key) / min(native.values())) / (
            roofline_us(twin_key) / min(twin_native.values()))
        ratios.append(r)
        print(f"{dt} {ta}{tb} {m} x {n} x {k} x {b}: {r:.2f} of the {side}^3 N N fraction "
              f"({min(native, key=native.get)}; {min(twin_native, key=twin_native.get)})")
    if ratios:
        geomean = math.exp(sum(map(math.log, ratios)) / len(ratios))
        print(f"{len(ratios)} rectangles: geomean {geomean:.3f}, least {min(ratios):.3f}, "
              f"{sum(r < 0.9 for r in ratios)} under 0.9")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("table", nargs="?", default="tables/cuda/nvidia-h200-132sm.table")
    ap.add_argument("--points", action="store_true", help="every point under 0.9, with the "
                    "fastest native candidate of each")
    ap.add_argument("--rect", metavar="RESULTS.csv", help="rectangles of a tuner results CSV")
    ap.add_argument("--same-card", action="store_true", help="with --rect: the square twins "
                    "from RESULTS.csv itself, not from TABLE")
    ap.add_argument("--overlay", metavar="RESULTS.csv", action="append", default=[],
                    help="a tuner results CSV whose keys replace the table's rows")
    ap.add_argument("--ab", action="store_true", help="the overlays are A/B runs: a candidate's "
                    "`:ab=1` twin (the patched build) stands in for it, as if the patch landed")
    a = ap.parse_args()
    if a.rect:
        rectangles(a.table, a.rect, a.same_card)
        return
    rows = dict(load_table(a.table))
    for path in a.overlay:  # the CSV's candidates replace the row's; the row's others stay
        for key, times in measured(path):
            if a.ab:
                patched = {c[:-len(":ab=1")]: t for c, t in times.items() if c.endswith(":ab=1")}
                times = {**{c: t for c, t in times.items() if not c.endswith(":ab=1")}, **patched}
            rows[key] = {**rows.get(key, {}), **times}
    fraction, best = {}, {}
    for key, times in rows.items():
        dt, _, _, _, m, n, k, b = key
        native = {c: t for c, t in times.items() if c != "cublas"}
        if dt in RATE_TFLOPS and m == n == k and m <= 64 and b >= 16384 and native:
            best[key] = min(native, key=native.get)
            fraction[key] = roofline_us(key) / native[best[key]]
    groups = {}
    for key, f in fraction.items():
        dt, ta, tb, layout, m, n, k, b = key
        twin = (dt, "N", "N", layout, m, n, k, b)
        if (ta, tb) != ("N", "N") and twin in fraction:
            groups.setdefault((dt, ta + tb), []).append((f / fraction[twin], key, twin))
    for (dt, form), points in sorted(groups.items()):
        ratios = [r for r, _, _ in points]
        geomean = math.exp(sum(map(math.log, ratios)) / len(ratios))
        low, key, _ = min(points)
        print(f"{dt} {form}: {len(points)} points, fraction of roofline over N N's: geomean "
              f"{geomean:.3f}, least {low:.3f} (n = {key[4]}, batch {key[7]}, {key[3]}), "
              f"{sum(r < 0.9 for r in ratios)} under 0.9")
        if a.points:
            for r, key, twin in sorted(points):
                if r < 0.9:
                    print(f"    n = {key[4]:2d} batch {key[7]:7d} {key[3]:7s} {r:.2f}: {best[key]} "
                          f"against N N's {best[twin]}")


if __name__ == "__main__":
    main()
