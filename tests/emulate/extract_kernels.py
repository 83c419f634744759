#!/usr/bin/env python3
"""Writes the device code of src/cuda/small.cu, stream.cu or reg.cu (the kernels and their
helpers; for small.cu and stream.cu the host functions that set a launch up, not the launches;
for reg.cu the launch functions too) for small_emulated.cpp, stream_emulated.cpp or
reg_emulated.cpp to compile on the host: every reinterpret_cast becomes checked_cast, which
counts 16-byte accesses at addresses that are not 16-byte aligned, the dynamic shared memory is
the emulator's buffer, a kernel's static __shared__ arrays are function statics (one block runs
at a time) made NaN for each block as the dynamic buffer is, and a launch
K<<<grid, block, bytes, stream>>>(args) is emulate::launch's. Fails, naming it, where a line it
cuts at is gone or a __shared__ declaration is not one it rewrites.

    extract_kernels.py small.cu|stream.cu|reg.cu OUT
"""
import os
import re
import sys

# Per file, the parts taken: from the line starting with the first text to the line starting
# with the second, less `back` lines (a template line of the function cut at).
CUTS = {
    "small.cu": [
        ("constexpr int kThreads = 256;", "void launch_small(", 1),
        ("constexpr int kFusedGroups", "// `chained`: a launch of this call came before", 0),
    ],
    "stream.cu": [
        ("constexpr int kThreads = 256;", "void launch_stream(", 1),
    ],
    # reg.cu: everything but the candidate class, its launch functions included (their <<<>>>
    # launches become emulate::launch calls).
    "reg.cu": [
        ("constexpr int kThreads = 256;", "// One family member: its spelling", 0),
    ],
}
# Casts whose pointer is dereferenced only under a condition, checked only under it:
# stage_range's vector source is computed whatever the alignment, and read only where a whole
# vector is left.
WHEN = {"reinterpret_cast<const Vec<T>*>(src + h)": "vecs > 0"}


def find(lines, text, start, path):
    for i in range(start, len(lines)):
        if lines[i].startswith(text):
            return i
    sys.exit(f"extract_kernels.py: {path}: no line starts with {text!r}; update CUTS")


def checked(text):
    out, i, key = [], 0, "reinterpret_cast<"
    while True:
        j = text.find(key, i)
        if j < 0:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i:j])
        k, depth = j + len(key), 1
        while depth:
            depth += {"<": 1, ">": -1}.get(text[k], 0)
            k += 1
        assert text[k] == "(", text[j:k + 10]
        when = next((c for cast, c in WHEN.items() if text.startswith(cast, j)), "true")
        out.append(f"checked_cast<{text[j + len(key):k - 1]}>(__LINE__, {when}, ")
        i = k + 1


def main():
    path, out_path = sys.argv[1], sys.argv[2]
    lines = open(path).read().split("\n")
    parts, start = [], 0
    for first, end, back in CUTS[os.path.basename(path)]:
        a = find(lines, first, start, path)
        b = find(lines, end, a, path) - back
        body = "\n".join(lines[a:b])
        # Dynamic shared memory is the emulator's buffer; a kernel's static __shared__ arrays
        # are function statics (one block runs at a time), made NaN at each block's first
        # thread to declare them (emulate::poison_static); a launch K<<<grid, block, bytes,
        # stream>>>(args) runs the grid's blocks (emulate::launch).
        body = re.sub(r"extern __shared__ (__align__\(\d+\) )?(\w+(?: \w+)*) (\w+)\[\];",
                      lambda m: f"{m.group(2)}* {m.group(3)} = "
                                f"reinterpret_cast<{m.group(2)}*>(g_shared);", body)
        body = re.sub(r"\b__shared__ (?:__align__\((\d+)\) )?([\w:<>, ]+?) (\w+)((?:\[[^\]]+\])+);",
                      lambda m: (f"alignas({m.group(1)}) " if m.group(1) else "") +
                                f"static {m.group(2)} {m.group(3)}{m.group(4)}; "
                                f"::emulate::poison_static({m.group(3)}, sizeof({m.group(3)}));",
                      body)
        if "__shared__" in body:
            sys.exit(f"{path}: a __shared__ declaration this script does not know")
        body = re.sub(r"([\w:]+(?:<[^<>;]*>)?)<<<(.*?)>>>\(", r"::emulate::launch(\1, \2)(",
                      body, flags=re.S)
        parts.append(f'#line {a + 1} "{path}"\n{checked(body)}')
        start = b
    with open(out_path, "w") as f:
        f.write("\n".join(parts) + "\n")


if __name__ == "__main__":
    main()
