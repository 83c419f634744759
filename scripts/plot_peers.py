#!/usr/bin/env python3
"""Plots a `gemmroute bench --peers` CSV: how much faster auto is than each library.

usage: plot_peers.py PEERS.csv OUT_DIR

Writes OUT_DIR/auto_vs_libraries.png: one panel each for the fastest library of every shape,
OpenBLAS, LIBXSMM and BLIS, y = t_library / t_auto (log scale; above 1 auto is faster, the
dashed lines are 1 and 0.97), x = multiply-adds per call (m*n*k*batch, log scale), one marker
per scalar type; written to a temporary beside it and renamed over it once complete. Needs
matplotlib (Debian: python3-matplotlib).
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from plot_common import geomean, read, save_png  # noqa: E402

PANELS = [("auto_vs_fastest", "fastest library"), ("auto_vs_openblas", "OpenBLAS"),
          ("auto_vs_libxsmm", "LIBXSMM"), ("auto_vs_blis", "BLIS")]
MARKERS = {"f32": ("o", "C0"), "f64": ("s", "C1"), "c32": ("^", "C2"), "c64": ("v", "C3")}


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    source, out = sys.argv[1], sys.argv[2]
    rows = read(source)
    if not rows:
        print(f"plot_peers: {source} has no shapes; nothing plotted")
        return 1
    os.makedirs(out, exist_ok=True)
    fig, axes = plt.subplots(1, len(PANELS), figsize=(4.2 * len(PANELS), 3.8), squeeze=False,
                             sharey=True)
    for ax, (column, title) in zip(axes[0], PANELS):
        values = []
        for scalar, (marker, colour) in MARKERS.items():
            pts = [(size, float(r[column])) for r, size in rows
                   if r["dtype"] == scalar and r.get(column)]
            values += [y for _, y in pts]
            if pts:
                ax.scatter([x for x, _ in pts], [y for _, y in pts], marker=marker, color=colour,
                           s=22, alpha=0.8, label=scalar)
        ax.axhline(1.0, color="grey", linewidth=1, linestyle="--")
        ax.axhline(0.97, color="red", linewidth=0.8, linestyle=":")
        ax.set_xscale("log")
        ax.set_yscale("log")
        low = min(values) if values else float("nan")
        ax.set_title(f"vs {title}: geomean {geomean(values):.2f}, min {low:.2f} (n={len(values)})",
                     fontsize=9)
        ax.set_xlabel("multiply-adds per call (m*n*k*batch)")
        ax.grid(True, which="major", alpha=0.3)
        if values:
            ax.legend(fontsize=7)
    axes[0][0].set_ylabel("t_library / t_auto (higher: auto faster)")
    fig.suptitle(f"auto against each library called as its users call it "
                 f"({os.path.basename(source)})", fontsize=11)
    fig.tight_layout()
    path = os.path.join(out, "auto_vs_libraries.png")
    save_png(fig, path)
    plt.close(fig)
    print(f"plot_peers: wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
