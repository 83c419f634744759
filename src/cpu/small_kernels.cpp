// cpu.small kernels: C <- alpha op(A) op(B) + beta C per item, for m, n, k <= 16, in the
// manner of LIBXSMM. Scalars f32, f64, c32, c64; forms N, T, C for A and B; any leading
// dimensions, strided, broadcast (stride 0) and pointer-array batches.
//
// The idea: a register-blocked micro-kernel. A block of C, MV vectors of rows by NR columns,
// stays in YMM accumulators for the whole k loop; each step loads one column of op(A) as MV
// vectors and broadcasts NR elements of op(B) straight from memory (the form of B is only a
// pair of strides), one FMA per accumulator, nothing packed, nothing cleared per item. op(A)
// is read in place when ta == N (masked loads and stores only where m is not whole vectors);
// for T and C it is first transposed into a small zero-padded buffer. Complex scalars stay
// interleaved: a (re, im) vector of A meets broadcasts of b.re and b.im in two accumulator
// sets, and the epilogue combines them and resolves conjugation of A or B by sign patterns
// folded into alpha, so no form needs its own kernel. Sizes are not buckets: k is a loop
// count and m, n choose how C is cut into blocks, once per batch (Plan).
//
// Template instantiations: block<R, complex, MV, NR> with MV x NR accumulators at most 12
// (complex: 2 MV NR at most 12): f32 14 (MV 1-2), f64 21 (MV 1-4), c32 12 and c64 12
// (MV 1-4; c64 items of more than 8 rows run as two row blocks): 59 kernels in all.
#include "cpu/small_kernels.hpp"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <complex>
#include <utility>

#include "cpu/batch.hpp"

