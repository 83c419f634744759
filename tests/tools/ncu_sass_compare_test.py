#!/usr/bin/env python3
"""dev/ncu-sass-compare.py over the committed profiles: the figures that
bench/results/h100-ab-2026-12-07/README.md quotes ("The 256 x 128 tile's loop against cuBLAS's")."""
import os
import subprocess
import sys
import tarfile
import tempfile

root = sys.argv[1]
profiles = os.path.join(root, "bench", "results", "h100-ab-2026-12-06")
with tempfile.TemporaryDirectory() as scratch:
    for name in ("ncu-reg-2048.tgz", "ncu-big-nn-2048.tgz"):
        with tarfile.open(os.path.join(profiles, name)) as archive:
            safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            archive.extractall(scratch, **safe)
    files = [os.path.join(scratch, "ncu-reg", "sass-cublas-NN.csv"),
             os.path.join(scratch, "w", "sass-big-NN.csv")]
    out = subprocess.run([sys.executable, os.path.join(root, "dev", "ncu-sass-compare.py"), *files],
                         capture_output=True, text=True, check=True).stdout
want = {
    "instructions (M)": ["302.22", "310.52"],
    "placeholders (% of instructions)": ["0.26", "2.00"],
    "FFMA accumulator renamed (%)": ["0.05", "34.09"],
    "FFMA dispatch stalls per 1M FFMA": ["8.56", "16.70"],
}
for line in out.splitlines():
    for key, cells in want.items():
        if line.startswith(key) and line.split()[-2:] != cells:
            sys.exit(f"FAILED {key}: {line.split()[-2:]}, expected {cells}")
missing = [k for k in want if not any(line.startswith(k) for line in out.splitlines())]
if missing:
    sys.exit(f"FAILED: no line for {missing}")
print("ok: ncu-sass-compare figures")
