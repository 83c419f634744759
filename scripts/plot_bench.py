#!/usr/bin/env python3
"""Plots a `gemmroute bench` CSV: speedup over the vendor and regret against problem size.

usage: plot_bench.py BENCH.csv OUT_DIR

Writes OUT_DIR/speedup_vs_vendor.png (t_vendor / t_auto) and OUT_DIR/regret.png
(t_auto / t_best), one panel per scalar type, x = multiply-adds per call (m*n*k*batch, log
scale); each is written to a temporary beside it and renamed over it once complete. Needs
matplotlib (Debian: python3-matplotlib).
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from plot_common import geomean, read, save_png  # noqa: E402

SCALARS = ["f32", "f64", "c32", "c64"]


def plot(rows, column, title, ylabel, path, source):
    present = [s for s in SCALARS if any(r["dtype"] == s and r.get(column) for r, _ in rows)]
    if not present:
        print(f"plot_bench: no '{column}' values in {source}; {path} not written")
        return False
    fig, axes = plt.subplots(1, len(present), figsize=(4.2 * len(present), 3.8), squeeze=False,
                             sharey=True)
    for ax, scalar in zip(axes[0], present):
        pts = [(size, float(r[column]), r["layout"]) for r, size in rows
               if r["dtype"] == scalar and r.get(column)]
        for layout, marker, colour in (("packed", "o", "C0"), ("strided", "^", "C1")):
            xs = [p[0] for p in pts if p[2] == layout]
            ys = [p[1] for p in pts if p[2] == layout]
            if xs:
                ax.scatter(xs, ys, marker=marker, color=colour, s=22, alpha=0.8, label=layout)
        ax.legend(fontsize=8)
        ax.axhline(1.0, color="grey", linewidth=1, linestyle="--")
        ax.set_xscale("log")
        ax.set_title(f"{scalar} (geomean {geomean([p[1] for p in pts]):.3f}, n={len(pts)})",
                     fontsize=10)
        ax.set_xlabel("multiply-adds per call (m*n*k*batch)")
        ax.grid(True, which="major", alpha=0.3)
    axes[0][0].set_ylabel(ylabel)
    fig.suptitle(f"{title} ({os.path.basename(source)})", fontsize=11)
    fig.tight_layout()
    save_png(fig, path)
    plt.close(fig)
    print(f"plot_bench: wrote {path}")
    return True


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    source, out = sys.argv[1], sys.argv[2]
    rows = read(source)
    if not rows:
        print(f"plot_bench: {source} has no shapes; nothing plotted")
        return 1
    os.makedirs(out, exist_ok=True)
    ok = plot(rows, "vendor_over_auto", "Speedup over the vendor: t_vendor / t_auto",
              "speedup (x, higher is better)", os.path.join(out, "speedup_vs_vendor.png"), source)
    ok = plot(rows, "auto_over_best", "Regret: t_auto / t_best",
              "regret (x, 1 is ideal)", os.path.join(out, "regret.png"), source) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
