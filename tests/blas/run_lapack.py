"""Runs one LAPACK test program of Debian's liblapack-test (xlintst?, xeigtst?) on its shipped
input files, each once against plain OpenBLAS and once with libgemmroute_blas.so preloaded
(GEMMROUTE_LOG=1), and fails if, for any input, the preloaded run

  * has a test that fails LAPACK's threshold and passes it in the plain run: a line of the
    preloaded report (with the test ratio, its last number, left out) that the plain report
    does not have, such as the failing test's line or the header printed before a path's
    first failure;
  * differs in the error-exit tests, or in the number of tests run in any path;
  * did not end normally (exit status, "End of tests"), or the plain run did not;
  * or, over all inputs, routed fewer than --min-routed GEMM calls of its scalar, or gemmroute
    reported a problem.

Tests that fail in both runs are LAPACK's or OpenBLAS's own (3.11's xLATRS3 tests, some
generalised eigenvalue drivers ...): they are counted and printed, not failures. The reports
and gemmroute's non-routing log lines are kept in --workdir/<input>/{plain,preloaded}/.
OMP_WAIT_POLICY=passive for both runs: CI runs tests side by side on two cores, where
OpenMP's spinning threads slowed these runs tenfold; it changes no result.

The native CPU kernels follow the summation order of OpenBLAS 0.3.21's AVX2 kernels (its
Haswell and Zen cores: docs/decisions.md, "One summation order"), which is what keeps the
generalised eigenvalue drivers' exact comparisons equal through the drop-in. Where OpenBLAS
picks another core on a CPU that has AVX2 and FMA (it falls back to Prescott's SSE3 kernels on
CPUs it does not know, such as the 2-core Intel Xeon VM of 2026-12-02), both runs are given
OPENBLAS_CORETYPE=Haswell, so the comparison is with the kernels that order was made for
(docs/blas.md says what a drop-in user on such a CPU sees otherwise).
"""
import argparse
import collections
import ctypes
import ctypes.util
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

import preload

# A number with a decimal point or an exponent (Fortran writes 1.5D+02 too): a test ratio.
RATIO = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[EeDd][-+]?\d+)|[-+]?(?:\d+\.\d*|\.\d+)")
FAILED = re.compile(
    r"^\s*(\S+?):?\s*(drivers:)?\s+(\d+) out of\s+(\d+) tests failed to pass the threshold")
PASSED = re.compile(
    r"All tests for (\S+)\s*(routines|drivers)?\s+passed the threshold \(\s*(\d+) tests run\)")


def openblas_core():
    """The core OpenBLAS picked on this CPU ("Haswell", "Prescott" ...), or "" when unknown."""
    name = ctypes.util.find_library("openblas")
    try:
        lib = ctypes.CDLL(name or "libopenblas.so.0")
        lib.openblas_get_corename.restype = ctypes.c_char_p
        return lib.openblas_get_corename().decode()
    except (OSError, AttributeError):
        return ""


def cpu_has_avx2_fma():
    try:
        flags = pathlib.Path("/proc/cpuinfo").read_text().split()
    except OSError:
        return False
    return "avx2" in flags and "fma" in flags


def without_ratio(line):
    """The line with its last ratio-like number replaced and blanks collapsed."""
    found = list(RATIO.finditer(line))
    if found:
        last = found[-1]
        line = line[:last.start()] + "#" + line[last.end():]
    return " ".join(line.split())


class Report:
    """What a tester's report says: per path (in order) the tests run and failed, the
    error-exit lines, and every other line without its ratio."""

    def __init__(self, text):
        self.paths, self.exits, self.lines = [], [], collections.Counter()
        self.ended = "End of tests" in text
        for line in text.splitlines():
            if "time used" in line or not line.strip():
                continue
            failed, passed = FAILED.search(line), PASSED.search(line)
            if failed:
                drivers = " drivers" if failed.group(2) else ""
                self.paths.append((failed.group(1) + drivers, int(failed.group(4)),
                                   int(failed.group(3))))
            elif passed:
                drivers = " drivers" if passed.group(2) == "drivers" else ""
                self.paths.append((passed.group(1) + drivers, int(passed.group(3)), 0))
            else:
                if "error exits" in line:
                    self.exits.append(" ".join(line.split()))
                self.lines[without_ratio(line)] += 1

    def failures(self):
        return sum(f for _, _, f in self.paths)

    def run(self):
        return sum(r for _, r, _ in self.paths)


