"""What the drop-in tests share: running a program with libgemmroute_blas.so preloaded and
GEMMROUTE_LOG=1, and reading gemmroute's log lines from its stderr.

Every routed call prints one line "gemmroute: key <dtype> ..." (docs/blas.md); any other
line starting "gemmroute:" is gemmroute reporting a problem, except the note that the shipped
table was measured with other library builds than this machine's (its fingerprint), which
says which table entries the machine cannot run: that is the machine, not the calls.
"""
import os


def missing(paths, package):
    """Problems for the files in `paths` that do not exist (they come with `package`)."""
    return [f"{p} does not exist (it comes with Debian's {package} package)"
            for p in paths if not os.path.exists(p)]


def environment(library=None, preload=(), log=True):
    """The environment for a run: the caller's, without any GEMMROUTE_ setting, and with
    `library` (and `preload`) preloaded and GEMMROUTE_LOG=1 when a library is given. None:
    plain, nothing preloaded."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GEMMROUTE_")}
    env.pop("LD_PRELOAD", None)
    if library:
        env["LD_PRELOAD"] = " ".join([library, *preload])
        if log:
            env["GEMMROUTE_LOG"] = "1"
    return env


class Log:
    """Counts routed calls per dtype in a stream of stderr lines and keeps gemmroute's other
    reports (and a few of the program's own lines, for a failure message)."""

    def __init__(self):
        self.routed = {}
        self.reports = []

    def add(self, line):
        if line.startswith("gemmroute: key "):
            dtype = line[len("gemmroute: key "):].split(" ", 1)[0]
            self.routed[dtype] = self.routed.get(dtype, 0) + 1
        elif line.startswith("gemmroute: warning: table ") and "fingerprint." in line:
            pass  # another machine's table: entries it cannot run are skipped (context.cpp)
        elif line.startswith("gemmroute:") and len(self.reports) < 20:
            self.reports.append(line.rstrip("\n"))
        return self

    def count(self, dtype):
        return self.routed.get(dtype, 0)
