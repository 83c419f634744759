#!/usr/bin/env python3
"""Rate (TFLOP/s) of a native candidate against the vendor at each shape of `gemmroute tune`
results (one or more CSVs measured in the same way), as grouped bars, and the ratio vendor time
over the candidate's time per shape: how close a native kernel comes where the vendor is strong.

    scripts/plot_rate.py RESULTS.csv [MORE.csv ...] --candidate SPELLING OUT.png
    scripts/plot_rate.py RESULTS.csv --candidate SPELLING --table    # Markdown instead

Each file is one arm (labelled by its file name) of the candidate, its ratio taken against the
vendor (cublas) of the same file (measured in the same process); the vendor's bars are the first
file's. A shape is dtype, forms, m, n, k and batch.
"""
import argparse
import os
import sys

from plot_common import geomean, read, save_png


def times(path, spelling):
    """shape -> (us, flops) for `spelling` in one results CSV."""
    out = {}
    for r, size in read(path):
        if r.get("spelling") != spelling or r.get("status") != "ok":
            continue
        flops = (8 if r["dtype"].startswith("c") else 2) * size
        key = f'{r["dtype"]} {r["ta"]}{r["tb"]} {r["m"]}x{r["n"]}x{r["k"]} b{r["batch"]}'
        out[key] = (float(r["median_us"]), flops)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="+")
    ap.add_argument("--candidate", required=True)
    ap.add_argument("--vendor", default="cublas")
    ap.add_argument("--table", action="store_true")
    args = ap.parse_intermixed_args()
    out = None
    if not args.table:
        if len(args.results) < 2 or not args.results[-1].endswith(".png"):
            sys.exit("plot_rate.py: the last argument is the PNG to write (or give --table)")
        out = args.results.pop()
    vendors = [times(p, args.vendor) for p in args.results]
    vendor = vendors[0]
    arms = [(os.path.basename(p).removesuffix(".csv"), times(p, args.candidate))
            for p in args.results]
    shapes = [s for s in vendor
              if all(s in t and s in v for (_, t), v in zip(arms, vendors))]
    if not shapes:
        sys.exit("plot_rate.py: no shape has both the vendor and the candidate in every file")

    if args.table:
        head = "| shape | " + args.vendor + " TFLOP/s | " + " | ".join(
            f"{name} TFLOP/s, x {args.vendor}" for name, _ in arms) + " |"
        print(head)
        print("|" + "---|" * (2 + len(arms)))
        for s in shapes:
            v_us, flops = vendor[s]
            cells = [f"{flops / t[s][0] / 1e6:.1f}, {v[s][0] / t[s][0]:.3f}"
                     for (_, t), v in zip(arms, vendors)]
            print(f"| {s} | {flops / v_us / 1e6:.1f} | " + " | ".join(cells) + " |")
        for (name, t), v in zip(arms, vendors):
            print(f"{name}: geomean {args.vendor} time / candidate time "
                  f"{geomean([v[s][0] / t[s][0] for s in shapes]):.3f} over {len(shapes)} shapes")
        return

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    width = 0.8 / (1 + len(arms))
    fig, ax = plt.subplots(figsize=(max(8, 0.6 * len(shapes)), 5))
    xs = range(len(shapes))
    ax.bar([x - 0.4 + width / 2 for x in xs], [vendor[s][1] / vendor[s][0] / 1e6 for s in shapes],
           width, label=args.vendor, color="0.6")
    for i, (name, t) in enumerate(arms, start=1):
        ax.bar([x - 0.4 + width / 2 + i * width for x in xs],
               [t[s][1] / t[s][0] / 1e6 for s in shapes], width, label=f"{args.candidate} ({name})")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(shapes, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("TFLOP/s (median)")
    ax.set_title(f"{args.candidate} against {args.vendor}")
    ax.legend(fontsize=7, ncol=2, loc="upper left")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    save_png(fig, out)
    print(f"plot_rate.py: wrote {out} ({len(shapes)} shapes)")


if __name__ == "__main__":
    main()
