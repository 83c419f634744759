#!/usr/bin/env python3
"""Writes the seed corpus of the API fuzzer (tests/fuzz/api_fuzz.cpp) into tests/fuzz/api_corpus.

usage: make_api_corpus.py [OUT_DIR]

Each seed is one call in the fuzzer's input layout (docs/fuzzing.md): the reproductions of
issue 9 (a NaN alpha beside another item of one shape, a pin that runs one group of a grouped
call and not the next, enums outside their range, byte extents that overflow, scalars a float
cannot hold), special scalars in every form and scalar type, and plain valid calls for the
fuzzer to mutate from. Found-and-fixed inputs from fuzzing runs are added beside these by
hand (named found-*); this script never removes them.
"""
import os
import sys

# Byte values of the layout (see decode_* in api_fuzz.cpp).
STRIDED, ARRAYS, GROUPED = 0, 1, 2
F32, F64, C32, C64 = 0, 1, 2, 3
COL, ROW = 0, 4
N, T, C = 0, 3, 5
PIN = {"": 0, "openblas": 4, "openblas:par=item": 5, "cpu.small": 6, "cpu.tile": 7,
       "cpu.direct": 8, "cpu.nope": 9}
ROUTE = {None: 0, "auto": 4, "native": 5, "vendor": 6}
# Scalars (real parts).
ONE, HALF, MINUS_ONE, RANDOM, TWO, ZERO, MINUS_ZERO = 0, 1, 2, 3, 5, 6, 7
NAN, INF, MINUS_INF, DENORM_MIN, DENORMAL, QUARTER, NAN_PAYLOAD, NOT_A_FLOAT = (
    8, 9, 10, 11, 12, 13, 14, 15)
# Leading dimensions: the rows needed plus a pad, or a bad one.
LD_NEED, LD_PAD1, LD_PAD3, LD_PAD62, LD_SHORT, LD_ZERO, LD_2_61 = 0, 3, 6, 9, 10, 11, 12
# Strides (strided form).
S_BROADCAST, S_SPAN, S_SPAN1, S_NEG, S_HUGE = 0, 1, 2, 6, 7


def size(v):
    """A size byte: 0 .. 19 as themselves; -1, 2^40, INT64_MAX, 2^62 as 28 .. 31."""
    specials = {-1: 28, 1 << 40: 29, (1 << 63) - 1: 30, 1 << 62: 31}
    return specials[v] if v in specials else v


def header(form, kind, pin="", route=None, seed=0x1234567):
    return bytes([form]) + seed.to_bytes(4, "little") + bytes([PIN[pin], ROUTE[route], kind])


def item(m, n, k, dtype=None, order=COL, ta=N, tb=N, lds=(LD_NEED, LD_NEED, LD_NEED),
         alpha=(ONE, 1), beta=(HALF, 1), nulls=0, place=0):
    """One item block; alpha and beta are (real byte, imaginary byte): an imaginary byte of 1
    is 0; for complex types, a byte 4 * s is the scalar s."""
    out = [] if dtype is None else [dtype]
    out += [order, ta, tb, size(m), size(n), size(k), *lds, alpha[0], alpha[1], beta[0],
            beta[1], nulls, place]
    return bytes(out)


def strided(dtype, m, n, k, batch=3, strides=(S_SPAN, S_SPAN, S_SPAN), pin="", route=None,
            **kw):
    return (header(STRIDED, dtype, pin, route) + item(m, n, k, **kw) +
            bytes([batch, *strides]))


def arrays(dtype, m, n, k, batch=3, flags=(1, 1, 1), pin="", route=None, **kw):
    return header(ARRAYS, dtype, pin, route) + item(m, n, k, **kw) + bytes([batch, *flags])


def grouped(items, pin="", route=None):
    body = b""
    for it in items:
        body += bytes([1]) + it  # 1: not a clone of the previous item
    return header(GROUPED, len(items), pin, route) + body


