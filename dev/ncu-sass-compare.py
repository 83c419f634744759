"""Kernels' ncu source pages (per-instruction counts and stall samples) side by side.

    dev/ncu-sass-compare.py SASS.csv [SASS.csv ...]

Each file is what `ncu --page source --csv --print-source sass` wrote for one kernel (the
`sass-*.csv` of dev/pending/reg-profile.sh's archives). For each kernel: instructions executed,
stall samples by reason (the whole kernel, and the hot loop: instructions executed at least half
as often as the most executed one), the share of issued placeholders (`@!PT LDS RZ, [RZ]`,
never executed but issued), the share of FFMAs whose result goes to another register than the
one they add (accumulators renamed by the allocator), and dispatch-stall samples per million
FFMAs executed. Reads only the files; times nothing.
"""
import csv
import io
import re
import sys

PLACEHOLDER = re.compile(r'@!PT\s+LDS\b')
REGISTER = re.compile(r'\bR(\d+|Z)\b')


def rows(path):
    lines = open(path, encoding='utf-8', errors='replace').read().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('"Address"'))
    table = list(csv.reader(io.StringIO('\n'.join(lines[start:]))))
    return [dict(zip(table[0], r)) for r in table[1:]]


def number(text):
    try:
        return float(text.replace(',', ''))
    except (AttributeError, ValueError):
        return 0.0


def summary(path):
    code = rows(path)
    executed = [number(r.get('Instructions Executed')) for r in code]
    top = max(executed)
    reasons = [k for k in code[0] if k.startswith('stall_') and 'Not Issued' not in k]
    whole = {k: sum(number(r[k]) for r in code) for k in reasons}
    hot = {k: sum(number(r[k]) for r, e in zip(code, executed) if e >= top / 2) for k in reasons}
    total = sum(executed)
    placeholders = sum(e for r, e in zip(code, executed) if PLACEHOLDER.search(r['Source']))
    ffma = [(r, e) for r, e in zip(code, executed) if re.search(r'\bFFMA\b', r['Source'])]
    ffma_total = sum(e for _, e in ffma)
    renamed = 0.0
    for r, e in ffma:
        regs = REGISTER.findall(r['Source'])
        if len(regs) >= 4 and regs[0] != regs[3]:
            renamed += e
    dispatch = sum(number(r['stall_dispatch']) for r, _ in ffma)
    return {
        'instructions (M)': total / 1e6,
        'placeholders (% of instructions)': 100 * placeholders / total,
        'FFMA (M)': ffma_total / 1e6,
        'FFMA accumulator renamed (%)': 100 * renamed / max(ffma_total, 1),
        'FFMA dispatch stalls per 1M FFMA': dispatch / max(ffma_total, 1) * 1e6,
        **{f'{k} (all / hot loop)': f'{whole[k]:.0f} / {hot[k]:.0f}' for k in reasons},
    }


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    columns = [summary(p) for p in sys.argv[1:]]
    names = [p.rsplit('/', 1)[-1] for p in sys.argv[1:]]
    print(f'{"":42}' + ''.join(f'{n:>24}' for n in names))
    for key in columns[0]:
        cells = []
        for c in columns:
            v = c.get(key, '')
            cells.append(f'{v:>24.2f}' if isinstance(v, float) else f'{v:>24}')
        print(f'{key:42}' + ''.join(cells))


if __name__ == '__main__':
    main()