namespace gemmroute::cpu {
namespace {

// The few AVX2 operations the kernels use, for R = float (8 lanes) or double (4 lanes).
template <class R>
struct Vec;

template <>
struct Vec<double> {
  using V = __m256d;
  static constexpr int lanes = 4;
  static V zero() { return _mm256_setzero_pd(); }
  static V set1(double x) { return _mm256_set1_pd(x); }
  static V pair(double re, double im) { return _mm256_setr_pd(re, im, re, im); }
  static V load(const double* p) { return _mm256_loadu_pd(p); }
  static V load(const double* p, __m256i mask) { return _mm256_maskload_pd(p, mask); }
  static void store(double* p, V v) { _mm256_storeu_pd(p, v); }
  // The first `valid` (1-3) lanes, in 128- and 64-bit pieces: AVX2 masked stores are slow on
  // some cores (AMD Zen among them), and this one runs for every column of a ragged block.
  static void store_first(double* p, V v, int valid) {
    __m128d lo = _mm256_castpd256_pd128(v);
    if (valid >= 2) {
      _mm_storeu_pd(p, lo);
      lo = _mm256_extractf128_pd(v, 1);
      p += 2;
    }
    if (valid & 1) _mm_store_sd(p, lo);
  }
  static V bcast(const double* p) { return _mm256_broadcast_sd(p); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  static V mul(V a, V b) { return _mm256_mul_pd(a, b); }
  static V swap(V a) { return _mm256_permute_pd(a, 0b0101); }  // (re, im) -> (im, re)
  static __m256i mask(int valid) {                             // the first `valid` lanes
    const __m256i idx = _mm256_setr_epi64x(0, 1, 2, 3);
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(valid), idx);
  }
};

template <>
struct Vec<float> {
  using V = __m256;
  static constexpr int lanes = 8;
  static V zero() { return _mm256_setzero_ps(); }
  static V set1(float x) { return _mm256_set1_ps(x); }
  static V pair(float re, float im) { return _mm256_setr_ps(re, im, re, im, re, im, re, im); }
  static V load(const float* p) { return _mm256_loadu_ps(p); }
  static V load(const float* p, __m256i mask) { return _mm256_maskload_ps(p, mask); }
  static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
  static void store_first(float* p, V v, int valid) {  // the first `valid` (1-7) lanes
    __m128 lo = _mm256_castps256_ps128(v);
    if (valid >= 4) {
      _mm_storeu_ps(p, lo);
      lo = _mm256_extractf128_ps(v, 1);
      p += 4;
    }
    if (valid & 2) {
      _mm_storel_pi(reinterpret_cast<__m64*>(p), lo);
      lo = _mm_movehl_ps(lo, lo);
      p += 2;
    }
    if (valid & 1) _mm_store_ss(p, lo);
  }
  static V bcast(const float* p) { return _mm256_broadcast_ss(p); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V swap(V a) { return _mm256_permute_ps(a, 0b10110001); }
  static __m256i mask(int valid) {
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(valid), idx);
  }
};

// What every block of the batch shares. Lengths and strides count reals (a complex is two).
template <class R>
struct Shared {
  using V = typename Vec<R>::V;
  std::int64_t k, lda, ldc;
  std::int64_t bq, bj;  // op(B)(q, j) is at b + q * bq + j * bj
  // Real: C <- alpha_p acc + beta_p C. Complex: w = acc + sign * swap(aci) is op(A) op(B),
  // or op(A) conj(op(B)) when exactly one operand is conjugated; alpha w (or alpha conj(w)
  // when A is) is alpha_p w + alpha_q swap(w), and beta c is beta_p c + beta_q swap(c).
  V alpha_p, alpha_q, beta_p, beta_q, sign;
  bool beta_zero;
};

// One block: rows [row, row + MV L) of C (in reals) by NR columns. tail masks the last
// vector's rows (its first `valid` lanes); partial says whether it masks any. The first
// whole_a columns of op(A) are loaded as whole vectors: rows past m are then ld padding or
// the next column, never stored (a packed A is padded with zeros); the last columns of an
// item read in place are masked, so no load passes the item's last element.
template <class R>
struct Block {
  const R* a;  // op(A)(row, 0)
  const R* b;  // op(B)(0, col)
  R* c;        // C(row, col)
  __m256i tail;
  int valid;
  bool partial;
  std::int64_t whole_a;
};

// C(MV vectors, NR columns) <- alpha op(A) op(B) + beta C for one block.
template <class R, bool Cx, int MV, int NR>
void block(const Shared<R>& s, const Block<R>& blk) {
  using X = Vec<R>;
  using V = typename X::V;
  constexpr int L = X::lanes;
  V acc[NR][MV], aci[Cx ? NR : 1][MV];  // aci: products with b.im (complex only)
#pragma GCC unroll 8
  for (int j = 0; j < NR; ++j) {
#pragma GCC unroll 4
    for (int v = 0; v < MV; ++v) {
      acc[j][v] = X::zero();
      if constexpr (Cx) aci[j][v] = X::zero();
    }
  }
  const R* a = blk.a;
  const R* b = blk.b;
  const std::int64_t k = s.k, lda = s.lda, bq = s.bq, bj = s.bj;
  const __m256i tail = blk.tail;
  // acc += op(A)(:, q) op(B)(q, :); Masked loads A's last vector through the tail mask.
  auto step = [&]<bool Masked>() {
    V av[MV];
#pragma GCC unroll 4
    for (int v = 0; v < MV; ++v) {
      av[v] = v + 1 == MV && Masked ? X::load(a + v * L, tail) : X::load(a + v * L);
    }
#pragma GCC unroll 8
    for (int j = 0; j < NR; ++j) {
      const V br = X::bcast(b + j * bj);
#pragma GCC unroll 4
      for (int v = 0; v < MV; ++v) acc[j][v] = X::fma(av[v], br, acc[j][v]);
      if constexpr (Cx) {
        const V bi = X::bcast(b + j * bj + 1);
#pragma GCC unroll 4
        for (int v = 0; v < MV; ++v) aci[j][v] = X::fma(av[v], bi, aci[j][v]);
      }
    }
    a += lda;
    b += bq;
  };
  std::int64_t q = 0;
  for (; q < blk.whole_a; ++q) step.template operator()<false>();
  for (; q < k; ++q) step.template operator()<true>();
#pragma GCC unroll 8
  for (int j = 0; j < NR; ++j) {
    R* c = blk.c + j * s.ldc;
#pragma GCC unroll 4
    for (int v = 0; v < MV; ++v) {
      const bool masked = v + 1 == MV && blk.partial;
      V r;
      if constexpr (Cx) {
        // acc = (ar br, ai br), aci = (ar bi, ai bi) per complex lane pair.
        const V w = X::fma(X::swap(aci[j][v]), s.sign, acc[j][v]);
        r = X::fma(w, s.alpha_p, X::mul(X::swap(w), s.alpha_q));
        if (!s.beta_zero) {
          const V cv = masked ? X::load(c + v * L, tail) : X::load(c + v * L);
          r = X::fma(cv, s.beta_p, X::fma(X::swap(cv), s.beta_q, r));
        }
      } else {
        r = X::mul(acc[j][v], s.alpha_p);
        if (!s.beta_zero) {
          const V cv = masked ? X::load(c + v * L, tail) : X::load(c + v * L);
          r = X::fma(cv, s.beta_p, r);
        }
      }
      if (masked) {
        X::store_first(c + v * L, r, blk.valid);
      } else {
        X::store(c + v * L, r);
      }
    }
  }
}

template <class T>
constexpr bool kComplex = !std::is_floating_point_v<T>;
template <class T>
using Real = decltype(std::real(T{}));

// Accumulators per block at most 12: real NR <= 12 / MV (and 8), complex NR <= 6 / MV.
template <class T>
constexpr int kMaxMV = std::is_same_v<T, float> ? 2 : 4;
template <class T>
constexpr int max_nr(int mv) {
  return kComplex<T> ? 6 / mv : (mv == 1 ? 8 : 12 / mv);
}

template <class T>
using Kernel = void (*)(const Shared<Real<T>>&, const Block<Real<T>>&);

template <class T, int MV, std::size_t... I>
constexpr auto nr_row(std::index_sequence<I...>) {
  return std::array<Kernel<T>, sizeof...(I)>{&block<Real<T>, kComplex<T>, MV, int(I) + 1>...};
}

// kernel<T>(mv, nr) for 1 <= mv <= kMaxMV<T>, 1 <= nr <= max_nr<T>(mv).
template <class T>
Kernel<T> kernel(int mv, int nr) {
  static constexpr auto r1 = nr_row<T, 1>(std::make_index_sequence<max_nr<T>(1)>{});
  static constexpr auto r2 = nr_row<T, 2>(std::make_index_sequence<max_nr<T>(2)>{});
  if constexpr (kMaxMV<T> == 2) {
    return mv == 1 ? r1[nr - 1] : r2[nr - 1];
  } else {
    static constexpr auto r3 = nr_row<T, 3>(std::make_index_sequence<max_nr<T>(3)>{});
    static constexpr auto r4 = nr_row<T, 4>(std::make_index_sequence<max_nr<T>(4)>{});
    switch (mv) {
      case 1:
        return r1[nr - 1];
      case 2:
        return r2[nr - 1];
      case 3:
        return r3[nr - 1];
      default:
        return r4[nr - 1];
    }
  }
}

// The blocks of one item, the same for every item of the batch: C is cut into at most two
// row blocks (c64 with more than 8 rows) and each row block into balanced column blocks.
template <class T>
struct Plan {
  struct Entry {
    Kernel<T> fn;
    int row, col;  // first row (in reals) and first column
    bool last_rows;
  };
  std::array<Entry, 2 * kSmallMax> entries{};
  int count = 0;
  int ld_pack = 0;  // reals per column of op(A) rounded up to whole vectors
};

template <class T>
Plan<T> make_plan(const Problem& p) {
  constexpr int L = Vec<Real<T>>::lanes;
  const int rows = static_cast<int>(p.m) * (kComplex<T> ? 2 : 1);
  const int mv_all = (rows + L - 1) / L;
  const int row_blocks = (mv_all + kMaxMV<T> - 1) / kMaxMV<T>;
  Plan<T> plan;
  plan.ld_pack = mv_all * L;
  int mv_done = 0;
  for (int rb = 0; rb < row_blocks; ++rb) {
    const int mv = (mv_all - mv_done) / (row_blocks - rb);
    const int n = static_cast<int>(p.n);
    const int col_blocks = (n + max_nr<T>(mv) - 1) / max_nr<T>(mv);
    int col = 0;
    for (int cb = 0; cb < col_blocks; ++cb) {
      const int nr = (n - col) / (col_blocks - cb);
      plan.entries[plan.count++] = {kernel<T>(mv, nr), mv_done * L, col, rb + 1 == row_blocks};
      col += nr;
    }
    mv_done += mv;
  }
  return plan;
}

// dst(q, i) = op(A)(i, q) = src(q, i) for a T or C item (conjugation waits for the epilogue),
// rows past m zeroed, so the kernels load whole vectors. (k, ldp) per item.
template <class T>
void pack_transposed(const T* src, std::int64_t lds, std::int64_t m, std::int64_t k, T* dst,
                     std::int64_t ldp) {
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t q = 0; q < k; ++q) dst[q * ldp + i] = src[q + i * lds];
  }
  for (std::int64_t q = 0; q < k; ++q) {
    for (std::int64_t i = m; i < ldp; ++i) dst[q * ldp + i] = T(0);
  }
}

