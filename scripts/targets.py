#!/usr/bin/env python3
"""Where the H200's performance targets stand, read from the committed evidence only.

Each section names the files it read and their dates, so a figure older than the kernel it
speaks for shows as such; nothing is measured here. The targets (the CUDA kernels' issue):

- small batches: square N N at large batch, every scalar and n in 2..64, within 1.25x of the
  roofline (at least 80% of it): the newest `bench` row of each (scalar, n), auto and the best
  native candidate;
- grouped batches: auto's `gemm_groups` call within 2x of the roofline at 10^4 items and 1.5x at
  10^5 and 10^6, both mixes, f32 and f64: the newest `bench --grouped` CSV;
- `cuda.reg`: at least 0.9 of cuBLAS SGEMM at 512^3 and above (`cuda-reg-f32.csv`);
- auto never slower than cuBLAS by more than 3% on a committed shape: the newest bench CSV of
  each shape set, auto's picks under 0.97x cuBLAS, told apart where auto ran cuBLAS itself (the
  same kernel: the call path and the run's noise) from native picks;
- off-grid regret geomean at most 1.03 (bench/shapes/offgrid.txt), each run's `auto` and, where
  the run compared selections, each selection;
- transposed and rectangular small batches within 10% of N N's fraction of the roofline
  (scripts/forms_vs_nn.py).

  scripts/targets.py [--results DIR] [--table TABLE] [--overlay TUNE.csv]... [--grouped FILE]
                     [--replay build/bin/gemmroute]
"""
import argparse
import glob
import os
import re
import subprocess
import sys

from forms_vs_nn import RATE_TFLOPS, roofline_us  # beside this script
from model_sweep import SIZE
from replay_selection import candidate_times, geomean, pick, rows, shapes

SMALL_N = [2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 20, 24, 32, 40, 48, 56, 64]


def header(path):
    """The CSV's '# key value' lines."""
    out = {}
    with open(path) as f:
        for line in f:
            if not line.startswith("#"):
                break
            key, _, value = line[1:].strip().partition(" ")
            out[key] = value
    return out


def bench_csvs(results):
    """(date, path) of every `gemmroute bench` CSV under results, oldest first."""
    out = []
    for path in glob.glob(os.path.join(results, "**", "*.csv"), recursive=True):
        h = header(path)
        if h.get("gemmroute-bench") == "1" and "date" in h:
            out.append((h["date"], path))
    return sorted(out)


def rel(path, results):
    return os.path.relpath(path, results)


def small_batches(results, benches):
    print("## Small batches: square N N, large batch, auto's fraction of the roofline "
          "(target 80%)")
    newest = {}  # (dtype, n) -> (date, path, row)
    for date, path in benches:
        for r in rows(path):
            if r.get("status", "").split(" ")[0] != "ok" or r["ta"] != "N" or r["tb"] != "N":
                continue
            m, n, k, b = (int(r[f]) for f in ("m", "n", "k", "batch"))
            if r["layout"] != "packed" or not m == n == k or n > 64:
                continue
            if r["dtype"] in SIZE and 4 * n * n * b * SIZE[r["dtype"]] < 200 << 20:
                continue  # bench/shapes/cuda-small.txt's batches move at least 256 MiB
            if r["dtype"] in RATE_TFLOPS and header(path).get("table", "none") != "none":
                newest[(r["dtype"], n)] = (date, path, r)
    if not newest:
        print("no bench CSV of square N N batches\n")
        return
    used = sorted({(d, p) for d, p, _ in newest.values()})
    for dt in RATE_TFLOPS:
        cells, misses, native_cells = [], [], []
        for n in SMALL_N:
            if (dt, n) not in newest:
                cells.append(f"{n}: -")
                continue
            _, _, r = newest[(dt, n)]
            roof = roofline_us((dt, "N", "N", "packed", n, n, n, int(r["batch"])))
            frac = roof / float(r["t_auto_us"])
            native = [t for c, t in candidate_times(r).items() if c != "cublas"]
            cells.append(f"{n}: {100 * frac:.0f}%")
            native_cells.append(f"{n}: {100 * roof / min(native):.0f}%" if native else f"{n}: -")
            if frac < 0.8:
                misses.append(f"{n} ({0.8 / frac:.2f}x short)")
        print(f"{dt} auto   " + "  ".join(cells))
        print(f"{dt} native " + "  ".join(native_cells))
        print(f"{dt}: {len(misses)} of {len(SMALL_N)} under 80%" +
              (": n = " + ", ".join(misses) if misses else ""))
    print("from " + "; ".join(f"{rel(p, results)} ({d[:10]})" for d, p in used) + "\n")


