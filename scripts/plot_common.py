"""What plot_bench.py and plot_peers.py share: reading a bench CSV and writing a figure whole."""
import csv
import math
import os
import tempfile


def read(path):
    """The CSV's rows (comment lines skipped), each with its multiply-adds per call."""
    with open(path, newline="") as f:
        lines = [line for line in f if not line.startswith("#")]
    rows = []
    for r in csv.DictReader(lines):
        try:
            size = int(r["m"]) * int(r["n"]) * int(r["k"]) * int(r["batch"])
        except (KeyError, ValueError):
            continue
        rows.append((r, size))
    return rows


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def save_png(fig, path):
    """Whole or not at all: a temporary beside the target, renamed over it once written."""
    fd, temp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp",
                                dir=os.path.dirname(path) or ".")
    try:
        with os.fdopen(fd, "wb") as f:
            fig.savefig(f, format="png", dpi=120)
        os.chmod(temp, 0o644)
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise
