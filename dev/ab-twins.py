#!/usr/bin/env python3
"""An A/B timing of any family, shape by shape: each shipped spelling against its `:ab=1` twin.

    dev/ab-twins.py RESULTS.csv [RESULTS.csv...]

Each RESULTS.csv is `tune --shapes` output of an A/B build (scripts/gpu-check's AB_PATCHES: the
patched file built beside the shipped one, its spellings ending in `:ab=1`), every candidate
timed in one process; several are runs of the same shapes (the ratios of each, '/' between).
A line a shape: the best shipped spelling's median against the best twin's (over 1: the patch is
faster), then each spelling's shipped / twin, marked `!` where the two gave other bits (output
digest). Last, the geomean of best against best over the shapes of the first file.
"""
import csv
import math
import sys


def load(path):
    with open(path) as f:
        rows = csv.DictReader(line for line in f if not line.startswith('#'))
        times = {}
        for r in rows:
            if r['status'] != 'ok':
                continue
            key = (r['dtype'], r['ta'] + r['tb'], int(r['m']), int(r['n']), int(r['k']),
                   int(r['batch']), r['layout'])
            times.setdefault(key, {})[r['spelling']] = (float(r['median_us']), r['output_digest'])
    return times


def main(paths):
    runs = [load(p) for p in paths]
    ratios = []
    for key, first in runs[0].items():
        twins = {s: s.replace(':ab=1', '') for s in first if s.endswith(':ab=1')}
        shipped = [s for s in first if s in twins.values()]
        if not shipped:
            continue
        best_a = min(first[s][0] for s in shipped)
        best_b = min(first[s][0] for s in twins)
        ratios.append(best_a / best_b)
        parts = []
        for twin, s in sorted(twins.items(), key=lambda t: t[1]):
            if s not in first:
                continue
            r = [run[key][s][0] / run[key][twin][0] for run in runs
                 if key in run and s in run[key] and twin in run[key]]
            same = first[s][1] == first[twin][1]
            parts.append('%s %s%s' % (s, '/'.join('%.3f' % x for x in r), '' if same else ' !'))
        print('%s %s %dx%dx%d b%d %s | best %.1f / %.1f us = %.3f | %s' %
              (*key, best_a, best_b, best_a / best_b, ', '.join(parts)))
    if ratios:
        print('geomean best shipped / best twin: %.3f over %d shapes' %
              (math.exp(sum(map(math.log, ratios)) / len(ratios)), len(ratios)))


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