def run(program, inp, work, env):
    """Runs the program on one input in `work`; returns (exit status, report text, log,
    seconds)."""
    work.mkdir(parents=True)
    log = preload.Log()
    start = time.monotonic()
    with open(inp, "rb") as stdin, open(work / "report.txt", "wb") as out, \
            open(work / "gemmroute.txt", "w") as kept:
        proc = subprocess.Popen([program], stdin=stdin, stdout=out, stderr=subprocess.PIPE,
                                cwd=work, env=env, text=True, errors="replace")
        for line in proc.stderr:  # a routed call per line: counted, not stored
            log.add(line)
            if not line.startswith("gemmroute: key "):
                kept.write(line)
        status = proc.wait()
    seconds = time.monotonic() - start
    return status, (work / "report.txt").read_text(errors="replace"), log, seconds


def compare(plain, pre):
    """Why the preloaded report is worse than the plain one (empty when it is not)."""
    problems = []
    if [(p, r) for p, r, _ in plain.paths] != [(p, r) for p, r, _ in pre.paths]:
        problems.append(f"the tests run differ: plain {plain.paths[:6]}..., "
                        f"preloaded {pre.paths[:6]}...")
    if plain.exits != pre.exits:
        problems.append("the error-exit tests differ:\n      " +
                        "\n      ".join(sorted(set(plain.exits) ^ set(pre.exits))[:10]))
    new = pre.lines - plain.lines
    if new:
        lines = sorted(new, key=lambda line: "#" not in line)  # lines with a ratio first
        problems.append("failures (or output) the plain run does not have:\n      " +
                        "\n      ".join(lines[:15]))
    return problems


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--library", required=True, help="libgemmroute_blas.so")
    p.add_argument("--program", required=True, help="xlintstd, xeigtstz ...")
    p.add_argument("--input", action="append", required=True, help="an input file (stdin)")
    p.add_argument("--dtype", required=True, help="f32, f64, c32 or c64 as the log spells it")
    p.add_argument("--workdir", required=True)
    p.add_argument("--min-routed", type=int, default=1000)
    args = p.parse_args()

    absent = preload.missing((args.program, *args.input, args.library), "liblapack-test")
    if absent:
        print("FAIL: " + "\n      ".join(absent))
        return 1
    work = pathlib.Path(args.workdir)
    shutil.rmtree(work, ignore_errors=True)
    plain_env = preload.environment()
    pre_env = preload.environment(args.library)
    for env in (plain_env, pre_env):
        env["OMP_WAIT_POLICY"] = "passive"
    core = openblas_core()
    if ("OPENBLAS_CORETYPE" not in os.environ and core.lower() not in ("haswell", "zen")
            and cpu_has_avx2_fma()):
        print("OpenBLAS picked core '%s' on this AVX2 CPU: both runs use OPENBLAS_CORETYPE=Haswell"
              % core)
        for env in (plain_env, pre_env):
            env["OPENBLAS_CORETYPE"] = "Haswell"

    problems, routed, reports, both = [], 0, [], 0
    for inp in args.input:
        name = pathlib.Path(inp).name
        rc_plain, text_plain, _, s_plain = run(args.program, inp, work / name / "plain",
                                               plain_env)
        rc_pre, text_pre, log, s_pre = run(args.program, inp, work / name / "preloaded", pre_env)
        plain, pre = Report(text_plain), Report(text_pre)
        routed += log.count(args.dtype)
        reports += log.reports
        here = []
        if rc_plain != 0 or not plain.ended:
            here.append(f"the plain run did not end normally (exit status {rc_plain})")
        if rc_pre != 0 or not pre.ended:
            here.append(f"the preloaded run did not end normally (exit status {rc_pre})")
        here += compare(plain, pre)
        print(f"{name}: {pre.run()} tests, {pre.failures()} over the threshold "
              f"(plain {plain.failures()}), {log.count(args.dtype)} {args.dtype} calls routed; "
              f"{s_plain:.1f} s plain, {s_pre:.1f} s preloaded")
        both += plain.failures()
        problems += [f"{name}: {h}" for h in here]

    if routed < args.min_routed:
        problems.append(f"only {routed} 'gemmroute: key {args.dtype}' log lines "
                        f"(want >= {args.min_routed}): calls did not go through gemmroute")
    if reports:
        problems.append("gemmroute reported:\n      " + "\n      ".join(reports[:10]))
    print(f"{routed} calls routed through gemmroute ({args.dtype}); {both} threshold failures "
          "that plain OpenBLAS has too" + ("" if problems else ", none new"))
    if problems:
        print(f"FAIL: {os.path.basename(args.program)} (reports kept in {work}):")
        for pr in problems:
            print("  - " + pr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
