// The one summation order of every native CPU kernel (cpu.small, cpu.tile, cpu.direct): for a
// given problem, each element of C is computed by the same sequence of roundings whichever of
// them runs, so the table's choice among them never changes a bit.
//
// Per element of C, for each k slab of at most kSlab steps (q in increasing order), from
// zero, where a and b are the stored elements of op(A) and op(B) (conjugation is never applied
// to them: it is the sign pattern below and, for A, the epilogue's alpha pattern):
//   real:               acc = fma(a, b, acc)
//   complex, split:     rr = fma(ar, br, rr); ir = fma(ai, br, ir);
//                       ri = fma(ar, bi, ri); ii = fma(ai, bi, ii);
//                       then once: re = fma(ii, sign.re, rr), im = fma(ri, sign.im, ir)
//   complex, chained:   re kept negated, x = -re (x and im from +0), f = -1 when exactly one
//                       operand is conjugated, else 1:
//                       x = fma(ar, br, -x); im = fma(ai, br, im);
//                       x = fma(ai, f bi, -x); im = fma(ar, f bi, im); then re = -x once
// then the slab's epilogue (finish) writes C; the first slab applies alpha and beta, later ones
// add to C with beta = 1.
//
// Which complex elements are chained: those in the first main_rows(m) rows and main_cols(n)
// columns (4 rows of c64 or 8 of c32 at a time, 6 columns at a time); all others are split.
// That is where OpenBLAS 0.3.21's own complex kernels on AVX2 (the Haswell and Zen ones) use
// their chained main block and where they use split sums, so for the calls LAPACK makes
// (alpha = +-1, beta 0 or 1) that OpenBLAS runs on one thread with k <= 192, the native
// kernels give OpenBLAS's bits: a drop-in program keeps the vendor's rounding. The chained
// form costs a swap of each vector of A per step (what that costs and why it is worth it:
// docs/decisions.md).
//
// The vector kernels (small_kernels.cpp) do these operations lane by lane with the constants
// of epilogue_of; cpu.direct does them one element at a time with std::fma.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <type_traits>

#include "core/problem.hpp"

namespace gemmroute::cpu {

// k per slab: cpu.tile keeps a row block's slab of op(A) in L1; cpu.direct cuts k the same way.
inline constexpr std::int64_t kSlab = 256;

template <class T>
inline constexpr bool kComplex = !std::is_floating_point_v<T>;
template <class T>
using Real = decltype(std::real(T{}));

// The chained block of complex C: rows [0, main_rows(m)), columns [0, main_cols(n)).
template <class T>
inline constexpr std::int64_t kMainRows = std::is_same_v<T, std::complex<double>> ? 4 : 8;
inline constexpr std::int64_t kMainCols = 6;
template <class T>
constexpr std::int64_t main_rows(std::int64_t m) {
  return kComplex<T> ? m / kMainRows<T> * kMainRows<T> : 0;
}
template <class T>
constexpr std::int64_t main_cols(std::int64_t n) {
  return kComplex<T> ? n / kMainCols * kMainCols : 0;
}

// The constants of one slab's epilogue, per lane (0: re, 1: im; real scalars use lane 0).
// Real: C <- alpha_p acc + beta_p C. Complex: alpha w (or alpha conj(w) when A is
// conjugated) is alpha_p w + alpha_q swap(w), and beta c is beta_p c + beta_q swap(c).
template <class R>
struct Epilogue {
  R alpha_p[2], alpha_q[2], beta_p[2], beta_q[2];
  R sign[2];  // op(A) op(B), or op(A) conj(op(B)) when exactly one operand is conjugated
  bool beta_zero;
};

template <class T>
Epilogue<Real<T>> epilogue_of(const Problem& p) {
  using R = Real<T>;
  Epilogue<R> e{};
  const T alpha = p.alpha_as<T>(), beta = p.beta_as<T>();
  if constexpr (kComplex<T>) {
    const R ar = alpha.real(), ai = alpha.imag(), br = beta.real(), bi = beta.imag();
    const bool conj_a = p.ta == Op::C, flip = conj_a != (p.tb == Op::C);
    e.sign[0] = flip ? R(1) : R(-1);
    e.sign[1] = flip ? R(-1) : R(1);
    e.alpha_p[0] = ar;
    e.alpha_p[1] = conj_a ? -ar : ar;
    e.alpha_q[0] = conj_a ? ai : -ai;
    e.alpha_q[1] = ai;
    e.beta_p[0] = e.beta_p[1] = br;
    e.beta_q[0] = -bi;
    e.beta_q[1] = bi;
  } else {
    e.alpha_p[0] = e.alpha_p[1] = alpha;
    e.beta_p[0] = e.beta_p[1] = beta;
  }
  e.beta_zero = beta == T(0);
  return e;
}

// Later k slabs add to what the first one wrote: beta = 1.
template <class R>
Epilogue<R> accumulating(Epilogue<R> e) {
  e.beta_p[0] = e.beta_p[1] = R(1);
  e.beta_q[0] = e.beta_q[1] = R(0);
  e.beta_zero = false;
  return e;
}

// The scalar form of the operations, one element at a time (cpu.direct). Sums are kept as
// the vector kernels keep their lanes: real acc; complex chained (x = -re, im), as fmaddsub
// leaves them, from +0; complex split rr, ir (products with b.re) and ri, ii (with b.im).
template <class R>
inline void step_chained(R& x, R& im, R ar, R ai, R br, R bi, const Epilogue<R>& e) {
  const R f = e.sign[0] > 0 ? -bi : bi;
  x = std::fma(ar, br, -x);
  im = std::fma(ai, br, im);
  x = std::fma(ai, f, -x);
  im = std::fma(ar, f, im);
}
template <class R>
inline void step_split(R& rr, R& ir, R& ri, R& ii, R ar, R ai, R br, R bi) {
  rr = std::fma(ar, br, rr);
  ir = std::fma(ai, br, ir);
  ri = std::fma(ar, bi, ri);
  ii = std::fma(ai, bi, ii);
}
// A split sum as the chained form: op(A) op(B), or op(A) conj(op(B)).
template <class R>
inline void combine_split(R& rr, R& ir, R ri, R ii, const Epilogue<R>& e) {
  rr = std::fma(ii, e.sign[0], rr);
  ir = std::fma(ri, e.sign[1], ir);
}

// C's new value from the slab's sum; c is read only when beta is not 0.
template <class R>
inline R finish(R acc, const R* c, const Epilogue<R>& e) {
  R r = acc * e.alpha_p[0];
  if (!e.beta_zero) r = std::fma(*c, e.beta_p[0], r);
  return r;
}
template <class R>
inline std::complex<R> finish(R wr, R wi, const std::complex<R>* c, const Epilogue<R>& e) {
  R re = std::fma(wr, e.alpha_p[0], wi * e.alpha_q[0]);
  R im = std::fma(wi, e.alpha_p[1], wr * e.alpha_q[1]);
  if (!e.beta_zero) {
    const R cr = c->real(), ci = c->imag();
    re = std::fma(cr, e.beta_p[0], std::fma(ci, e.beta_q[0], re));
    im = std::fma(ci, e.beta_p[1], std::fma(cr, e.beta_q[1], im));
  }
  return {re, im};
}

}  // namespace gemmroute::cpu
