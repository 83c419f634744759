#!/usr/bin/env python3
"""Fraction of the roofline against n, per scalar, from a `gemmroute bench` CSV of square
batches (bench/shapes/cuda-small.txt): the vendor, auto and the best native candidate; or from
`gemmroute tune` results CSVs of such batches: the vendor and the best native candidate.

    scripts/plot_roofline.py BENCH.csv OUT.png [--copy-gbs 4252] [--peak f32=51.0,...]
    scripts/plot_roofline.py BENCH.csv --table      # a Markdown table instead of a plot
    scripts/plot_roofline.py RESULTS.csv [--also MORE.csv ...] [--without TEXT] OUT.png

The roofline of a call is max(bytes / copy bandwidth, flops / peak), with bytes = A and B read,
C read and written (C only written where the run's method line says beta = 0: tune's `scalars
beta-zero`), and the peaks the vendor's large-GEMM rates on the device (TFLOP/s). A fraction of
1 is the roofline itself; the plot's y axis is roofline time over measured time. With results
CSVs, a (scalar, n) measured in several files takes the last file's figures; `--without TEXT`
adds the best native candidate whose spelling lacks TEXT (what a new family adds).
"""
import argparse
import csv
import sys

SIZE = {"f32": 4, "f64": 8, "c32": 8, "c64": 16}


def parse_peaks(text):
    out = {}
    for part in text.split(","):
        name, value = part.split("=")
        out[name] = float(value) * 1e12
    return out


def point(d, m, n, k, b, c_passes, cands, copy, peaks):
    """One shape's row: its bytes (A and B read, C read and written or only written: c_passes 2
    or 1), its roofline time in us, and the best native candidate among `cands` (spelling -> us)."""
    bytes_ = SIZE[d] * b * (m * k + k * n + c_passes * m * n)
    flops = (8 if d.startswith("c") else 2) * m * n * k * b
    native = {c: t for c, t in cands.items() if c.startswith("cuda.")}
    best = min(native, key=native.get) if native else None
    return {
        "dtype": d, "n": n, "bytes": bytes_, "roof": max(bytes_ / copy, flops / peaks[d]) * 1e6,
        "native": native[best] if best else None, "native_name": best, "cands": cands,
    }


def read(path, copy, peaks):
    rows = []
    with open(path) as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            if not r["t_auto_us"]:
                continue
            m, n, k, b = (int(r[x]) for x in ("m", "n", "k", "batch"))
            cands = {}
            for item in r["candidates_us"].split(";"):
                if item:
                    name, t = item.rsplit("=", 1)
                    cands[name] = float(t)
            row = point(r["dtype"], m, n, k, b, 2, cands, copy, peaks)
            row.update(vendor=float(r["t_vendor_us"]), auto=float(r["t_auto_us"]))
            rows.append(row)
    return rows


def read_results(paths, copy, peaks, without):
    by = {}
    for path in paths:
        with open(path) as f:
            lines = f.read().splitlines()
        beta_zero = any(l.startswith("# method") and "beta = 0" in l for l in lines)
        times = {}
        for r in csv.DictReader(l for l in lines if not l.startswith("#")):
            if r["status"] != "ok" or r["ta"] != "N" or r["tb"] != "N":
                continue
            m, n, k, b = (int(r[x]) for x in ("m", "n", "k", "batch"))
            if not m == n == k:
                continue
            times.setdefault((r["dtype"], n, b), {})[r["spelling"]] = float(r["median_us"])
        for (d, n, b), cands in times.items():
            row = point(d, n, n, n, b, 1 if beta_zero else 2, cands, copy, peaks)
            older = [t for c, t in cands.items()
                     if c.startswith("cuda.") and without and without not in c]
            row.update(vendor=cands.get("cublas"), auto=None, older=min(older) if older else None)
            by[(d, n)] = row
    return [by[key] for key in sorted(by)]


def table(rows, copy):
    print("| scalar | n | cublas | auto | best native (which) | each candidate, % of copy bandwidth |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        pct = lambda t: f"{100 * r['bytes'] / (t * 1e-6) / copy:.1f}%" if t else "-"
        each = ", ".join(f"{c.replace('cuda.', '')} {pct(t)}" for c, t in sorted(r["cands"].items()))
        print(f"| {r['dtype']} | {r['n']} | {pct(r['vendor'])} | {pct(r['auto'])} | "
              f"{pct(r['native']) if r['native'] else '-'} ({r['native_name']}) | {each} |")


def plot(rows, out, source, without=None):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    scalars = [d for d in SIZE if any(r["dtype"] == d for r in rows)]
    fig, axes = plt.subplots(1, len(scalars), figsize=(4.2 * len(scalars), 3.6), sharey=True)
    if len(scalars) == 1:
        axes = [axes]
    for ax, d in zip(axes, scalars):
        rs = sorted((r for r in rows if r["dtype"] == d), key=lambda r: r["n"])
        ns = [r["n"] for r in rs]
        series = [("vendor", "cublas", "s-"), ("auto", "auto", "o-"),
                  ("native", "best native", "^--")]
        if without:
            series.append(("older", f"best native without {without}", "v:"))
        for key, label, style in series:
            ys = [r["roof"] / r[key] if r.get(key) else None for r in rs]
            if any(y is not None for y in ys):
                ax.plot(ns, ys, style, label=label, markersize=4)
        ax.axhline(1 / 1.25, color="gray", linestyle=":", linewidth=1)
        ax.set_xscale("log", base=2)
        ax.set_title(d)
        ax.set_xlabel("n (square, NN)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("roofline time / measured time")
    axes[0].legend(fontsize=8)
    fig.suptitle(f"Fraction of the roofline ({source}; dotted: 1/1.25)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"plot_roofline: wrote {out}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("out", nargs="?")
    ap.add_argument("--copy-gbs", type=float, default=4252.0)
    ap.add_argument("--peak", default="f32=51.0,f64=57.7,c32=53.4,c64=53.8")
    ap.add_argument("--table", action="store_true")
    ap.add_argument("--also", action="append", default=[], help="more results CSVs")
    ap.add_argument("--without", help="also plot the best native spelling lacking this text")
    a = ap.parse_intermixed_args()
    copy, peaks = a.copy_gbs * 1e9, parse_peaks(a.peak)
    with open(a.csv) as f:
        results = f.readline().startswith("# gemmroute-results")
    if results:
        paths = [a.csv] + a.also
        rows = read_results(paths, copy, peaks, a.without)
        source = " + ".join(p.rsplit("/", 1)[-1] for p in paths)
    else:
        rows = read(a.csv, copy, peaks)
        source = a.csv.rsplit("/", 1)[-1]
    if a.table:
        table(rows, copy)
    elif a.out:
        plot(rows, a.out, source, a.without)
    else:
        sys.exit("plot_roofline: give OUT.png or --table")


if __name__ == "__main__":
    main()
