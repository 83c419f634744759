#!/usr/bin/env python3
"""An A/B timing of cuda.reg, shape by shape: each tile against its twin, and cuBLAS.

    dev/ab-table.py RESULTS.csv

RESULTS.csv is `tune --shapes` output of an A/B build (next-call.sh 28, 28b, 28c: the patched
reg.cu built beside the shipped one, its spellings ending in `:ab=1`), every candidate timed in
one process. A line a shape: cuBLAS's median, then for the 128 x 128 and the 256 x 128 tile the
shipped kernel's median, its twin's, shipped / twin (over 1: the patch is faster) and whether
the two gave the same bits (output digest), then cuBLAS over the faster shipped tile and over
the faster twin (the issue's ratio, 0.9 its target).
"""
import csv
import sys

SMALL = 'cuda.reg:m=128:n=128:k=8:t=8'
BIG = 'cuda.reg:m=256:n=128:k=8:t=8x16'


def main(path):
    with open(path) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith('#')))
    by_shape = {}
    for r in rows:
        key = (r['ta'] + r['tb'], r['m'], r['n'], r['k'], 'b' + r['batch'], r['layout'])
        us = float(r['median_us']) if r['status'] == 'ok' else None
        by_shape.setdefault(key, {})[r['spelling']] = (us, r['output_digest'])
    print('form m n k batch layout | cublas us | 128: shipped twin speedup bits | '
          '256: shipped twin speedup bits | cublas/shipped cublas/twin')
    for key, times in by_shape.items():
        cublas = times.get('cublas', (None,))[0]
        out = [' '.join(key), f'{cublas:.1f}' if cublas else '-']
        best_shipped = best_twin = None
        for spelling in (SMALL, BIG):
            shipped = times.get(spelling, (None, None))
            twin = times.get(spelling + ':ab=1', (None, None))
            if shipped[0] and twin[0]:
                bits = 'same' if shipped[1] == twin[1] else 'DIFF'
                out.append(f'{shipped[0]:.1f} {twin[0]:.1f} {shipped[0] / twin[0]:.3f} {bits}')
                best_shipped = min(best_shipped or shipped[0], shipped[0])
                best_twin = min(best_twin or twin[0], twin[0])
            else:
                out.append('-')
        if cublas and best_shipped:
            out.append(f'{cublas / best_shipped:.3f} {cublas / best_twin:.3f}')
        print(' | '.join(out))


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
