#!/usr/bin/env python3
"""Writes bench/shapes/llm.txt (one decoder layer's GEMMs of two common models at decode and
prefill token counts) and the three one-layer sequences `bench --lt --replay` times.

    scripts/llm_shapes.py        # from the repository root
"""
MODELS = [
    ("Llama-3-8B (hidden 4096, 32 heads, 8 KV heads, FFN 14336)", "8b",
     [("qkv", 6144, 4096), ("o", 4096, 4096), ("gate_up", 28672, 4096), ("down", 4096, 14336)]),
    ("Llama-3-70B (hidden 8192, 64 heads, 8 KV heads, FFN 28672)", "70b",
     [("qkv", 10240, 8192), ("o", 8192, 8192), ("gate_up", 57344, 8192), ("down", 8192, 28672)]),
]
DECODE = [1, 2, 4, 8, 16, 32, 64, 128, 256]
PREFILL = [512, 1024, 2048, 4096, 8192, 16384]
HEADER = """\
# The GEMMs of one decoder layer of two common models, as an ML runtime calls them (bf16
# weights and activations, bf16 out, f32 compute): y = x W^T with W [out, in] and x [tokens, in]
# row-major is, column-major, C (out x tokens) = op(A) B with A = W stored (in x out), op(A) = A^T:
# key `bf16 T N packed out tokens in 1`. Projections: qkv (fused q, k, v), o, gate_up (fused
# gate and up), down. Tokens 1..256 are decode steps, 512..16384 prefill (bench --lt splits the
# summary there). Made by scripts/llm_shapes.py; tuning/llm.spec measures them.
"""


def key(out, tokens, inner):
    return "bf16 T N packed %d %d %d 1" % (out, tokens, inner)


def layer(path, title, tag, projs, tokens):
    lines = ["# One %s decoder layer's GEMMs at %d tokens, in the order a forward pass runs them"
             % (title.split(" ")[0], tokens),
             "# (qkv, o, gate_up, down): `bench --lt --replay` times them as one step. Made by",
             "# scripts/llm_shapes.py."]
    lines += [key(o, tokens, i) for _, o, i in projs]
    open(path, "w").write("\n".join(lines) + "\n")


def main():
    out = [HEADER]
    for title, tag, projs in MODELS:
        out.append("# " + title)
        for phase, toks in (("decode", DECODE), ("prefill", PREFILL)):
            for t in toks:
                out.append("# %s %s, %d tokens: %s" % (tag, phase, t, ", ".join(p for p, _, _ in projs)))
                out += [key(o, t, i) for _, o, i in projs]
    open("bench/shapes/llm.txt", "w").write("\n".join(out) + "\n")
    layer("bench/shapes/llm-layer-8b-4096.txt", MODELS[0][0], "8b", MODELS[0][2], 4096)
    layer("bench/shapes/llm-layer-70b-16.txt", MODELS[1][0], "70b", MODELS[1][2], 16)
    layer("bench/shapes/llm-layer-8b-16.txt", MODELS[0][0], "8b", MODELS[0][2], 16)


if __name__ == "__main__":
    main()
