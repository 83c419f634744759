#!/usr/bin/env python3
"""Shared-memory wavefronts of the f32 grouped 4 x 4 launch (src/cuda/small.cu, staged along k),
by phase, for bench --grouped's square N N items: a model, not a measurement.

The kernel's index arithmetic is replayed in Python for one or a few blocks of each item size
(17..64, the sizes the 4 x 4 tile takes): the staging of A (transposed: element (r, c) of an item
at c + r * lda_s) and of B (as stored, or padded), each from the block's items as one range of
16-byte vectors with a scalar head and tail, and the k loop's shared loads. A warp instruction
costs, in the model, the most distinct 4-byte words it touches in any one of the 32 banks (a
16-byte access touches four banks in a row); lanes that read one word share it. The sum over a
mix's blocks compares variants of the kernel before a GPU times them; it leaves out global
memory, instruction issue and latency. ncu put the launch's L1 throughput at 74% and its issue
slots at 59% (bench/results/h200/README.md, "Staged along k"), so fewer wavefronts should show.

  scripts/grouped_wavefronts.py [--items N] [--mix uniform|small80]

Variants (the patches of dev/pending/): shipped; `02` (a dense operand written one 16-byte store a
vector); `05` (B's rows padded to along_k_ld wherever k is not a multiple of 4, so the loop reads
B in 16-byte runs); `05+02`; and `rotated`, a what-if with no patch (each lane stores its vector's
four elements starting at element lane % 4, spreading a transposed store over more banks).
"""
import argparse
import collections
import math

KERNEL_THREADS = 256
SHARED_BYTES = 96 * 1024


def along_k_ld(k, v=4):
    """The least multiple of v whose quotient by v is odd, at least k (small.cu's along_k_ld)."""
    return v * (((k + v - 1) // v) | 1)


def wavefronts(accesses):
    """accesses: (first word, words) per active lane of one warp instruction."""
    banks = collections.defaultdict(set)
    for first, words in accesses:
        for w in range(first, first + words):
            banks[w % 32].add(w)
    return max((len(s) for s in banks.values()), default=0)


def block_wavefronts(s, items, phase, variant):
    """One block of `items` square items of side s whose range starts `phase` floats past a
    16-byte boundary: wavefronts by phase (A and B staging, the loop's A and B loads)."""
    m = n = k = s
    side = (s + 3) // 4
    pad_b = "05" in variant and k % 4 != 0
    lda = along_k_ld(k)
    ldb = along_k_ld(k) if pad_b else k
    region_a, region_b = lda * m, ldb * n
    out = collections.Counter()
    for op in "AB":
        rows, cols = (m, k) if op == "A" else (k, n)
        per = rows * cols
        total = per * items
        base = 0 if op == "A" else items * region_a

        def staged(e):
            item, local = divmod(e, per)
            c, r = divmod(local, rows)
            if op == "A":
                return base + item * region_a + c + r * lda
            return base + (item * region_b + r + c * ldb if pad_b else e)

        head = min((4 - phase) % 4, total)
        vecs = (total - head) // 4
        for lo, hi in ((0, head), (head + 4 * vecs, total)):  # scalar head and tail
            for e0 in range(lo, hi, 32):
                out[op + " staging"] += wavefronts([(staged(e), 1) for e in range(e0, min(e0 + 32, hi))])
        dense = op == "B" and not pad_b
        for w0 in range(0, vecs, 32):
            lanes = range(w0, min(w0 + 32, vecs))
            if dense and "02" in variant and (base + head) % 4 == 0:
                out[op + " staging"] += wavefronts([(base + head + 4 * w, 4) for w in lanes])
                continue
            for l in range(4):
                rot = "rotated" in variant and op == "A"
                out[op + " staging"] += wavefronts(
                    [(staged(head + 4 * w + ((l + w) % 4 if rot else l)), 1) for w in lanes])
    b0 = items * region_a
    for warp in range(0, KERNEL_THREADS, 32):
        lanes = []
        for t in range(warp, warp + 32):
            slot = t // (side * side)
            if slot < items:
                ti, tj = (t % (side * side)) % side, (t % (side * side)) // side
                lanes.append((slot, [min(ti + u * side, m - 1) for u in range(4)],
                              [min(tj + u * side, n - 1) for u in range(4)]))
        for q in range(0, k - k % 4, 4):
            for u in range(4):
                out["loop A"] += wavefronts([(sl * region_a + ia[u] * lda + q, 4) for sl, ia, _ in lanes])
            for v in range(4):
                if ldb % 4 == 0:
                    out["loop B"] += wavefronts(
                        [(b0 + sl * region_b + jb[v] * ldb + q, 4) for sl, _, jb in lanes])
                else:  # the scalar path: four loads a run
                    for w in range(4):
                        out["loop B"] += wavefronts(
                            [(b0 + sl * region_b + jb[v] * ldb + q + w, 1) for sl, _, jb in lanes])
        for q in range(k - k % 4, k):
            for u in range(4):
                out["loop A"] += wavefronts([(sl * region_a + ia[u] * lda + q, 1) for sl, ia, _ in lanes])
            for v in range(4):
                out["loop B"] += wavefronts([(b0 + sl * region_b + jb[v] * ldb + q, 1) for sl, _, jb in lanes])
    return out


def mix_wavefronts(counts, variant, sample_blocks=4):
    """Sum over sizes (count items each) of every block's wavefronts, from up to sample_blocks
    blocks a size (their range phases differ)."""
    total = collections.Counter()
    for s, count in counts.items():
        side = (s + 3) // 4
        pad_b = "05" in variant and s % 4 != 0
        region = (along_k_ld(s) + (along_k_ld(s) if pad_b else s)) * s * 4
        items = max(1, min(KERNEL_THREADS // (side * side), SHARED_BYTES // region, count))
        blocks = math.ceil(count / items)
        sampled = min(blocks, sample_blocks)
        for b in range(sampled):
            phase = (b * items * s * s) % 4  # a size's items lie back to back from a boundary
            for key, v in block_wavefronts(s, items, phase, variant).items():
                total[key] += v * blocks / sampled
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=10000)
    ap.add_argument("--mix", choices=["uniform", "small80"], default="uniform")
    a = ap.parse_args()
    # The expected count of each size 17..64 (bench --grouped draws sizes at random).
    share = 1 / 64 if a.mix == "uniform" else 0.2 / 48
    counts = {s: max(1, round(a.items * share)) for s in range(17, 65)}
    print(f"f32 {a.mix}, {a.items} items: the 4 x 4 launch's shared-memory wavefronts (model)")
    print(f"{'variant':14s} {'A staging':>10s} {'B staging':>10s} {'loop A':>10s} {'loop B':>10s} "
          f"{'total':>10s} {'vs shipped':>10s}")
    shipped = None
    for name in ["shipped", "02", "05", "05+02", "rotated", "05+02+rotated"]:
        t = mix_wavefronts(counts, set(name.split("+")))
        whole = sum(t.values())
        shipped = shipped or whole
        print(f"{name:14s} {t['A staging']:10.0f} {t['B staging']:10.0f} {t['loop A']:10.0f} "
              f"{t['loop B']:10.0f} {whole:10.0f} {whole / shipped:10.2f}")


if __name__ == "__main__":
    main()
