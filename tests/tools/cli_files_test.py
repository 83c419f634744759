#!/usr/bin/env python3
"""The CLI's file handling under hostile use: existing outputs, an output that is an input,
unwritable folders, special files, bad inputs and bad numbers. Every verb that writes must
refuse before writing, leave no partial or temporary file behind, and never replace a file it
did not create unless told to (--force).

usage: cli_files_test.py GEMMROUTE_BINARY SOURCE_DIR
"""
import csv
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import unittest

CLI = None
SOURCE = None

RESULTS_HEADER = """# gemmroute-results 1
# fingerprint.backend cpu
# method hand-written
# spec none
# tuner test
dtype,ta,tb,layout,m,n,k,batch,spelling,median_us,spread_pct,repetitions,status,origin,detail
"""
OK_ROWS = """f32,N,N,packed,2,2,2,1,openblas,0.5,1.0,7,ok,measured,
f32,N,N,packed,2,2,2,1,cpu.small,0.2,1.0,7,ok,measured,
f32,N,N,packed,4,4,4,1,cpu.direct,0.3,1.0,7,ok,measured,
"""
TINY_SPEC = """name tiny
repetitions 7
min-sample-us 1
warmup-ms 0
block a
  dtype f32
  m 2 3
  n =m
  k =m
  batch 1
end
"""
QUICK = ["--min-sample-us", "1"]


def run(*args, env=None, timeout=120):
    full_env = dict(os.environ)
    full_env.pop("GEMMROUTE_TABLE", None)
    if env:
        full_env.update(env)
    p = subprocess.run([CLI, *args], capture_output=True, text=True, timeout=timeout,
                       env=full_env)
    return p.returncode, p.stdout + p.stderr