def seeds():
    s = {}
    # Issue 9, defect 1: two items of one shape, item 0 alpha 1 and ldc 64, item 1 alpha NaN
    # and ldc 2 with its C ending at the guard page.
    s["issue9-nan-alpha-joins-group"] = grouped([
        item(2, 2, 2, F32, lds=(LD_NEED, LD_NEED, LD_PAD62), beta=(ZERO, 1)),
        item(2, 2, 2, F32, alpha=(NAN, 1), beta=(ZERO, 1), place=4)])
    s["issue9-nan-payload-beta-joins-group"] = grouped([
        item(3, 3, 3, F64, beta=(NAN_PAYLOAD, 1), place=7),
        item(3, 3, 3, F64, beta=(NAN, 1), lds=(LD_NEED, LD_NEED, LD_PAD3), place=4),
        item(3, 3, 3, F64, beta=(NAN_PAYLOAD, 1), place=4)])
    s["issue9-minus-zero-alpha-groups"] = grouped([
        item(4, 3, 2, C32, alpha=(ZERO, 1), beta=(ONE, 1)),
        item(4, 3, 2, C32, alpha=(MINUS_ZERO, 1), beta=(ONE, 1), lds=(LD_PAD1,) * 3)])
    # Defect 2: a pin that runs the first group and not the second.
    s["issue9-pin-fails-second-group"] = grouped([
        item(2, 2, 2, F32), item(17, 17, 17, F32)], pin="cpu.small")
    s["issue9-route-native-pin-vendor"] = grouped([item(2, 2, 2, F64)], pin="openblas",
                                                  route="native")
    # Defect 3: enums outside their range.
    s["issue9-grouped-dtype-9"] = grouped([item(2, 2, 2, 0x5C)])
    s["issue9-grouped-order-5"] = grouped([item(2, 2, 2, F32, order=31)])
    s["issue9-strided-order-5"] = strided(F32, 2, 2, 2, order=31)
    s["issue9-arrays-order-5"] = arrays(F64, 2, 2, 2, order=31)
    s["issue9-ta-invalid"] = strided(C64, 3, 2, 4, ta=7)
    s["issue9-tb-invalid-grouped"] = grouped([item(3, 2, 4, C32, tb=15)])
    s["issue9-route-invalid"] = strided(F32, 4, 4, 4, route=None)[:6] + bytes([7]) + \
        strided(F32, 4, 4, 4)[7:]
    # Byte extents that overflow 64 bits although the element extents fit.
    s["bytes-overflow-lda"] = strided(F64, 2, 2, 2, lds=(LD_2_61, LD_NEED, LD_NEED))
    s["bytes-overflow-grouped-ldb"] = grouped([item(2, 2, 2, C64,
                                                    lds=(LD_NEED, LD_2_61, LD_NEED))])
    s["bytes-overflow-stride"] = strided(F32, 2, 2, 2, strides=(S_SPAN, S_SPAN, S_HUGE))
    s["huge-ld-one-column"] = strided(F32, 3, 1, 1, batch=1, lds=(LD_NEED, LD_NEED, 14))
    # Grouped scalars a float item cannot hold, and an imaginary part on a real item.
    s["grouped-alpha-not-a-float"] = grouped([item(2, 2, 2, F32, alpha=(NOT_A_FLOAT, 1))])
    s["grouped-beta-imaginary-on-real"] = grouped([item(2, 2, 2, F64, beta=(HALF, 31))])
    # Argument errors: every one must leave C as it was.
    s["ld-short"] = strided(F32, 5, 4, 3, lds=(LD_SHORT, LD_NEED, LD_NEED))
    s["ld-zero-for-empty-rows"] = strided(F64, 0, 4, 3, lds=(LD_NEED, LD_NEED, LD_ZERO))
    s["negative-m"] = strided(F32, -1, 4, 3)
    s["negative-batch"] = strided(F32, 4, 4, 3, batch=7)
    s["negative-stride"] = strided(C32, 4, 4, 3, strides=(S_NEG, S_SPAN, S_SPAN))
    s["stride-c-zero"] = strided(F32, 4, 4, 3, strides=(S_SPAN, S_SPAN, S_BROADCAST))
    s["null-a"] = strided(F32, 4, 4, 3, nulls=13)
    s["null-c-arrays"] = arrays(F64, 4, 4, 3, nulls=15)
    s["null-entry-b"] = arrays(C64, 4, 4, 3, flags=(1, 0x1F, 1))
    s["grouped-null-c"] = grouped([item(2, 2, 2, F32), item(3, 3, 3, F32, nulls=15)])
    # BLAS semantics: alpha == 0 never reads A or B (null or NaN), beta == 0 never reads C.
    s["alpha-zero-null-ab"] = strided(F32, 4, 4, 3, alpha=(ZERO, 1), nulls=13)
    s["alpha-minus-zero"] = arrays(F64, 5, 3, 7, alpha=(MINUS_ZERO, 1))
    s["beta-zero-nan-c"] = strided(C32, 6, 5, 4, beta=(ZERO, 1))
    s["k-zero-nan-alpha"] = strided(F64, 4, 4, 0, alpha=(NAN, 1))
    s["m-zero-nothing-read"] = arrays(F32, 0, 4, 3, nulls=13)
    # Special scalars in every form and type.
    for dtype, name in ((F32, "f32"), (F64, "f64"), (C32, "c32"), (C64, "c64")):
        for label, alpha, beta in (("nan-alpha", NAN, HALF), ("inf-beta", ONE, INF),
                                   ("minus-inf-alpha", MINUS_INF, ONE),
                                   ("denorm-alpha", DENORM_MIN, HALF),
                                   ("denormal-beta", ONE, DENORMAL),
                                   ("nan-beta-payload", QUARTER, NAN_PAYLOAD)):
            s[f"{name}-strided-{label}"] = strided(dtype, 5, 4, 6, alpha=(alpha, 1),
                                                   beta=(beta, 1))
            s[f"{name}-arrays-{label}"] = arrays(dtype, 4, 6, 5, alpha=(alpha, 1),
                                                 beta=(beta, 1), order=ROW)
        cplx = dtype in (C32, C64)
        s[f"{name}-complex-scalars"] = strided(dtype, 3, 4, 5, ta=C, tb=T,
                                               alpha=(HALF, 4 * MINUS_ONE if cplx else 1),
                                               beta=(QUARTER, 4 * HALF if cplx else 1))
    # Plain valid calls: both orders, every form, padding, broadcast, every pin and route.
    for dtype in (F32, F64, C32, C64):
        for order in (COL, ROW):
            s[f"valid-strided-{dtype}-{order}"] = strided(
                dtype, 7, 5, 9, order=order, ta=T, lds=(LD_PAD1, LD_PAD3, LD_PAD1),
                strides=(S_SPAN1, S_BROADCAST, S_SPAN1), place=5)
            s[f"valid-arrays-{dtype}-{order}"] = arrays(
                dtype, 6, 8, 3, order=order, tb=C, flags=(0, 1, 1), batch=4)
        s[f"valid-grouped-{dtype}"] = grouped([
            item(3, 4, 5, dtype), item(16, 16, 16, dtype, ta=T), item(3, 4, 5, dtype, order=ROW),
            item(19, 2, 17, dtype, lds=(LD_PAD3,) * 3)])
    for pin in PIN:
        for route in ROUTE:
            s[f"pin-{pin or 'none'}-route-{route or 'unset'}"] = strided(
                F32, 8, 8, 8, batch=2, pin=pin, route=route)
    s["grouped-every-pin-cpu.tile"] = grouped([item(2, 3, 4, F64), item(18, 3, 2, C32)],
                                              pin="cpu.tile")
    return s


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__),
                                                             "api_corpus")
    os.makedirs(out, exist_ok=True)
    for name, data in seeds().items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    print(f"make_api_corpus: {len(seeds())} seeds in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
