// cpu.small kernels: fixed-size GEMM for matrices up to 16 x 16 x 16, in the manner of LIBXSMM.
// For real scalars f32 and f64; complex items run four real products on split planes
// (re = Ar Br + Ai (-Bi), im = Ar Bi + Ai Br) with the same kernels.
//
// The idea: per item, copy op(A) into a zero-padded (KB, MB) block and op(B) into (NB, KB),
// then one fully unrolled product over compile-time MB x NB x KB buckets (4, 8 or 16 each)
// keeps the accumulator tile in registers and every inner loop a fixed-length vector loop.
// Packing folds transposition, conjugation and leading dimensions away, so one kernel serves
// every form and layout. The batch is spread over threads, one item per thread at a time.
#include "cpu/small_kernels.hpp"

#include <array>
#include <complex>
#include <cstring>

#include "cpu/batch.hpp"

namespace gemmroute::cpu {
namespace {

// acc(MB, NB) += a(MB, KB) * b(KB, NB); a is stored [q][i], b is stored [j][q].
template <class R, int MB, int NB, int KB>
void product(const R* __restrict a, const R* __restrict b, R* __restrict acc) {
  for (int j = 0; j < NB; ++j) {
    R col[MB];
    for (int i = 0; i < MB; ++i) col[i] = acc[j * MB + i];
    for (int q = 0; q < KB; ++q) {
      const R bq = b[j * KB + q];
      for (int i = 0; i < MB; ++i) col[i] += a[q * MB + i] * bq;
    }
    for (int i = 0; i < MB; ++i) acc[j * MB + i] = col[i];
  }
}

template <class R, int MB, int NB, int KB>
struct Tile {
  alignas(64) R a[2][KB * MB];   // real and imaginary planes of op(A)
  alignas(64) R b[3][NB * KB];   // re, im and -im planes of op(B)
  alignas(64) R acc[2][NB * MB];
};

template <class T> constexpr bool kComplex = !std::is_floating_point_v<T>;

template <class T> auto re(T v) {
  if constexpr (kComplex<T>) return v.real(); else return v;
}
template <class T> auto im(T v) {
  if constexpr (kComplex<T>) return v.imag(); else return decltype(v)(0);
}

template <class T, int MB, int NB, int KB>
void run_item(const Problem& p, const T* A, const T* B, T* C) {
  using R = decltype(re(T{}));
  Tile<R, MB, NB, KB> t;
  std::memset(&t, 0, sizeof t);
  const std::int64_t m = p.m, n = p.n, k = p.k, lda = p.a.ld, ldb = p.b.ld, ldc = p.c.ld;
  const R sa = p.ta == Op::C ? R(-1) : R(1), sb = p.tb == Op::C ? R(-1) : R(1);
  for (std::int64_t q = 0; q < k; ++q) {
    for (std::int64_t i = 0; i < m; ++i) {
      const T v = p.ta == Op::N ? A[i + q * lda] : A[q + i * lda];
      t.a[0][q * MB + i] = re(v);
      if constexpr (kComplex<T>) t.a[1][q * MB + i] = sa * im(v);
    }
  }
  for (std::int64_t j = 0; j < n; ++j) {
    for (std::int64_t q = 0; q < k; ++q) {
      const T v = p.tb == Op::N ? B[q + j * ldb] : B[j + q * ldb];
      t.b[0][j * KB + q] = re(v);
      if constexpr (kComplex<T>) {
        t.b[1][j * KB + q] = sb * im(v);
        t.b[2][j * KB + q] = -sb * im(v);
      }
    }
  }
  product<R, MB, NB, KB>(t.a[0], t.b[0], t.acc[0]);
  if constexpr (kComplex<T>) {
    product<R, MB, NB, KB>(t.a[1], t.b[2], t.acc[0]);
    product<R, MB, NB, KB>(t.a[0], t.b[1], t.acc[1]);
    product<R, MB, NB, KB>(t.a[1], t.b[0], t.acc[1]);
  }
  const T alpha = p.alpha_as<T>(), beta = p.beta_as<T>();
  for (std::int64_t j = 0; j < n; ++j) {
    T* cj = C + j * ldc;
    for (std::int64_t i = 0; i < m; ++i) {
      T v;
      if constexpr (kComplex<T>) {
        v = T(t.acc[0][j * MB + i], t.acc[1][j * MB + i]);
      } else {
        v = t.acc[0][j * MB + i];
      }
      cj[i] = beta == T(0) ? alpha * v : alpha * v + beta * cj[i];
    }
  }
}

constexpr int bucket(std::int64_t x) { return x <= 4 ? 0 : x <= 8 ? 1 : 2; }

template <class T, int MB, int NB, int KB>
void run_batch(const Problem& p) {
  for_each_item(p, [&](std::int64_t i) {
    run_item<T, MB, NB, KB>(p, p.item_a<T>(i), p.item_b<T>(i), p.item_c<T>(i));
  });
}

// The 27 (MB, NB, KB) buckets as a table of function pointers per scalar.
template <class T>
using BatchFn = void (*)(const Problem&);

template <class T, std::size_t... I>
constexpr std::array<BatchFn<T>, 27> make_table(std::index_sequence<I...>) {
  constexpr int sizes[] = {4, 8, 16};
  return {&run_batch<T, sizes[I / 9], sizes[(I / 3) % 3], sizes[I % 3]>...};
}

template <class T>
void small_typed(const Problem& p) {
  static constexpr auto table = make_table<T>(std::make_index_sequence<27>{});
  table[bucket(p.m) * 9 + bucket(p.n) * 3 + bucket(p.k)](p);
}

}  // namespace

void small_gemm(const Problem& p) {
  dispatch(p.dtype, [&]<class T>() { small_typed<T>(p); });
}

}  // namespace gemmroute::cpu