def grouped_auto(path):
    """(scalar, mix, items, auto's fraction of the roofline) from a `bench --grouped` CSV or the
    log of its run (whose summary lines say the same)."""
    if path.endswith(".csv"):
        for r in rows(path):
            if r["arm"] == "auto":
                yield r["scalar"], r["mix"], int(r["items"]), float(r["of_roofline"])
        return
    line_re = re.compile(r"^(\w+) (\w+) (\d+) items .*\| auto [^(]*\(([\d.]+)% of roofline\)")
    with open(path) as f:
        for line in f:
            m = line_re.match(line)
            if m:
                yield m.group(1), m.group(2), int(m.group(3)), float(m.group(4)) / 100


def has_target_mixes(path):
    """Whether a `bench --grouped` CSV has the target's mixes (not a --sizes run)."""
    with open(path) as f:
        return any(line.startswith("# mix uniform") for line in f)


def newest_grouped(results, target_mixes):
    """The newest `bench --grouped` CSV under results with the target's mixes, or (target_mixes
    False) of a --sizes run; None where there is none."""
    found = []
    for csv_path in glob.glob(os.path.join(results, "**", "*.csv"), recursive=True):
        h = header(csv_path)
        m = re.search(r"date (\S+)", h.get("limits", ""))
        if (h.get("gemmroute-bench-grouped") == "1" and m
                and has_target_mixes(csv_path) == target_mixes):
            found.append((m.group(1), csv_path))
    return max(found)[1] if found else None


def grouped(results, path):
    print("## Grouped batches: auto (gemm_groups), fraction of the roofline (target 50% at 10^4 "
          "items, 67% at 10^5 and 10^6)")
    if not path:
        path = newest_grouped(results, True)
        if not path:
            print("no bench --grouped CSV\n")
            return
    for scalar, mix, items, frac in grouped_auto(path):
        if mix not in ("uniform", "small80"):
            continue
        target = 0.5 if items < 100000 else 2 / 3
        verdict = "met" if frac >= target else f"{target / frac:.2f}x short"
        print(f"{scalar} {mix:<8} {items:>8} items: {100 * frac:5.1f}% ({verdict})")
    print(f"from {rel(path, results)} (the newest bench --grouped CSV unless --grouped names "
          "one: a CSV of a patched tree is not the shipped kernel)\n")


def pointer_arrays(results):
    """The newest `bench --grouped --sizes` CSV: pointer-array batches of one size, auto against
    cuBLAS's pointer-array call (vendor-loop: one cublasGemmBatchedEx), as the auto-vs-cuBLAS
    criterion reads any committed shape."""
    print("## Pointer-array batches of one size (bench --grouped --sizes): auto (gemm_groups, one "
          "group) over cuBLAS's pointer-array call, and auto's fraction of the roofline")
    path = newest_grouped(results, False)
    if not path:
        print("not measured (bench --grouped --sizes: dev/pending/next-call.sh 18)\n")
        return
    by = {}
    for r in rows(path):
        if r["mix"].startswith("n="):
            by.setdefault((r["scalar"], int(r["mix"][2:]), int(r["items"])), {})[r["arm"]] = r
    slow = 0
    for (scalar, n, items), arms in sorted(by.items()):
        if "auto" not in arms or "vendor-loop" not in arms:
            continue
        ratio = float(arms["vendor-loop"]["us_per_call"]) / float(arms["auto"]["us_per_call"])
        slow += ratio < 0.97
        print(f"{scalar} n = {n:>2} ({items} items): {ratio:.2f}x cuBLAS, "
              f"{100 * float(arms['auto']['of_roofline']):5.1f}% of the roofline"
              f"{'  (under 0.97x)' if ratio < 0.97 else ''}")
    print(f"{slow} under 0.97x cuBLAS; from {rel(path, results)}\n")