class Files(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="gemmroute-cli-files-")
        self.addCleanup(shutil.rmtree, self.dir)

    def path(self, name):
        return os.path.join(self.dir, name)

    def write(self, name, text):
        with open(self.path(name), "w") as f:
            f.write(text)
        return self.path(name)

    def read(self, name):
        with open(self.path(name), "rb") as f:
            return f.read()

    def listing(self):
        return sorted(os.listdir(self.dir))

    def assert_refused(self, rc, out, *pieces):
        self.assertNotEqual(rc, 0, out)
        for piece in pieces:
            self.assertIn(piece, out)

    # -- table build ---------------------------------------------------------------------------

    def test_build_refuses_an_existing_output_unless_forced(self):
        csv = self.write("r.csv", RESULTS_HEADER + OK_ROWS)
        table = self.write("t.table", "precious\n")
        rc, out = run("table", "build", csv, "--out", table)
        self.assert_refused(rc, out, "exists; not replaced (--force replaces it)")
        self.assertEqual(self.read("t.table"), b"precious\n")
        rc, out = run("table", "build", csv, "--out", table, "--force")
        self.assertEqual(rc, 0, out)
        self.assertTrue(self.read("t.table").startswith(b"gemmroute-table 1\n"))
        self.assertEqual(self.listing(), ["r.csv", "t.table"])

    def test_build_refuses_its_input_as_output_by_identity(self):
        csv = self.write("r.csv", RESULTS_HEADER + OK_ROWS)
        os.link(csv, self.path("hard.csv"))
        os.symlink(csv, self.path("soft.csv"))
        before = self.read("r.csv")
        for out_path in (csv, self.path("hard.csv"), self.path("soft.csv"),
                         os.path.join(self.dir, ".", "r.csv")):
            rc, out = run("table", "build", csv, "--out", out_path, "--force")
            self.assert_refused(rc, out, "is the same file as the input")
            self.assertEqual(self.read("r.csv"), before)
        self.assertEqual(self.listing(), ["hard.csv", "r.csv", "soft.csv"])

    def test_build_without_ok_rows_writes_nothing(self):
        csv = self.write("r.csv", RESULTS_HEADER + OK_ROWS.replace(",ok,", ",failed,"))
        table = self.write("t.table", "precious\n")
        rc, out = run("table", "build", csv, "--out", table, "--force")
        self.assert_refused(rc, out, "holds no ok measurement", "was not written")
        self.assertEqual(self.read("t.table"), b"precious\n")
        rc, out = run("table", "build", csv, "--out", self.path("new.table"))
        self.assertNotEqual(rc, 0, out)
        self.assertEqual(self.listing(), ["r.csv", "t.table"])

    def test_build_into_a_folder_or_an_unwritable_place(self):
        csv = self.write("r.csv", RESULTS_HEADER + OK_ROWS)
        sub = os.path.join(self.dir, "folder")
        os.mkdir(sub)
        rc, out = run("table", "build", csv, "--out", sub, "--force")
        self.assert_refused(rc, out, "is a directory")
        self.assertEqual(self.listing(), ["folder", "r.csv"])
        self.assertEqual(os.listdir(sub), [])
        # /proc takes no new files, even from root; a missing folder neither.
        for target in ("/proc/gemmroute-test.table", self.path("missing/t.table")):
            rc, out = run("table", "build", csv, "--out", target)
            self.assert_refused(rc, out, "cannot create a file in")
        self.assertEqual(self.listing(), ["folder", "r.csv"])

    def test_build_never_replaces_a_special_file(self):
        csv = self.write("r.csv", RESULTS_HEADER + OK_ROWS)
        fifo = self.path("fifo")
        os.mkfifo(fifo)
        rc, out = run("table", "build", csv, "--out", fifo, "--force")
        self.assert_refused(rc, out, "is a FIFO; the output must be a regular file")
        self.assertTrue(stat.S_ISFIFO(os.stat(fifo).st_mode))

    def test_build_merge_keeps_its_inputs_and_refuses_other_devices(self):
        csv = self.write("r.csv", RESULTS_HEADER + OK_ROWS)
        rc, out = run("table", "build", csv, "--out", self.path("base.table"))
        self.assertEqual(rc, 0, out)
        recorded = self.write("rec.csv", RESULTS_HEADER +
                              "f32,N,N,packed,2,2,2,1,cpu.direct,0.1,1.0,7,ok,recorded,\n"
                              "f32,N,N,packed,8,8,8,3,openblas,0.9,1.0,7,ok,recorded,\n")
        base = self.read("base.table")
        # The merge table is an input: never the output, even with --force.
        rc, out = run("table", "build", recorded, "--merge", self.path("base.table"), "--out",
                      self.path("base.table"), "--force")
        self.assert_refused(rc, out, "is the same file as the input")
        self.assertEqual(self.read("base.table"), base)
        rc, out = run("table", "build", recorded, "--merge", self.path("base.table"), "--out",
                      self.path("app.table"))
        self.assertEqual(rc, 0, out)
        self.assertIn("merge: 2 rows into", out)
        self.assertIn("1 replace rows of their key, 1 are new", out)
        text = self.read("app.table").decode()
        self.assertIn("row f32 N N packed 2 2 2 1 recorded cpu.direct@", text)
        self.assertIn("row f32 N N packed 4 4 4 1 measured cpu.direct@", text)
        self.assertIn("row f32 N N packed 8 8 8 3 recorded openblas@", text)
        # Measured on another device than the table: refused, nothing written.
        other = self.write("other.csv", RESULTS_HEADER.replace(
            "# fingerprint.backend cpu\n", "# fingerprint.backend cpu\n# fingerprint.device X\n")
            + "f32,N,N,packed,2,2,2,1,cpu.direct,0.1,1.0,7,ok,recorded,\n")
        rc, out = run("table", "build", csv, "--out", self.path("dev.table"), "--force")
        self.assertEqual(rc, 0, out)
        with open(self.path("dev.table")) as f:
            dev = f.read().replace("fingerprint.backend cpu\n",
                                   "fingerprint.backend cpu\nfingerprint.device Y\n")
        self.write("dev.table", dev)
        rc, out = run("table", "build", other, "--merge", self.path("dev.table"), "--out",
                      self.path("x.table"))
        self.assert_refused(rc, out, "was measured on another device", "fingerprint.device")
        self.assertNotIn("x.table", self.listing())

    def test_build_reports_bad_results_at_their_own_line_and_column(self):
        cases = {
            "f32,N,N,packed,2,2,2,1,cpu.nope,0.5,1.0,7,ok,measured,":
                (":7:24: unknown spelling 'cpu.nope'", "r.csv"),
            "f32,C,N,packed,2,2,2,1,openblas,0.5,1.0,7,ok,measured,":
                (":7:5: ta: C is folded to T for real scalars", "r.csv"),
            "f32,N,N,packed,2,2,2,1,openblas,1e308,1.0,7,ok,measured,":
                (":7:33: an ok row's time must be at most 1e12 us", "r.csv"),
        }
        for row, (message, name) in cases.items():
            csv = self.write(name, RESULTS_HEADER + row + "\n")
            rc, out = run("table", "build", csv, "--out", self.path("t.table"))
            self.assert_refused(rc, out, csv + message)
            self.assertNotIn("a bug", out)
            self.assertNotIn("t.table:", out)
            self.assertEqual(self.listing(), ["r.csv"])

    def test_special_and_oversized_inputs_are_refused(self):
        fifo = self.path("fifo")
        os.mkfifo(fifo)
        big = self.write("big.csv", RESULTS_HEADER + "#" + "x" * (1 << 20) + "\n")
        for args, piece in (
                (["table", "build", "/dev/zero", "--out", self.path("t")],
                 "not a regular file (a character device)"),
                (["table", "build", fifo, "--out", self.path("t")], "not a regular file (a FIFO)"),
                (["table", "build", self.dir, "--out", self.path("t")],
                 "not a regular file (a directory)"),
                (["table", "check", "/dev/zero"], "not a regular file (a character device)"),
                (["table", "check", fifo], "not a regular file (a FIFO)"),
                (["tune", "--spec", "/dev/zero", "--out", self.path("r.csv")],
                 "not a regular file (a character device)"),
                (["bench", "--shapes", fifo, "--out", self.path("b.csv")],
                 "not a regular file (a FIFO)")):
            rc, out = run(*args, timeout=20)  # a FIFO must not hang
            self.assert_refused(rc, out, piece)
        rc, out = run("explain", "--m", "4", "--n", "4", "--k", "4",
                      env={"GEMMROUTE_TABLE": "/dev/zero"}, timeout=20)
        self.assert_refused(rc, out, "/dev/zero:0:0: the table file: not a regular file")
        rc, out = run("table", "build", big, "--out", self.path("t"),
                      env={"GEMMROUTE_MAX_INPUT_MB": "1"})
        self.assert_refused(rc, out, "more than the limit of 1 MiB (GEMMROUTE_MAX_INPUT_MB")
        self.assertEqual(self.listing(), ["big.csv", "fifo"])

    # -- bench ---------------------------------------------------------------------------------

    def test_bench_output_rules_and_no_shell(self):
        shapes = self.write("s.txt", "f32 N N 2 2 2 1\n")
        out_csv = self.write("b.csv", "precious\n")
        rc, out = run("bench", "--shapes", shapes, "--out", out_csv, *QUICK)
        self.assert_refused(rc, out, "exists; not replaced")
        self.assertEqual(self.read("b.csv"), b"precious\n")
        rc, out = run("bench", "--shapes", shapes, "--out", shapes, "--force", *QUICK)
        self.assert_refused(rc, out, "is the same file as the input")
        self.assertEqual(self.read("s.txt"), b"f32 N N 2 2 2 1\n")
        # A plot folder whose name would have run a command through a shell.
        plot = os.path.join(self.dir, "p'; touch '" + self.path("PWNED") + "'; '")
        rc, out = run("bench", "--shapes", shapes, "--out", out_csv, "--force", "--plot", plot,
                      *QUICK)
        self.assertEqual(rc, 0, out)
        self.assertFalse(os.path.exists(self.path("PWNED")), out)
        self.assertTrue(self.read("b.csv").startswith(b"# gemmroute-bench 1\n"))
        self.assertEqual(sorted(os.listdir(plot)), ["regret.png", "speedup_vs_vendor.png"])
        # The PNGs exist now: replaced only with --force, checked before measuring.
        rc, out = run("bench", "--shapes", shapes, "--out", self.path("b2.csv"), "--plot", plot,
                      *QUICK)
        self.assert_refused(rc, out, ".png: exists; not replaced")
        self.assertFalse(os.path.exists(self.path("b2.csv")))
        leftovers = [n for n in self.listing() if n.endswith(".tmp")]
        self.assertEqual(leftovers, [])

    def test_bench_shapes_errors_name_the_field(self):
        shapes = self.write("s.txt", "f32 N N 2 2 2 1\nf32 N Q 2 2 2 1\nf64 N N 2 x 2 1\n"
                                     "f32 N N 1 1 1 4611686018427387904\n")
        rc, out = run("bench", "--shapes", shapes, "--out", self.path("b.csv"), *QUICK)
        self.assert_refused(rc, out, shapes + ":2:7: tb: unknown 'Q' (expected N, T or C)",
                            shapes + ":3:11: n: expected a whole number",
                            shapes + ":4:9: the operands of this shape need more than 2^63 bytes")
        self.assertEqual(self.listing(), ["s.txt"])

    def test_bench_candidates_times_those_and_the_vendor(self):
        shapes = self.write("s.txt", "f32 N N 3 5 2 4\n")
        # An unknown or empty name is refused before anything is written, naming what exists.
        for arg, piece in (("cpu.small,nope", "'nope' is not a candidate of this backend, whose "
                                              "candidates are: "),
                           ("cpu.small,,cpu.tile", "an empty name in 'cpu.small,,cpu.tile'")):
            rc, out = run("bench", "--shapes", shapes, "--out", self.path("b.csv"),
                          "--candidates", arg, *QUICK)
            self.assert_refused(rc, out, piece)
        self.assertEqual(self.listing(), ["s.txt"])
        rc, out = run("bench", "--shapes", shapes, "--out", self.path("b.csv"), "--candidates",
                      "cpu.small", *QUICK)
        self.assertEqual(rc, 0, out)
        self.assertIn("candidates timed (--candidates): best and regret are over those", out)
        rows = [r for r in csv.DictReader(
            line for line in self.read("b.csv").decode().splitlines() if not line.startswith("#"))]
        self.assertEqual(len(rows), 1)
        timed = sorted(e.rsplit("=", 1)[0] for e in rows[0]["candidates_us"].split(";"))
        self.assertEqual(timed, ["cpu.small", "openblas"])  # the vendor always among them
        self.assertIn(rows[0]["best_spelling"], timed)
        self.assertTrue(rows[0]["t_vendor_us"])
        rc, out = run("bench", "--grouped", "--candidates", "cpu.small", *QUICK)
        self.assert_refused(rc, out, "--candidates is for a --shapes bench")

    def test_numbers_are_parsed_whole_and_range_checked(self):
        shapes = self.write("s.txt", "f32 N N 2 2 2 1\n")
        csv = self.write("r.csv", RESULTS_HEADER + OK_ROWS)
        for args, piece in (
                (["bench", "--shapes", shapes, "--out", self.path("b.csv"), "--min-sample-us",
                  "nan"], "--min-sample-us: expected a finite number in [1, 1e+07]"),
                (["bench", "--shapes", shapes, "--out", self.path("b.csv"), "--reps",
                  "4294967303"], "--reps: expected a whole number from 7 to 1000"),
                (["bench", "--shapes", shapes, "--out", self.path("b.csv"), "--reps", "7x"],
                 "--reps: expected a whole number"),
                (["table", "build", csv, "--out", self.path("t"), "--margin", "nan"],
                 "--margin: expected a finite number in [0, 1)"),
                (["table", "build", csv, "--out", self.path("t"), "--margin", "inf"],
                 "--margin: expected a finite number"),
                (["table", "build", csv, "--out", self.path("t"), "--margin", " 0.1"],
                 "--margin: expected a finite number"),
                (["tune", "--spec", csv, "--out", self.path("x"), "--budget-minutes", "-1"],
                 "--budget-minutes: expected a finite number"),
                (["explain", "--m", "1e3", "--n", "4", "--k", "4"],
                 "--m: expected a whole number from 1 to"),
                (["explain", "--m", "4", "--n", "4", "--k", "4", "stray"], "unexpected 'stray'"),
                (["explain", "--m", "4", "--n", "4", "--k", "4", "--pointers", "--layout",
                  "packed"], "--pointers: a pointer-array batch is keyed strided, not packed"),
                (["bench", "--grouped", "--sizes", "65", "--out", self.path("g.csv")],
                 "--sizes: expected a whole number from 1 to 64, got '65'"),
                (["bench", "--shapes", shapes, "--out", self.path("b.csv"), "--sizes", "4"],
                 "--sizes needs --grouped")):
            rc, out = run(*args)
            self.assertEqual(rc, 2, out)
            self.assertIn(piece, out)
        self.assertEqual(self.listing(), ["r.csv", "s.txt"])

    # -- tune ----------------------------------------------------------------------------------

    def interrupted_bench(self, gap_s):
        """A bench of many shapes, sent SIGINT twice gap_s apart once it has measured one."""
        # A quick first shape, so its line comes at once, then shapes of several seconds each
        # (every arm of 400^3 x 16), so both signals land inside the second.
        shapes = self.write("many.txt", "f32 N N 4 4 4 1\n" + "".join(
            "f32 N N %d 400 400 16\n" % n for n in range(400, 410)))
        out = self.path("many.csv")
        p = subprocess.Popen([CLI, "bench", "--device", "cpu", "--shapes", shapes, "--out", out,
                              *QUICK], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True)
        first = ""
        while True:  # until the first shape's result line: a stop from now on keeps it
            line = p.stdout.readline()
            self.assertNotEqual(line, "", first)
            first += line
            if line.split("\r")[-1].startswith("f32 N N packed"):
                break
        p.send_signal(signal.SIGINT)
        if gap_s:
            time.sleep(gap_s)
        p.send_signal(signal.SIGINT)
        rest = p.stdout.read()
        return p.wait(timeout=120), first + rest, out

    def test_bench_takes_a_doubled_sigint_for_one_clean_stop(self):
        # `timeout -s INT` signals the process and then its group: both can arrive.
        rc, text, out = self.interrupted_bench(0)
        self.assertEqual(rc, 0, text)
        self.assertIn("interrupted (Ctrl-C) after", text)
        self.assertTrue(os.path.exists(out), text)
        self.assertEqual([f for f in self.listing() if f.startswith(".")], [])

    def test_bench_ends_at_a_second_sigint_a_second_later(self):
        rc, text, out = self.interrupted_bench(1.5)
        if rc == 0:  # the clean stop came first (a shape ended inside the gap)
            self.assertIn("interrupted (Ctrl-C) after", text)
        else:
            self.assertEqual(rc, 130, text)
            self.assertFalse(os.path.exists(out), text)

    def test_confirm_keeps_a_displacement_only_where_both_runs_agree(self):
        # A first run where cpu.direct displaced openblas (the CPU's vendor default) at 2^3 and
        # openblas kept 3^3.
        rows = ("f32,N,N,packed,2,2,2,1,openblas,1.0,1.0,7,ok,measured,\n"
                "f32,N,N,packed,2,2,2,1,cpu.direct,0.5,1.0,7,ok,measured,\n"
                "f32,N,N,packed,3,3,3,1,openblas,1.0,1.0,7,ok,measured,\n"
                "f32,N,N,packed,3,3,3,1,cpu.direct,1.5,1.0,7,ok,measured,\n")
        first = self.write("first.csv", RESULTS_HEADER + rows)
        # The second run measured 2^3 again and did not see cpu.direct's lead.
        again = self.write("again.csv", RESULTS_HEADER +
                           "f32,N,N,packed,2,2,2,1,openblas,1.0,1.0,7,ok,recorded,\n"
                           "f32,N,N,packed,2,2,2,1,cpu.direct,0.99,1.0,7,ok,recorded,\n")
        rc, out = run("table", "build", first, "--out", self.path("plain.table"))
        self.assertEqual(rc, 0, out)
        self.assertIn("row f32 N N packed 2 2 2 1 measured cpu.direct@", self.read("plain.table").decode())
        rc, out = run("table", "build", first, "--confirm", again, "--out", self.path("c.table"))
        self.assertEqual(rc, 0, out)
        self.assertIn("1 rows ranked with both runs, 1 of them with another winner", out)
        text = self.read("c.table").decode()
        self.assertIn("row f32 N N packed 2 2 2 1 measured openblas@", text)
        self.assertIn("row f32 N N packed 3 3 3 1 measured openblas@", text)
        self.assertIn("--confirm again.csv", text)
        # Where the second run agrees, the displacement stands.
        agree = self.write("agree.csv", RESULTS_HEADER +
                           "f32,N,N,packed,2,2,2,1,openblas,1.0,1.0,7,ok,recorded,\n"
                           "f32,N,N,packed,2,2,2,1,cpu.direct,0.6,1.0,7,ok,recorded,\n")
        rc, out = run("table", "build", first, "--confirm", agree, "--out", self.path("a.table"))
        self.assertEqual(rc, 0, out)
        self.assertIn("row f32 N N packed 2 2 2 1 measured cpu.direct@", self.read("a.table").decode())
        # The confirming file is an input: never the output.
        rc, out = run("table", "build", first, "--confirm", again, "--out", again, "--force")
        self.assert_refused(rc, out, "is the same file as the input")

    def test_bench_lt_needs_a_cuda_device(self):
        shapes = self.write("s.txt", "bf16 T N packed 64 8 64 1\n")
        rc, out = run("bench", "--device", "cpu", "--lt", "--shapes", shapes, "--out",
                      self.path("b.csv"))
        self.assert_refused(rc, out, "needs --device cuda")
        rc, out = run("bench", "--device", "cpu", "--top", "4", "--shapes", shapes, "--out",
                      self.path("b.csv"))
        self.assert_refused(rc, out, "--top and --replay need --lt")
        self.assertEqual(self.listing(), ["s.txt"])

    def test_tune_confirm_measures_only_displaced_points(self):
        # A real first run's header (this machine's fingerprint), with times edited so that
        # cpu.direct displaced openblas at 2^3 only.
        spec = self.write("tiny.spec", TINY_SPEC.replace("repetitions 7", "repetitions 7\ncandidates openblas cpu.direct"))
        first = self.path("first.csv")
        rc, out = run("tune", "--device", "cpu", "--spec", spec, "--out", first)
        self.assertEqual(rc, 0, out)
        lines = []
        for line in self.read("first.csv").decode().splitlines():
            f = line.split(",")
            if len(f) > 12 and f[12] == "ok":
                fast = f[8] == ("cpu.direct" if f[4] == "2" else "openblas")
                f[9] = "0.5" if fast else "1.0"
                f[10] = "1.0"
                line = ",".join(f)
            lines.append(line)
        self.write("first.csv", "\n".join(lines) + "\n")
        again = self.path("again.csv")
        rc, out = run("tune", "--device", "cpu", "--spec", spec, "--confirm", first, "--out", again)
        self.assertEqual(rc, 0, out)
        self.assertIn("tune --confirm: 1 points of 2", out)
        measured = [l.split(",")[:9] for l in self.read("again.csv").decode().splitlines()
                    if l and not l.startswith("#") and not l.startswith("dtype")]
        self.assertEqual(sorted(m[8] for m in measured), ["cpu.direct", "openblas"])
        self.assertTrue(all(m[4] == "2" for m in measured), measured)
        rc, out = run("table", "build", first, "--confirm", again, "--out", self.path("t.table"))
        self.assertEqual(rc, 0, out)
        self.assertIn("1 rows ranked with both runs", out)

    def test_refine_keeps_the_tables_comments_and_says_it_refined(self):
        spec = self.write("tiny.spec", TINY_SPEC.replace("m 2 3", "m 2 8").replace(
            "repetitions 7", "repetitions 7\ncandidates openblas cpu.direct\nrefine-max-points 2"))
        results = self.path("r.csv")
        rc, out = run("tune", "--device", "cpu", "--spec", spec, "--out", results)
        self.assertEqual(rc, 0, out)
        lines = []  # cpu.direct wins at 2^3, openblas at 8^3: one edge to bisect
        for line in self.read("r.csv").decode().splitlines():
            f = line.split(",")
            if len(f) > 12 and f[12] == "ok":
                fast = f[8] == ("cpu.direct" if f[4] == "2" else "openblas")
                f[9], f[10] = ("0.5" if fast else "1.0"), "1.0"
                line = ",".join(f)
            lines.append(line)
        self.write("r.csv", "\n".join(lines) + "\n")
        table = self.path("t.table")
        rc, out = run("table", "build", results, "--out", table)
        self.assertEqual(rc, 0, out)
        for _ in range(2):
            rc, out = run("tune", "--device", "cpu", "--spec", spec, "--out", results,
                          "--refine", table)
            self.assertEqual(rc, 0, out)
            text = self.read("t.table").decode().splitlines()
            self.assertTrue(text[1].startswith("# Built by `gemmroute table build"), text[:4])
            refined = [l for l in text if l.startswith("# Refined by `gemmroute tune --refine`")]
            self.assertEqual(len(refined), 1, text[:6])
            self.assertTrue(any(" refined " in l for l in text if l.startswith("row ")))
        rc, out = run("table", "check", table)
        self.assertEqual(rc, 0, out)

    def test_tune_failures_leave_no_results_file(self):
        spec = self.write("tiny.spec", TINY_SPEC)
        bad_table = self.write("bad.table", "gemmroute-table 1\nfingerprint.backend cpu\n")
        out_csv = self.path("r.csv")
        for args in (["--sample", "0"], ["--refine", bad_table], ["--refine", self.path("none")]):
            rc, out = run("tune", "--spec", spec, "--out", out_csv, *args)
            self.assertNotEqual(rc, 0, out)
            self.assertFalse(os.path.exists(out_csv), f"{args}: {out}")
        rc, out = run("tune", "--spec", spec, "--out", spec, "--resume")
        self.assert_refused(rc, out, "is the same file as the input")
        self.assertEqual(self.read("tiny.spec"), TINY_SPEC.encode())
        # A run that measures, then one that refuses to touch its file without --resume.
        rc, out = run("tune", "--spec", spec, "--out", out_csv)
        self.assertEqual(rc, 0, out)
        before = self.read("r.csv")
        rc, out = run("tune", "--spec", spec, "--out", out_csv)
        self.assert_refused(rc, out, "exists: pass --resume")
        self.assertEqual(self.read("r.csv"), before)
        self.assertEqual(self.listing(), ["bad.table", "r.csv", "tiny.spec"])


def main():
    global CLI, SOURCE
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    CLI, SOURCE = sys.argv[1], sys.argv[2]
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(Files)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
