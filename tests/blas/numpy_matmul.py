"""NumPy through the drop-in BLAS: Debian's NumPy (linked to the system libblas.so.3) run with
libgemmroute_blas.so preloaded and GEMMROUTE_LOG=1 must give correct `a @ b` for f32, f64,
c64 and c128, with and without a transposed operand, and the log must show each scalar type
routed through gemmroute, transposed forms included.

Usage: /usr/bin/python3 numpy_matmul.py LIBRARY   (the parent re-runs itself preloaded)
"""
import os
import re
import subprocess
import sys


def child() -> int:
    import numpy as np

    with open("/proc/self/maps") as maps:
        if "libgemmroute_blas" not in maps.read():
            print("FAIL: libgemmroute_blas.so is not loaded")
            return 1
    rng = np.random.default_rng(2024)
    failures = 0
    for dtype in (np.float32, np.float64, np.complex64, np.complex128):
        def rand(*shape):
            x = rng.uniform(-1, 1, shape)
            if np.issubdtype(dtype, np.complexfloating):
                x = x + 1j * rng.uniform(-1, 1, shape)
            return x.astype(dtype)

        m, k, n = 37, 29, 41
        cases = {
            "a @ b": (rand(m, k), rand(k, n)),
            "a.T @ b": (rand(k, m).T, rand(k, n)),
            "a @ b.T": (rand(m, k), rand(n, k).T),
            "a.T @ b.T (large)": (rand(130, 150).T, rand(110, 130).T),
        }
        for name, (a, b) in cases.items():
            c = a @ b
            wide = np.clongdouble if np.issubdtype(dtype, np.complexfloating) else np.longdouble
            aw, bw = a.astype(wide), b.astype(wide)
            # Elementwise products summed: no BLAS involved in the oracle.
            want = (aw[:, :, None] * bw[None, :, :]).sum(axis=1)
            mag = (np.abs(aw)[:, :, None] * np.abs(bw)[None, :, :]).sum(axis=1)
            eps = np.finfo(dtype).eps
            err = np.abs(c.astype(wide) - want)
            ok = bool(np.all(err <= 16 * eps * mag + np.finfo(np.longdouble).tiny))
            print(f"{np.dtype(dtype).name:10s} {name:18s} {c.shape} "
                  f"max err/bound {float(np.max(err / (16 * eps * mag + 1e-300))):.3g} "
                  f"{'ok' if ok else 'WRONG'}")
            failures += not ok
    return 1 if failures else 0


def parent(library: str) -> int:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GEMMROUTE_")}
    env.update(LD_PRELOAD=library, GEMMROUTE_LOG="1")
    run = subprocess.run([sys.executable, __file__, "--child"], env=env, capture_output=True,
                         text=True, timeout=600)
    print(run.stdout, end="")
    problems = [] if run.returncode == 0 else [f"child exit status {run.returncode}"]
    keys = re.findall(r"^gemmroute: key (\S+) (\S) (\S) ", run.stderr, re.MULTILINE)
    for dtype in ("f32", "f64", "c32", "c64"):
        mine = [k for k in keys if k[0] == dtype]
        transposed = [k for k in mine if k[1] != "N" or k[2] != "N"]
        print(f"{dtype}: {len(mine)} calls routed, {len(transposed)} with a transposed operand")
        if not mine:
            problems.append(f"no {dtype} call was routed through gemmroute")
        elif not transposed:
            problems.append(f"no {dtype} call with a transposed operand was routed")
    other = [line for line in run.stderr.splitlines() if not line.startswith("gemmroute: key ")]
    if other:
        print("stderr:\n  " + "\n  ".join(other[:20]))
    for pr in problems:
        print("FAIL: " + pr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(child() if sys.argv[1:] == ["--child"] else parent(sys.argv[1]))