def register_tile(results):
    print("## cuda.reg: cuBLAS time / cuda.reg time, the faster tile (target 0.9 at 512^3 and above)")
    path = os.path.join(results, "cuda-reg-f32.csv")
    if not os.path.exists(path):
        print("no cuda-reg-f32.csv\n")
        return
    points = {}
    for r in rows(path):
        if r["status"] != "ok":
            continue
        key = tuple(r[f] for f in ("ta", "tb", "m", "n", "k", "batch"))
        # The family's faster tile where a run timed both (128 x 128 and 256 x 128).
        name = "reg" if r["spelling"].startswith("cuda.reg") else r["spelling"]
        t = points.setdefault(key, {})
        t[name] = min(t.get(name, float("inf")), float(r["median_us"]))
    ratios, large, met = [], 0, 0
    for key, t in points.items():
        if "reg" not in t or "cublas" not in t:
            continue
        ratio = t["cublas"] / t["reg"]
        ratios.append(ratio)
        m, n, k, b = map(int, key[2:])
        if m * n * k * b >= 512 ** 3:
            large += 1
            met += ratio >= 0.9
    print(f"{len(ratios)} shapes: geomean {geomean(ratios):.3f}, min {min(ratios):.3f}; "
          f"where m n k batch >= 512^3, {met} of {large} at 0.9 or more")
    print(f"from {rel(path, results)} ({header(path).get('started', '?')[:10]})\n")


def replayed(path, cli):
    """The shipped table's pick at each ok shape of a bench CSV (`gemmroute explain`, offline)
    against cuBLAS, both read from that run's own medians: (shape, pick, cuBLAS / pick)."""
    for r, times, t_vendor in shapes(path, "cublas"):
        c = pick(cli, "cuda:0", None, r)
        if c in times and t_vendor:
            yield r["shape"], c, t_vendor / times[c]


def auto_vs_vendor(results, benches, cli):
    print("## auto against cuBLAS on committed shapes (target: never under 0.97x)")
    newest = {}  # the shape set -> (date, path)
    for date, path in benches:
        keys = frozenset(r["shape"] for r in rows(path))
        if header(path).get("table", "none") != "none":
            newest[keys] = (date, path)
    total = native = same = 0
    for date, path in sorted(newest.values()):
        low = [r for r in rows(path) if r.get("status", "").startswith("ok") and
               r["vendor_over_auto"] and float(r["vendor_over_auto"]) < 0.97]
        total += sum(1 for _ in rows(path))
        for r in low:
            ran_vendor = r["auto_spelling"] == "cublas"
            same += ran_vendor
            native += not ran_vendor
            if not ran_vendor:
                print(f"  {rel(path, results)} ({date[:10]}): {r['shape']}: "
                      f"{r['auto_spelling']} {float(r['vendor_over_auto']):.3f}x cuBLAS")
    print(f"{len(newest)} files (the newest of each shape set), {total} shapes: {native} native "
          f"picks under 0.97x cuBLAS (above); {same} shapes where auto ran cuBLAS itself and read "
          "under 0.97x of the vendor arm (the same kernel: the call path and the run's noise)")
    if not cli:
        print("(--replay CLI: the shipped table's picks over the same measurements)\n")
        return
    low, shapes = [], 0
    for date, path in sorted(newest.values()):
        for shape, c, ratio in replayed(path, cli):
            shapes += 1
            if c != "cublas" and ratio < 0.97:
                low.append(f"  {rel(path, results)} ({date[:10]}): {shape}: {c} "
                           f"{ratio:.3f}x cuBLAS")
    print(f"the shipped table replayed over them ({shapes} shapes whose pick was timed; a pick "
          f"whose kernel changed after the run reads that run's older kernel): {len(low)} native "
          "picks under 0.97x cuBLAS" + (":" if low else ""))
    print("\n".join(low) + ("\n" if low else ""))


