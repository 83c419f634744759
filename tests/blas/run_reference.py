"""Runs one reference BLAS level-3 test program (Debian's libblas-test: xblat3s/d/c/z, and the
CBLAS x?cblat3) with libgemmroute_blas.so preloaded and GEMMROUTE_LOG=1, and fails unless

  * the program ran to "END OF TESTS" and exited 0;
  * its GEMM routine reports PASSED for the error-exit tests and the computational tests (both
    layouts for CBLAS);
  * nothing at all in its report failed (the other routines run on OpenBLAS through the
    library: their passing shows the rest of BLAS still resolves there);
  * the log shows the GEMM calls went through gemmroute: at least --min-routed lines
    "gemmroute: key <dtype> ...".

The program's report goes to a summary file named in its .in (Fortran) or to stdout (CBLAS);
both, with stderr, are kept in --workdir for a look after a failure.
"""
import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys

import preload


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--library", required=True, help="libgemmroute_blas.so")
    p.add_argument("--preload", action="append", default=[], help="another library to preload")
    p.add_argument("--program", required=True)
    p.add_argument("--input", required=True, help="the program's .in file (stdin)")
    p.add_argument("--summary", default="-", help="summary file the .in names; - for stdout")
    p.add_argument("--routine", required=True, help="DGEMM, or cblas_dgemm for CBLAS")
    p.add_argument("--dtype", required=True, help="f32, f64, c32 or c64 as the log spells it")
    p.add_argument("--workdir", required=True)
    p.add_argument("--min-routed", type=int, default=1000)
    args = p.parse_args()

    absent = preload.missing((args.program, args.input, args.library, *args.preload),
                             "libblas-test")
    if absent:
        print("FAIL: " + "\n      ".join(absent))
        return 1

    work = pathlib.Path(args.workdir)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    env = preload.environment(args.library, args.preload)
    with open(args.input, "rb") as stdin, open(work / "stdout.txt", "wb") as out, \
            open(work / "stderr.txt", "wb") as err:
        rc = subprocess.run([args.program], stdin=stdin, stdout=out, stderr=err, cwd=work,
                            env=env, timeout=900).returncode

    stdout = (work / "stdout.txt").read_text(errors="replace")
    stderr = (work / "stderr.txt").read_text(errors="replace")
    if args.summary == "-":
        report = stdout
    else:
        summary = work / args.summary
        report = summary.read_text(errors="replace") if summary.exists() else ""
        report += stdout

    problems = []
    if rc != 0:
        problems.append(f"exit status {rc}")
    if "END OF TESTS" not in report:
        problems.append("the program did not reach END OF TESTS")
    name = re.escape(args.routine)
    wanted = [rf"^\s*{name}\s+PASSED THE TESTS OF ERROR-EXITS\s*$"]
    if args.routine.startswith("cblas_"):
        wanted += [rf"^\s*{name}\s+PASSED THE COLUMN-MAJOR\s+COMPUTATIONAL TESTS",
                   rf"^\s*{name}\s+PASSED THE ROW-MAJOR\s+COMPUTATIONAL TESTS"]
    else:
        wanted += [rf"^\s*{name}\s+PASSED THE COMPUTATIONAL TESTS"]
    passed = []
    for pattern in wanted:
        hit = re.search(pattern, report, re.MULTILINE)
        if hit:
            passed.append(hit.group(0).strip())
        else:
            problems.append(f"no line matching /{pattern}/")
    bad = [line.strip() for line in report.splitlines()
           if re.search(r"FAIL|\*\*\*\*\*|FATAL|NOT DETECTED|XERBLA WAS CALLED", line)]
    if bad:
        problems.append("the report has failures:\n    " + "\n    ".join(bad[:20]))

    log = preload.Log()
    for line in stderr.splitlines():
        log.add(line)
    routed = log.count(args.dtype)
    if routed < args.min_routed:
        problems.append(f"only {routed} 'gemmroute: key {args.dtype}' log lines "
                        f"(want >= {args.min_routed}): calls did not go through gemmroute")
    if log.reports:
        problems.append("gemmroute reported:\n    " + "\n    ".join(log.reports[:10]))

    for line in passed:
        print(line)
    print(f"{routed} calls routed through gemmroute ({args.dtype})")
    if problems:
        print(f"FAIL: {os.path.basename(args.program)} (output kept in {work}):")
        for pr in problems:
            print("  - " + pr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
