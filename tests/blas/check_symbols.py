"""Checks libgemmroute_blas.so's dynamic interface: it defines exactly the GEMM entry points
of docs/blas.md (nothing of gemmroute's C++ inside leaks, no other BLAS symbol shadows
OpenBLAS's), and it depends on libopenblas.so.0 directly, so preloading it alone is enough
for the rest of BLAS and LAPACK to resolve."""
import subprocess
import sys

EXPECTED = set()
for x in "sdcz":
    EXPECTED |= {f"{x}gemm_", f"cblas_{x}gemm", f"{x}gemm_batch_", f"cblas_{x}gemm_batch",
                 f"{x}gemm_batch_strided_", f"cblas_{x}gemm_batch_strided"}


def main() -> int:
    lib = sys.argv[1]
    nm = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True,
                        check=True).stdout
    defined = {line.split()[-1].split("@")[0] for line in nm.splitlines() if line.strip()}
    dynamic = subprocess.run(["readelf", "-d", lib], capture_output=True, text=True,
                             check=True).stdout
    problems = []
    if defined - EXPECTED:
        problems.append(f"exports more than the GEMM entry points: {sorted(defined - EXPECTED)}")
    if EXPECTED - defined:
        problems.append(f"does not export {sorted(EXPECTED - defined)}")
    if "[libopenblas.so.0]" not in dynamic:
        problems.append("no DT_NEEDED libopenblas.so.0")
    print(f"{len(defined)} symbols exported; NEEDED: "
          + ", ".join(line.split("[")[1].rstrip("]") for line in dynamic.splitlines()
                      if "(NEEDED)" in line))
    for pr in problems:
        print("FAIL: " + pr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