// What every block of a batch shares, from the problem; lda is set by the caller (in place
// or a packed buffer).
template <class T>
Shared<Real<T>> make_shared(const Problem& p) {
  using R = Real<T>;
  using X = Vec<R>;
  constexpr std::int64_t w = kComplex<T> ? 2 : 1;  // reals per scalar
  Shared<R> s{};
  const T alpha = p.alpha_as<T>(), beta = p.beta_as<T>();
  if constexpr (kComplex<T>) {
    const R ar = alpha.real(), ai = alpha.imag(), br = beta.real(), bi = beta.imag();
    const bool conj_a = p.ta == Op::C, flip = conj_a != (p.tb == Op::C);
    s.sign = flip ? X::pair(1, -1) : X::pair(-1, 1);
    s.alpha_p = conj_a ? X::pair(ar, -ar) : X::pair(ar, ar);
    s.alpha_q = conj_a ? X::pair(ai, ai) : X::pair(-ai, ai);
    s.beta_p = X::pair(br, br);
    s.beta_q = X::pair(-bi, bi);
  } else {
    s.alpha_p = X::set1(alpha);
    s.beta_p = X::set1(beta);
  }
  s.beta_zero = beta == T(0);
  s.k = p.k;
  s.ldc = p.c.ld * w;
  s.bq = (p.tb == Op::N ? 1 : p.b.ld) * w;
  s.bj = (p.tb == Op::N ? p.b.ld : 1) * w;
  return s;
}

