#!/usr/bin/env python3
"""Plots a `gemmroute bench --grouped` CSV: each arm's fraction of the roofline against the
number of items, one panel per scalar and size mix; for a `--sizes` run (mixes `n=N`: a
pointer-array batch of one size), against the size instead, one panel per scalar and item count.

usage: plot_grouped.py GROUPED.csv OUT_DIR

Writes OUT_DIR/grouped.png (x = items per call, log scale, or the size n; y = roofline time over
measured time, so 1 is the roofline itself), written to a temporary beside it and renamed over
it once complete. Needs matplotlib (Debian: python3-matplotlib).
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from plot_common import save_png  # noqa: E402

# The arms as bench --grouped names them, in its order, with how the legend reads them.
ARMS = [("auto", "auto (gemm_groups)"), ("vendor-groups", "vendor, one grouped call"),
        ("vendor-loop", "vendor, a call a group"), ("auto-per-group", "auto, a call a group"),
        ("auto-items", "auto (gemm_grouped, items)"),
        ("auto-ab", "auto, the A/B build's patched launch")]  # only in an A/B build's CSV


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    source, out_dir = argv[1], argv[2]
    rows = [r for r in read(source) if r.get("of_roofline")]
    # A --sizes run: every mix one size ("n=16"), plotted against that size.
    by_size = bool(rows) and all(r["mix"].startswith("n=") for r in rows)
    if by_size:
        for r in rows:
            r["x"] = int(r["mix"][2:])
        panels = sorted({(r["scalar"], r["items"]) for r in rows},
                        key=lambda p: (p[0], int(p[1])))
    else:
        for r in rows:
            r["x"] = int(r["items"])
        panels = sorted({(r["scalar"], r["mix"]) for r in rows},
                        key=lambda p: (p[0], p[1] != "uniform", p[1]))
    if not panels:
        print(f"plot_grouped: no measurements in {source}; nothing written")
        return 1
    cols = min(2, len(panels))
    nrows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(5.2 * cols, 3.6 * nrows), squeeze=False,
                             sharey=True)
    for ax, (scalar, which) in zip(axes.flat, panels):
        key = "items" if by_size else "mix"
        mine = [r for r in rows if r["scalar"] == scalar and r[key] == which]
        for arm, label in ARMS:
            pts = sorted((r["x"], float(r["of_roofline"])) for r in mine if r["arm"] == arm)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=4,
                        label=label, linewidth=2 if arm == "auto" else 1)
        ax.set_xscale("log", base=2 if by_size else 10)
        ax.set_ylim(0, 1.05)
        ax.axhline(1.0, color="grey", linewidth=1, linestyle="--")
        ax.grid(True, which="both", alpha=0.3)
        ax.set_title(f"{scalar}, {which} items, one size a batch" if by_size
                     else f"{scalar}, {which}", fontsize=10)
        ax.set_xlabel("n (m = n = k)" if by_size else "items per call")
        if by_size:  # the sizes run, as numbers
            sizes = sorted({r["x"] for r in mine})
            ax.set_xticks(sizes, [str(n) for n in sizes], minor=False)
            ax.minorticks_off()
    for ax in axes[:, 0]:
        ax.set_ylabel("fraction of the roofline")
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    axes.flat[0].legend(fontsize=7, loc="upper left")
    fig.suptitle(f"bench --grouped: {os.path.basename(source)}", fontsize=10)
    fig.tight_layout()
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "grouped.png")
    save_png(fig, path)
    print(f"plot_grouped: wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