def offgrid(results, benches, root):
    print("## Off-grid regret geomean (bench/shapes/offgrid.txt; target 1.03)")
    want = set()
    with open(os.path.join(root, "bench/shapes/offgrid.txt")) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                want.add(" ".join(line.split()))
    runs = []
    for date, path in benches:
        got = {f"{r['dtype']} {r['ta']} {r['tb']} {r['m']} {r['n']} {r['k']} {r['batch']} "
               f"{r['layout']}": r for r in rows(path)}
        if set(got) != want:
            continue
        sel = {}
        for name in ("auto", "model", "nearest", "predict"):
            col = "auto_over_best" if name == "auto" else f"{name}_over_best"
            v = [float(r[col]) for r in got.values() if r.get(col)]
            if v:
                sel[name] = geomean(v)
        runs.append((date, path, sel))
    for date, path, sel in runs[-6:]:
        print(f"  {rel(path, results)} ({date[:10]}): " +
              ", ".join(f"{k} {v:.3f}" for k, v in sel.items()))
    print(f"{len(runs)} runs in all, the newest six above\n")


def forms(results, table, overlays, root):
    print("## Transposed and rectangular small batches against N N (target: within 10%)")
    script = os.path.join(root, "scripts/forms_vs_nn.py")
    args = [sys.executable, script,
            table or os.path.join(root, "tables/cuda/nvidia-h200-132sm.table")]
    for o in overlays:
        args += ["--overlay", o]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    print("the table's rows" + (f", overlaid with {', '.join(overlays)}" if overlays else
                                " (--overlay: a re-timed kernel's tune CSV in their place)") + ":")
    print("".join("  " + line + "\n" for line in out.splitlines() if "points" in line), end="")
    rect = os.path.join(results, "cuda-small-rect-results.csv")
    if os.path.exists(rect):
        out = subprocess.run(args + ["--rect", rect], capture_output=True, text=True,
                             check=True).stdout
        print("rectangles: " + out.splitlines()[-1])
    else:
        print("rectangles: not measured (tuning/cuda-small-rect.txt: tune --shapes, then "
              "forms_vs_nn.py --rect)")
        proxy = os.path.join(root, "bench/results/h100-rect-2026-12-05/rect-proxy-results.csv")
        if os.path.exists(proxy):  # the same rectangles and their squares, another card
            out = subprocess.run(args + ["--rect", proxy, "--same-card"], capture_output=True,
                                 text=True, check=True).stdout
            print("  on an H100, squares measured beside them (not the target's figure): " +
                  out.splitlines()[-1])
    print()


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default=os.path.join(root, "bench/results/h200"))
    ap.add_argument("--table", help="for the forms (default: the H200 table)")
    ap.add_argument("--overlay", action="append", default=[],
                    help="a tuner CSV whose times replace the table's for the forms (repeatable)")
    ap.add_argument("--replay", metavar="CLI", help="also replay the shipped table's picks over "
                    "the bench CSVs with this gemmroute (build/bin/gemmroute)")
    ap.add_argument("--grouped", help="the bench --grouped CSV or log to read (default: the "
                    "newest CSV)")
    a = ap.parse_args()
    benches = bench_csvs(a.results)
    small_batches(a.results, benches)
    grouped(a.results, a.grouped)
    pointer_arrays(a.results)
    register_tile(a.results)
    auto_vs_vendor(a.results, benches, a.replay)
    offgrid(a.results, benches, root)
    forms(a.results, a.table, a.overlay, root)


if __name__ == "__main__":
    main()