// The same Shared with beta = 1: later k slabs add to what the first one wrote.
template <class T>
Shared<Real<T>> accumulating(Shared<Real<T>> s) {
  using X = Vec<Real<T>>;
  s.beta_p = X::set1(1);
  s.beta_q = X::zero();
  s.beta_zero = false;
  return s;
}

// How many leading columns of an in-place op(A) block whose last vector ends at row `end`
// (reals, from the column start) may be loaded whole: while q lda + end <= (k - 1) lda + rows,
// so no load passes the item's last element.
inline std::int64_t whole_columns(std::int64_t k, std::int64_t lda, std::int64_t rows,
                                  std::int64_t end) {
  const std::int64_t room = (k - 1) * lda + rows - end;
  return room < 0 ? 0 : std::min(k, room / lda + 1);
}

template <class T>
void small_typed(const Problem& p) {
  using R = Real<T>;
  using X = Vec<R>;
  constexpr int L = X::lanes;
  constexpr std::int64_t w = kComplex<T> ? 2 : 1;  // reals per scalar
  const Plan<T> plan = make_plan<T>(p);
  const int rows = static_cast<int>(p.m * w);
  const int valid = rows - (plan.ld_pack - L);  // rows of the last vector
  const __m256i all = X::mask(L), tail = X::mask(valid);
  const bool partial = rows % L != 0;

  Shared<R> s = make_shared<T>(p);
  const bool pack = p.ta != Op::N;
  s.lda = pack ? plan.ld_pack : p.a.ld * w;

  for_each_item(p, [&](std::int64_t item) {
    alignas(32) R packed[kSmallMax * 2 * kSmallMax];  // op(A) as (k, ld_pack) when ta != N
    const T* a = p.item_a<T>(item);
    const R* a_cols = reinterpret_cast<const R*>(a);
    if (pack) {
      pack_transposed(a, p.a.ld, p.m, p.k, reinterpret_cast<T*>(packed), plan.ld_pack / w);
      a_cols = packed;
    }
    const R* b = reinterpret_cast<const R*>(p.item_b<T>(item));
    R* c = reinterpret_cast<R*>(p.item_c<T>(item));
    for (int i = 0; i < plan.count; ++i) {
      const auto& e = plan.entries[i];
      Block<R> blk;
      blk.a = a_cols + e.row;
      blk.b = b + e.col * s.bj;
      blk.c = c + e.row + e.col * s.ldc;
      blk.tail = e.last_rows ? tail : all;
      blk.valid = valid;
      blk.partial = e.last_rows && partial;
      blk.whole_a = blk.partial && !pack ? whole_columns(p.k, s.lda, rows, plan.ld_pack) : p.k;
      e.fn(s, blk);
    }
  });
}

// cpu.tile: the same blocks over items of any size. Per item, k is cut into slabs of at most
// kSlab (the first slab applies beta, later ones add), each slab into row blocks of at most
// kMaxMV vectors and each row block into balanced column blocks, in that order, so a row
// block's slab of op(A) (at most 32 KiB) stays in L1 while B streams past it. op(A) in T or C
// form is packed one row block and slab at a time, so the buffer has a fixed size.
inline constexpr std::int64_t kSlab = 256;

// Row blocks of cpu.tile: complex items stop at 3 vectors, so a block keeps 2 columns.
template <class T>
constexpr int kTileMV = kComplex<T> ? 3 : kMaxMV<T>;

