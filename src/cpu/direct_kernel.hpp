// cpu.direct's arithmetic: every element of C summed in the native order (native_order.hpp)
// with scalar std::fma, for every scalar, form and layout. Included by direct.cpp (built for
// any x86-64, where std::fma may be a library call) and direct_fma.cpp (built with FMA
// enabled, one instruction); std::fma rounds once either way, so both give the same bits.
//
// Per column j of C, rows are taken a few at a time (then one at a time), never across the edge
// of the chained block: their sums are independent chains in registers, for one k slab, then
// the slab's epilogue writes them to C. Long real columns of op(A) = A instead keep up to
// kRows sums in an array, which the compiler vectorizes (axpy order). Either way each element
// sees its q in increasing order.
//
// The unnamed namespace gives each including file its own copy: the two builds differ in
// instructions, so they must not be merged by the linker.
#pragma once

#include <algorithm>
#include <cstdint>

#include "cpu/batch.hpp"
#include "cpu/native_order.hpp"

namespace gemmroute::cpu {
namespace {

// Where one column's rows are: op(A)'s element (i, q) is a[i * a_row + q * a_col], op(B)'s
// (q, j) is b[q * b_q] for this column j.
template <class T>
struct Column {
  const T* a;
  std::int64_t a_row, a_col;
  const T* b;
  std::int64_t b_q;
  T* c;
};

// C(i, j) for G rows from row i, over k slabs.
// Unit: op(A) = A, so a column's rows are adjacent (the compiler can vectorize over them).
template <class T, int G, bool Chained, bool Unit>
inline void direct_rows(const Column<T>& col, std::int64_t i, std::int64_t k,
                        const Epilogue<Real<T>>& first, const Epilogue<Real<T>>& later) {
  using R = Real<T>;
  const std::int64_t a_row = Unit ? 1 : col.a_row;
  const T* a = col.a + i * a_row;
  T* c = col.c + i;
  for (std::int64_t q0 = 0; q0 < k; q0 += kSlab) {
    const std::int64_t q1 = std::min(k, q0 + kSlab);
    const Epilogue<R>& e = q0 == 0 ? first : later;
    R s0[G] = {}, s1[G] = {}, s2[G] = {}, s3[G] = {};  // real: s0; complex: re/rr, im/ir, ri, ii
    for (std::int64_t q = q0; q < q1; ++q) {
      const T bq = col.b[q * col.b_q];
      const T* aq = a + q * col.a_col;
#pragma GCC unroll 8
      for (int g = 0; g < G; ++g) {
        const T x = aq[g * a_row];
        if constexpr (!kComplex<T>) {
          s0[g] = std::fma(x, bq, s0[g]);
        } else if constexpr (Chained) {
          step_chained(s0[g], s1[g], x.real(), x.imag(), bq.real(), bq.imag(), e);
        } else {
          step_split(s0[g], s1[g], s2[g], s3[g], x.real(), x.imag(), bq.real(), bq.imag());
        }
      }
    }
#pragma GCC unroll 8
    for (int g = 0; g < G; ++g) {
      if constexpr (!kComplex<T>) {
        c[g] = finish(s0[g], c + g, e);
      } else {
        if constexpr (Chained) s0[g] = -s0[g];  // re was kept negated
        if constexpr (!Chained) combine_split(s0[g], s1[g], s2[g], s3[g], e);
        c[g] = finish(s0[g], s1[g], c + g, e);
      }
    }
  }
}

// Real op(A) = A: rows [i, i + rows) of a column, rows <= kRows, their sums in an array, so
// the compiler vectorizes the row loop (axpy order: a column of A at a time).
inline constexpr std::int64_t kRows = 128;

template <class R>
inline void direct_rows_axpy(const Column<R>& col, std::int64_t i, std::int64_t rows,
                             std::int64_t k, const Epilogue<R>& first, const Epilogue<R>& later) {
  R s[kRows];
  const R* a = col.a + i;
  R* c = col.c + i;
  for (std::int64_t q0 = 0; q0 < k; q0 += kSlab) {
    const std::int64_t q1 = std::min(k, q0 + kSlab);
    const Epilogue<R>& e = q0 == 0 ? first : later;
    // The first step is fma(a, b, +0), as from a zeroed sum (so a -0 product gives +0).
    const R b0 = col.b[q0 * col.b_q];
    const R* a0 = a + q0 * col.a_col;
    for (std::int64_t r = 0; r < rows; ++r) s[r] = std::fma(a0[r], b0, R(0));
    for (std::int64_t q = q0 + 1; q < q1; ++q) {
      const R bq = col.b[q * col.b_q];
      const R* aq = a + q * col.a_col;
      for (std::int64_t r = 0; r < rows; ++r) s[r] = std::fma(aq[r], bq, s[r]);
    }
    for (std::int64_t r = 0; r < rows; ++r) c[r] = finish(s[r], c + r, e);
  }
}

// Rows [i0, i1) of one column.
template <class T, bool Chained, bool Unit>
inline void direct_range(const Column<T>& col, std::int64_t i0, std::int64_t i1, std::int64_t k,
                         const Epilogue<Real<T>>& first, const Epilogue<Real<T>>& later) {
  constexpr int G = kComplex<T> ? 4 : 8;
  std::int64_t i = i0;
  if constexpr (!kComplex<T> && Unit) {
    if (i1 - i0 >= 2 * G) {
      for (; i < i1; i += kRows) direct_rows_axpy(col, i, std::min(kRows, i1 - i), k, first, later);
      return;
    }
  }
  for (; i + G <= i1; i += G) direct_rows<T, G, Chained, Unit>(col, i, k, first, later);
  if constexpr (G > 4) {
    if (i + 4 <= i1) direct_rows<T, 4, Chained, Unit>(col, i, k, first, later), i += 4;
  }
  if (i + 2 <= i1) direct_rows<T, 2, Chained, Unit>(col, i, k, first, later), i += 2;
  if (i < i1) direct_rows<T, 1, Chained, Unit>(col, i, k, first, later);
}

template <class T, bool Unit>
void direct_columns(const Problem& p, const Epilogue<Real<T>>& first,
                    const Epilogue<Real<T>>& later, const T* a, const T* b, T* c) {
  const std::int64_t m = p.m, n = p.n, k = p.k;
  const std::int64_t b_j = p.tb == Op::N ? p.b.ld : 1;
  const std::int64_t chained_rows = main_rows<T>(m), chained_cols = main_cols<T>(n);
  Column<T> col{a, Unit ? 1 : p.a.ld, Unit ? p.a.ld : 1, b, p.tb == Op::N ? 1 : p.b.ld, c};
  for (std::int64_t j = 0; j < n; ++j) {
    col.b = b + j * b_j;
    col.c = c + j * p.c.ld;
    const std::int64_t edge = j < chained_cols ? chained_rows : 0;
    if (edge > 0) direct_range<T, true, Unit>(col, 0, edge, k, first, later);
    direct_range<T, false, Unit>(col, edge, m, k, first, later);
  }
}

template <class T>
void direct_item(const Problem& p, const Epilogue<Real<T>>& first, const Epilogue<Real<T>>& later,
                 const T* a, const T* b, T* c) {
  if (p.ta == Op::N) {
    direct_columns<T, true>(p, first, later, a, b, c);
  } else {
    direct_columns<T, false>(p, first, later, a, b, c);
  }
}

// The whole batch; the quick path (alpha == 0 or k == 0) is the caller's.
template <class T>
void direct_batch(const Problem& p) {
  const Epilogue<Real<T>> first = epilogue_of<T>(p), later = accumulating(first);
  for_each_item(p, [&](std::int64_t i) {
    direct_item<T>(p, first, later, p.item_a<T>(i), p.item_b<T>(i), p.item_c<T>(i));
  });
}

}  // namespace
}  // namespace gemmroute::cpu
