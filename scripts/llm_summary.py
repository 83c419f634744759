#!/usr/bin/env python3
"""The whole LLM suite from the committed `bench --lt` CSVs: for each shape of
bench/shapes/llm.txt the latest run that measured it (files in the order given, later ones
replacing earlier ones), then auto against the heuristic's first answer (top-1), per phase, apart
where auto runs a record or cublas (the table's choice) and where it runs lt.heuristic itself
(one candidate: the ratio is the bench's noise).

    scripts/llm_summary.py CSV...     (oldest first)
"""
import sys

from plot_common import geomean, read


def main(paths):
    if not paths:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    latest = {}
    for path in paths:
        for r, _ in read(path):
            if r.get("status") == "ok":
                latest[r["shape"]] = (path, r)
    groups = {}
    for shape, (path, r) in latest.items():
        ratio = float(r["top1_over_auto"])
        chosen = r["auto_spelling"] != "lt.heuristic"
        for key in ((r["phase"], "all"), (r["phase"], "chosen" if chosen else "same")):
            groups.setdefault(key, []).append((ratio, shape, path))
    print(f"{len(latest)} shapes; auto vs top-1 (t_top1 / t_auto)")
    names = {"all": "all shapes", "chosen": "auto runs the table's choice",
             "same": "auto runs lt.heuristic (one candidate)"}
    for phase in ("decode", "prefill"):
        for part in ("all", "chosen", "same"):
            v = groups.get((phase, part), [])
            if not v:
                continue
            xs = [x[0] for x in v]
            print(f"  {phase:8s} {names[part]:40s} shapes {len(xs):3d}  geomean {geomean(xs):.3f}  "
                  f"min {min(xs):.3f}  max {max(xs):.3f}")
            for ratio, shape, path in sorted(v):
                if ratio < 0.99 and part != "all":
                    print(f"      under 0.99: {ratio:.3f}  {shape}  ({path})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