template <class T>
void tile_typed(const Problem& p) {
  using R = Real<T>;
  using X = Vec<R>;
  constexpr int L = X::lanes;
  constexpr std::int64_t w = kComplex<T> ? 2 : 1;  // reals per scalar
  constexpr int kPanel = kTileMV<T> * L;           // reals per packed column of op(A)
  const std::int64_t rows = p.m * w;
  const std::int64_t mv_all = (rows + L - 1) / L;
  const std::int64_t row_blocks = (mv_all + kTileMV<T> - 1) / kTileMV<T>;
  const std::int64_t ld_pad = mv_all * L;                   // rows rounded up to whole vectors
  const int valid = static_cast<int>(rows - (ld_pad - L));  // rows of the last vector
  const __m256i all = X::mask(L), tail = X::mask(valid);
  const bool partial = rows % L != 0;
  const bool pack = p.ta != Op::N;

  Shared<R> first = make_shared<T>(p);
  first.lda = pack ? kPanel : p.a.ld * w;
  const Shared<R> later = accumulating<T>(first);

  // Columns [col0, col1) of one item.
  auto run = [&](std::int64_t item, std::int64_t col0, std::int64_t col1) {
    alignas(32) R panel[kSlab * kPanel];  // op(A)(row block, slab) as (slab, kPanel)
    const T* a = p.item_a<T>(item);
    const R* b = reinterpret_cast<const R*>(p.item_b<T>(item));
    R* c = reinterpret_cast<R*>(p.item_c<T>(item));
    for (std::int64_t q0 = 0; q0 < p.k; q0 += kSlab) {
      Shared<R> s = q0 == 0 ? first : later;
      s.k = std::min(kSlab, p.k - q0);
      std::int64_t mv_done = 0;
      for (std::int64_t rb = 0; rb < row_blocks; ++rb) {
        const int mv = static_cast<int>((mv_all - mv_done) / (row_blocks - rb));
        const std::int64_t row = mv_done * L;  // in reals
        const bool last_rows = rb + 1 == row_blocks;
        const R* a_cols;
        std::int64_t whole_a = s.k;
        if (pack) {
          const std::int64_t i0 = row / w, mb = std::min<std::int64_t>(mv * L / w, p.m - i0);
          pack_transposed(a + q0 + i0 * p.a.ld, p.a.ld, mb, s.k, reinterpret_cast<T*>(panel),
                          kPanel / w);
          a_cols = panel;
        } else {
          a_cols = reinterpret_cast<const R*>(a) + q0 * s.lda + row;
          if (last_rows && partial) {
            whole_a =
                std::clamp<std::int64_t>(whole_columns(p.k, s.lda, rows, ld_pad) - q0, 0, s.k);
          }
        }
        const int nr_max = max_nr<T>(mv);
        const std::int64_t col_blocks = (col1 - col0 + nr_max - 1) / nr_max;
        std::int64_t col = col0;
        for (std::int64_t cb = 0; cb < col_blocks; ++cb) {
          const int nr = static_cast<int>((col1 - col) / (col_blocks - cb));
          Block<R> blk;
          blk.a = a_cols;
          blk.b = b + q0 * s.bq + col * s.bj;
          blk.c = c + row + col * s.ldc;
          blk.tail = last_rows ? tail : all;
          blk.valid = valid;
          blk.partial = last_rows && partial;
          blk.whole_a = whole_a;
          kernel<T>(mv, nr)(s, blk);
          col += nr;
        }
        mv_done += mv;
      }
    }
  };

  // A batch of fewer items than threads also splits each item's columns over the threads
  // (at least 8 columns a part). Every element of C still sums its k products in the same
  // order, so results do not depend on the split or the thread count.
  const int threads = omp_get_max_threads();
  std::int64_t parts = 1;
  if (p.batch < threads && real_macs(p) >= kParallelMacs && may_spread()) {
    parts = std::min<std::int64_t>((threads + p.batch - 1) / p.batch,
                                   std::max<std::int64_t>(1, p.n / 8));
  }
  if (parts == 1) {
    for_each_item(p, [&](std::int64_t item) { run(item, 0, p.n); });
    return;
  }
#pragma omp parallel for schedule(static)
  for (std::int64_t u = 0; u < p.batch * parts; ++u) {
    const std::int64_t item = u / parts, part = u % parts;
    run(item, p.n * part / parts, p.n * (part + 1) / parts);
  }
}

}  // namespace

void small_gemm(const Problem& p) {
  dispatch(p.dtype, [&]<class T>() { small_typed<T>(p); });
}

void tile_gemm(const Problem& p) {
  dispatch(p.dtype, [&]<class T>() { tile_typed<T>(p); });
}

}  // namespace gemmroute::cpu
