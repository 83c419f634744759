#!/usr/bin/env python3
"""Each kernel's SASS in one or more cubins, as a short hash a kernel, side by side.

    dev/sass-kernels.py A.cubin [B.cubin ...]

A kernel whose hash is the same in two cubins runs the same instructions: the addresses, the
branch labels' numbers, the anonymous namespace's name (which follows the file's path) and the
numbers of the compiler's helper routines (`$__internal_N_$__cuda_sm20_rem_s64`) and the
kernel's own name where its body names it (a return) are left out, so a kernel given another
template argument keeps its hash. So a landing can show, kernel by kernel, that what it ships is
what ran on the GPU (the shipped kernel or an A/B build's twin; docs/decisions.md, "GPU changes
that have not run on a GPU wait as patches"). Compile each version of a file at the same path
(`nvcc -std=c++20 -arch=sm_90 -O3 -cubin -I src -I include src/cuda/FILE.cu -o X.cubin`). Needs
nvdisasm ($NVDISASM, else on PATH; the CUDA toolkit has it, or the PyPI wheel
nvidia-cuda-nvdisasm).
"""
import hashlib
import os
import re
import subprocess
import sys

ANON = re.compile(r'\d*_GLOBAL__N__[0-9a-f]+_\d+_\w+?_cu_[0-9a-f]+')
LABEL = re.compile(r'\.L_x_\d+')
# The compiler's helper routines (64-bit division and the like) are numbered in the order the
# file's kernels call them: one kernel more renumbers them all.
INTERNAL = re.compile(r'__internal_\d+_')


def kernels(cubin):
    nvdisasm = os.environ.get('NVDISASM', 'nvdisasm')
    text = subprocess.run([nvdisasm, '-c', cubin], capture_output=True, text=True,
                          check=True).stdout
    bodies, name = {}, None
    for line in text.splitlines():
        if line.startswith('.text.'):
            name = ANON.sub('', line[len('.text.'):].rstrip(':'))
            bodies[name] = []
        elif name:
            m = re.match(r'\s+/\*[0-9a-f]+\*/\s+(.*)', line)
            if m:
                bodies[name].append(m.group(1))
            elif LABEL.fullmatch(line.strip().rstrip(':')):
                bodies[name].append(line.strip())
    hashes = {}
    for name, body in bodies.items():
        labels = {}

        def renumber(m):
            return labels.setdefault(m.group(0), f'L{len(labels)}')

        text = '\n'.join(INTERNAL.sub('__internal_', ANON.sub('', LABEL.sub(renumber, x)))
                         .replace(name, 'SELF') for x in body)
        hashes[name] = hashlib.sha1(text.encode()).hexdigest()[:12]
    return hashes


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    maps = [kernels(c) for c in sys.argv[1:]]
    for name in sorted(set().union(*maps)):
        row = [m.get(name, '-' * 12) for m in maps]
        print(' '.join(row), 'same' if len(set(row)) == 1 else 'DIFF', name)


if __name__ == '__main__':
    main()
