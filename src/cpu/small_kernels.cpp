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
// interleaved: a (re, im) vector of A meets broadcasts of b.re and b.im, either in two
// accumulator sets combined at the end (split) or in one, through the swapped vector of A
// (chained); the epilogue resolves conjugation of A or B by sign patterns folded into alpha,
// so no form needs its own kernel. Which complex blocks are chained, and every rounding, is
// cpu/native_order.hpp's: all native kernels sum each element in the same order, so the
// choice among them never changes a bit. Sizes are not buckets: k is a loop count and m, n
// choose how C is cut into blocks, once per batch (Plan).
//
// Items of at most 4 x 4 (real scalars, op(A) = A) take tiny_items instead (below): the block
// kernels' 256-bit lanes would be mostly masked, and their per-item plan walk and indirect
// call cost more than such an item's arithmetic. They sum in the same order (one FMA chain
// per element from zero, then alpha and beta as native_order.hpp's finish).
//
// Template instantiations: block<R, form, MV, NR> with MV x NR accumulators at most 12
// (complex split: 2 MV NR at most 12; chained blocks take the same sizes): f32 14 (MV 1-2),
// f64 21 (MV 1-4), c32 and c64 12 each per complex form (MV 1-4; c64 items of more than 8
// rows run as two row blocks): 83 kernels. tiny_items<R, M, N> for M, N in 1-4: f32 16, f64
// 16: 32 kernels. 115 kernels in all.
#include "cpu/small_kernels.hpp"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <array>
#include <complex>
#include <utility>

#include "cpu/batch.hpp"
#include "cpu/native_order.hpp"

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
  static V fmaddsub(V a, V b, V c) { return _mm256_fmaddsub_pd(a, b, c); }  // ab-c, ab+c
  static V neg(V a) { return _mm256_xor_pd(a, _mm256_set1_pd(-0.0)); }
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
  static V fmaddsub(V a, V b, V c) { return _mm256_fmaddsub_ps(a, b, c); }
  static V neg(V a) { return _mm256_xor_ps(a, _mm256_set1_ps(-0.0f)); }
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
  // Real: C <- alpha_p acc + beta_p C. Complex: w is op(A) op(B), or op(A) conj(op(B)) when
  // exactly one operand is conjugated: acc + sign * swap(aci) for split sums, unnegate * acc
  // for chained ones; alpha w (or alpha conj(w) when A is) is alpha_p w + alpha_q swap(w),
  // and beta c is beta_p c + beta_q swap(c).
  V alpha_p, alpha_q, beta_p, beta_q, sign;
  V unnegate;            // chained sums keep re negated: (-1, 1) lanes
  bool beta_zero, flip;  // flip: exactly one operand conjugated (sign is (1, -1))
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

// How a block sums: real, or complex split or chained (native_order.hpp).
enum class Form { real, split, chained };

// C(MV vectors, NR columns) <- alpha op(A) op(B) + beta C for one block.
template <class R, Form F, int MV, int NR>
void block(const Shared<R>& s, const Block<R>& blk) {
  using X = Vec<R>;
  using V = typename X::V;
  constexpr int L = X::lanes;
  constexpr bool split = F == Form::split;  // (spelled out in the lambda below: GCC 12)
  V acc[NR][MV], aci[split ? NR : 1][MV];   // aci: products with b.im (split sums only)
#pragma GCC unroll 8
  for (int j = 0; j < NR; ++j) {
#pragma GCC unroll 4
    for (int v = 0; v < MV; ++v) {
      acc[j][v] = X::zero();
      if constexpr (split) aci[j][v] = X::zero();
    }
  }
  const R* a = blk.a;
  const R* b = blk.b;
  const std::int64_t k = s.k, lda = s.lda, bq = s.bq, bj = s.bj;
  const __m256i tail = blk.tail;
  // acc += op(A)(:, q) op(B)(q, :); Masked loads A's last vector through the tail mask.
  // Chained (native_order.hpp, and OpenBLAS's AVX2 complex kernels): a lane pair holds
  // (-re, im) between steps; fmaddsub(a, b.re, acc) then fmaddsub(swap(a), +-b.im, acc), each
  // of which turns the re lane's sign over, so no step needs a multiply by a sign pattern.
  auto step = [&]<bool Masked>() {
    V av[MV], sw[F == Form::chained ? MV : 1];
#pragma GCC unroll 4
    for (int v = 0; v < MV; ++v) {
      av[v] = v + 1 == MV && Masked ? X::load(a + v * L, tail) : X::load(a + v * L);
      if constexpr (F == Form::chained) sw[v] = X::swap(av[v]);
    }
#pragma GCC unroll 8
    for (int j = 0; j < NR; ++j) {
      const V br = X::bcast(b + j * bj);
#pragma GCC unroll 4
      for (int v = 0; v < MV; ++v) {
        if constexpr (F == Form::chained) {
          acc[j][v] = X::fmaddsub(av[v], br, acc[j][v]);
        } else {
          acc[j][v] = X::fma(av[v], br, acc[j][v]);
        }
      }
      if constexpr (F == Form::split) {
        const V bi = X::bcast(b + j * bj + 1);
#pragma GCC unroll 4
        for (int v = 0; v < MV; ++v) aci[j][v] = X::fma(av[v], bi, aci[j][v]);
      } else if constexpr (F == Form::chained) {
        const V bi = s.flip ? X::neg(X::bcast(b + j * bj + 1)) : X::bcast(b + j * bj + 1);
#pragma GCC unroll 4
        for (int v = 0; v < MV; ++v) acc[j][v] = X::fmaddsub(sw[v], bi, acc[j][v]);
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
      if constexpr (F != Form::real) {
        // Split: acc = (ar br, ai br), aci = (ar bi, ai bi) per complex lane pair.
        const V w =
            split ? X::fma(X::swap(aci[j][v]), s.sign, acc[j][v]) : X::mul(acc[j][v], s.unnegate);
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

// Accumulators per block at most 12: real NR <= 12 / MV (and 8), complex NR <= 6 / MV (chained
// blocks too: wider ones spilled registers and ran slower).
template <class T>
constexpr int kMaxMV = std::is_same_v<T, float> ? 2 : 4;
template <class T>
constexpr int max_nr(int mv) {
  return kComplex<T> ? 6 / mv : (mv == 1 ? 8 : 12 / mv);
}

template <class T>
using Kernel = void (*)(const Shared<Real<T>>&, const Block<Real<T>>&);

template <class T, Form F, int MV, std::size_t... I>
constexpr auto nr_row(std::index_sequence<I...>) {
  return std::array<Kernel<T>, sizeof...(I)>{&block<Real<T>, F, MV, int(I) + 1>...};
}

template <class T, Form F>
Kernel<T> kernel_of(int mv, int nr) {
  static constexpr auto r1 = nr_row<T, F, 1>(std::make_index_sequence<max_nr<T>(1)>{});
  static constexpr auto r2 = nr_row<T, F, 2>(std::make_index_sequence<max_nr<T>(2)>{});
  if constexpr (kMaxMV<T> == 2) {
    return mv == 1 ? r1[nr - 1] : r2[nr - 1];
  } else {
    static constexpr auto r3 = nr_row<T, F, 3>(std::make_index_sequence<max_nr<T>(3)>{});
    static constexpr auto r4 = nr_row<T, F, 4>(std::make_index_sequence<max_nr<T>(4)>{});
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

// kernel<T>(mv, nr, chained) for 1 <= mv <= kMaxMV<T>, 1 <= nr <= max_nr<T>(mv); chained
// matters for complex scalars only.
template <class T>
Kernel<T> kernel(int mv, int nr, bool chained) {
  if constexpr (kComplex<T>) {
    return chained ? kernel_of<T, Form::chained>(mv, nr) : kernel_of<T, Form::split>(mv, nr);
  } else {
    (void)chained;
    return kernel_of<T, Form::real>(mv, nr);
  }
}

// A range of columns or of row vectors cut at the edge of native_order.hpp's chained block:
// [0, edge) and [edge, end), either of which may be empty.
struct Cut {
  std::int64_t begin[2], end[2];
};
inline Cut cut_at(std::int64_t begin, std::int64_t end, std::int64_t edge) {
  const std::int64_t mid = std::clamp(edge, begin, end);
  return {{begin, mid}, {mid, end}};
}

// Row vectors of an item in the chained block: main_rows complex rows, whole vectors.
template <class T>
std::int64_t chained_vectors(std::int64_t m) {
  return main_rows<T>(m) * 2 / Vec<Real<T>>::lanes;
}

// The blocks of one item, the same for every item of the batch: the rows of C are cut at the
// edge of the chained block (complex only) and each part into balanced row blocks (c64 rows
// past 8 make two), each row block's columns likewise at the edge and into balanced column
// blocks.
template <class T>
struct Plan {
  struct Entry {
    Kernel<T> fn;
    int row, col;  // first row (in reals) and first column
    bool last_rows;
  };
  std::array<Entry, 4 * kSmallMax> entries;  // the first `count` are set
  int count = 0;
  int ld_pack = 0;  // reals per column of op(A) rounded up to whole vectors
};

template <class T>
Plan<T> make_plan(const Problem& p) {
  constexpr int L = Vec<Real<T>>::lanes;
  const int rows = static_cast<int>(p.m) * (kComplex<T> ? 2 : 1);
  const int mv_all = (rows + L - 1) / L;
  Plan<T> plan;
  plan.ld_pack = mv_all * L;
  const Cut row_parts = cut_at(0, mv_all, chained_vectors<T>(p.m));
  const Cut col_parts = cut_at(0, p.n, main_cols<T>(p.n));
  for (int rp = 0; rp < 2; ++rp) {
    const int mv_begin = static_cast<int>(row_parts.begin[rp]);
    const int mv_part = static_cast<int>(row_parts.end[rp]) - mv_begin;
    const int row_blocks = (mv_part + kMaxMV<T> - 1) / kMaxMV<T>;
    int mv_done = 0;
    for (int rb = 0; rb < row_blocks; ++rb) {
      const int mv = (mv_part - mv_done) / (row_blocks - rb);
      const bool last_rows = mv_begin + mv_done + mv == mv_all;
      for (int cp = 0; cp < 2; ++cp) {
        const int col_begin = static_cast<int>(col_parts.begin[cp]);
        const int n = static_cast<int>(col_parts.end[cp]) - col_begin;
        const int nr_max = max_nr<T>(mv);
        const int col_blocks = (n + nr_max - 1) / nr_max;
        int col = 0;
        for (int cb = 0; cb < col_blocks; ++cb) {
          const int nr = (n - col) / (col_blocks - cb);
          plan.entries[plan.count++] = {kernel<T>(mv, nr, rp == 0 && cp == 0),
                                        (mv_begin + mv_done) * L, col_begin + col, last_rows};
          col += nr;
        }
      }
      mv_done += mv;
    }
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

// What every block of a batch shares, from the problem and a slab's epilogue constants
// (native_order.hpp); lda is set by the caller (in place or a packed buffer).
template <class T>
Shared<Real<T>> make_shared(const Problem& p, const Epilogue<Real<T>>& e) {
  using R = Real<T>;
  using X = Vec<R>;
  constexpr std::int64_t w = kComplex<T> ? 2 : 1;  // reals per scalar
  Shared<R> s;  // every field set below (not value-initialised: this runs on every call)
  s.lda = 0;
  s.alpha_p = X::pair(e.alpha_p[0], e.alpha_p[1]);
  s.alpha_q = X::pair(e.alpha_q[0], e.alpha_q[1]);
  s.beta_p = X::pair(e.beta_p[0], e.beta_p[1]);
  s.beta_q = X::pair(e.beta_q[0], e.beta_q[1]);
  s.sign = X::pair(e.sign[0], e.sign[1]);
  s.unnegate = X::pair(-1, 1);
  s.beta_zero = e.beta_zero;
  s.flip = e.sign[0] > 0;
  s.k = p.k;
  s.ldc = p.c.ld * w;
  s.bq = (p.tb == Op::N ? 1 : p.b.ld) * w;
  s.bj = (p.tb == Op::N ? p.b.ld : 1) * w;
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

  Shared<R> s = make_shared<T>(p, epilogue_of<T>(p));
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
// form is packed one row block and slab at a time, so the buffer has a fixed size. kSlab, and
// the edges of the chained block that row and column blocks never straddle, are
// native_order.hpp's.

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
  const Cut row_parts = cut_at(0, mv_all, chained_vectors<T>(p.m));
  const std::int64_t chained_cols = main_cols<T>(p.n);
  const std::int64_t ld_pad = mv_all * L;                   // rows rounded up to whole vectors
  const int valid = static_cast<int>(rows - (ld_pad - L));  // rows of the last vector
  const __m256i all = X::mask(L), tail = X::mask(valid);
  const bool partial = rows % L != 0;
  const bool pack = p.ta != Op::N;

  const Epilogue<R> e = epilogue_of<T>(p);
  Shared<R> first = make_shared<T>(p, e);
  first.lda = pack ? kPanel : p.a.ld * w;
  Shared<R> later = make_shared<T>(p, accumulating(e));  // later k slabs add to C
  later.lda = first.lda;

  // Columns [col0, col1) of one item.
  auto run = [&](std::int64_t item, std::int64_t col0, std::int64_t col1) {
    alignas(32) R panel[kSlab * kPanel];  // op(A)(row block, slab) as (slab, kPanel)
    const T* a = p.item_a<T>(item);
    const R* b = reinterpret_cast<const R*>(p.item_b<T>(item));
    R* c = reinterpret_cast<R*>(p.item_c<T>(item));
    for (std::int64_t q0 = 0; q0 < p.k; q0 += kSlab) {
      Shared<R> s = q0 == 0 ? first : later;
      s.k = std::min(kSlab, p.k - q0);
      for (int rp = 0; rp < 2; ++rp) {
        const std::int64_t mv_part = row_parts.end[rp] - row_parts.begin[rp];
        const std::int64_t row_blocks = (mv_part + kTileMV<T> - 1) / kTileMV<T>;
        std::int64_t mv_done = 0;
        for (std::int64_t rb = 0; rb < row_blocks; ++rb) {
          const int mv = static_cast<int>((mv_part - mv_done) / (row_blocks - rb));
          const std::int64_t row = (row_parts.begin[rp] + mv_done) * L;  // in reals
          const bool last_rows = row / L + mv == mv_all;
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
          const Cut col_parts = cut_at(col0, col1, chained_cols);
          for (int cp = 0; cp < 2; ++cp) {
            const bool chained = rp == 0 && cp == 0;
            const int nr_max = max_nr<T>(mv);
            const std::int64_t end = col_parts.end[cp];
            const std::int64_t col_blocks = (end - col_parts.begin[cp] + nr_max - 1) / nr_max;
            std::int64_t col = col_parts.begin[cp];
            for (std::int64_t cb = 0; cb < col_blocks; ++cb) {
              const int nr = static_cast<int>((end - col) / (col_blocks - cb));
              Block<R> blk;
              blk.a = a_cols;
              blk.b = b + q0 * s.bq + col * s.bj;
              blk.c = c + row + col * s.ldc;
              blk.tail = last_rows ? tail : all;
              blk.valid = valid;
              blk.partial = last_rows && partial;
              blk.whole_a = whole_a;
              kernel<T>(mv, nr, chained)(s, blk);
              col += nr;
            }
          }
          mv_done += mv;
        }
      }
    }
  };

  // A batch of fewer items than threads also splits each item's columns over the threads
  // (at least 8 columns a part). Every element of C still sums its k products in the same
  // order, so results do not depend on the split or the thread count.
  const int threads = omp_get_max_threads();
  if (p.batch >= threads || real_macs(p) < kParallelMacs || p.n < 16) {
    for_each_item(p, [&](std::int64_t item) { run(item, 0, p.n); });
    return;
  }
  const ThreadClaim claim;
  if (!claim) {
    for (std::int64_t item = 0; item < p.batch; ++item) run(item, 0, p.n);
    return;
  }
  const std::int64_t parts =
      std::min<std::int64_t>((threads + p.batch - 1) / p.batch, std::max<std::int64_t>(1, p.n / 8));
#pragma omp parallel for schedule(static)
  for (std::int64_t u = 0; u < p.batch * parts; ++u) {
    const std::int64_t item = u / parts, part = u % parts;
    run(item, p.n * part / parts, p.n * (part + 1) / parts);
  }
}

// ---- Tiny items: m, n <= 4, real scalars, op(A) = A --------------------------------------
//
// Below 5 x 5 the block kernels above waste most of their 256-bit lanes and pay a plan walk
// and an indirect call per item, which at 2 x 2 x 2 cost more than the item's arithmetic. Here
// the whole C item lives in N column registers of M rows (128-bit, or 256-bit for f64 with
// more than 2 rows), columns of A are loaded in place with exactly M elements, elements of
// op(B) are broadcast through its two strides, and the item loop runs inside the kernel: per
// item nothing but its loads, k M-row FMAs per column and its stores.

// The M-row column registers: M of the lanes are used; loads and stores touch exactly M
// elements, so nothing outside an item is read or written.
template <class R, int M>
struct Column;

template <int M>
struct Column<float, M> {
  using V = __m128;
  static V zero() { return _mm_setzero_ps(); }
  static V set1(float x) { return _mm_set1_ps(x); }
  static V fma(V a, V b, V c) { return _mm_fmadd_ps(a, b, c); }
  static V mul(V a, V b) { return _mm_mul_ps(a, b); }
  // Two floats as the low half of a vector and back, through memcpy: p is only float-aligned
  // (a single movsd either way).
  static V load2(const float* p) {
    double d;
    std::memcpy(&d, p, sizeof d);
    return _mm_castpd_ps(_mm_set_sd(d));
  }
  static void store2(float* p, V v) {
    const double d = _mm_cvtsd_f64(_mm_castps_pd(v));
    std::memcpy(p, &d, sizeof d);
  }
  static V load(const float* p) {
    if constexpr (M == 1) return _mm_load_ss(p);
    if constexpr (M == 2) return load2(p);
    if constexpr (M == 3) return _mm_movelh_ps(load2(p), _mm_load_ss(p + 2));
    if constexpr (M == 4) return _mm_loadu_ps(p);
  }
  static void store(float* p, V v) {
    if constexpr (M == 1) _mm_store_ss(p, v);
    if constexpr (M >= 2 && M <= 3) store2(p, v);
    if constexpr (M == 3) _mm_store_ss(p + 2, _mm_movehl_ps(v, v));
    if constexpr (M == 4) _mm_storeu_ps(p, v);
  }
};

template <int M>
requires(M <= 2) struct Column<double, M> {
  using V = __m128d;
  static V zero() { return _mm_setzero_pd(); }
  static V set1(double x) { return _mm_set1_pd(x); }
  static V fma(V a, V b, V c) { return _mm_fmadd_pd(a, b, c); }
  static V mul(V a, V b) { return _mm_mul_pd(a, b); }
  static V load(const double* p) {
    if constexpr (M == 1) return _mm_load_sd(p);
    if constexpr (M == 2) return _mm_loadu_pd(p);
  }
  static void store(double* p, V v) {
    if constexpr (M == 1) _mm_store_sd(p, v);
    if constexpr (M == 2) _mm_storeu_pd(p, v);
  }
};

template <int M>
requires(M > 2) struct Column<double, M> {
  using V = __m256d;
  static V zero() { return _mm256_setzero_pd(); }
  static V set1(double x) { return _mm256_set1_pd(x); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  static V mul(V a, V b) { return _mm256_mul_pd(a, b); }
  static V load(const double* p) {
    if constexpr (M == 3) {
      return _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(p)), _mm_load_sd(p + 2), 1);
    }
    if constexpr (M == 4) return _mm256_loadu_pd(p);
  }
  static void store(double* p, V v) {
    if constexpr (M == 3) {
      _mm_storeu_pd(p, _mm256_castpd256_pd128(v));
      _mm_store_sd(p + 2, _mm256_extractf128_pd(v, 1));
    }
    if constexpr (M == 4) _mm256_storeu_pd(p, v);
  }
};

// Items [begin, end) of a batch with m == M, n == N, ta == N.
template <class R, int M, int N>
void tiny_items(const Problem& p, std::int64_t begin, std::int64_t end) {
  using X = Column<R, M>;
  using V = typename X::V;
  const std::int64_t k = p.k, lda = p.a.ld, ldc = p.c.ld;
  const std::int64_t bq = p.tb == Op::N ? 1 : p.b.ld;  // op(B)(q, j) is at b + q bq + j bj
  const std::int64_t bj = p.tb == Op::N ? p.b.ld : 1;
  const V alpha = X::set1(p.alpha_as<R>()), beta = X::set1(p.beta_as<R>());
  const bool beta_zero = p.beta_as<R>() == R(0);
  for (std::int64_t item = begin; item < end; ++item) {
    const R* a = p.item_a<R>(item);
    const R* b = p.item_b<R>(item);
    R* c = p.item_c<R>(item);
    V acc[N];
#pragma GCC unroll 4
    for (int j = 0; j < N; ++j) acc[j] = X::zero();
    for (std::int64_t q = 0; q < k; ++q) {
      const V av = X::load(a + q * lda);
#pragma GCC unroll 4
      for (int j = 0; j < N; ++j) acc[j] = X::fma(av, X::set1(b[q * bq + j * bj]), acc[j]);
    }
#pragma GCC unroll 4
    for (int j = 0; j < N; ++j) {
      V r = X::mul(acc[j], alpha);
      if (!beta_zero) r = X::fma(X::load(c + j * ldc), beta, r);
      X::store(c + j * ldc, r);
    }
  }
}

template <class R>
using TinyKernel = void (*)(const Problem&, std::int64_t, std::int64_t);

template <class R, int M, std::size_t... J>
constexpr std::array<TinyKernel<R>, 4> tiny_row(std::index_sequence<J...>) {
  return {&tiny_items<R, M, int(J) + 1>...};
}

// tiny_kernel<R>(m, n) for 1 <= m, n <= 4.
template <class R>
TinyKernel<R> tiny_kernel(std::int64_t m, std::int64_t n) {
  static constexpr std::array<std::array<TinyKernel<R>, 4>, 4> table = {
      tiny_row<R, 1>(std::make_index_sequence<4>{}), tiny_row<R, 2>(std::make_index_sequence<4>{}),
      tiny_row<R, 3>(std::make_index_sequence<4>{}), tiny_row<R, 4>(std::make_index_sequence<4>{})};
  return table[m - 1][n - 1];
}

// The whole batch, items in contiguous runs per thread (as for_each_item spreads them).
template <class R>
void tiny_typed(const Problem& p) {
  const TinyKernel<R> kernel = tiny_kernel<R>(p.m, p.n);
  if (p.batch > 1 && real_macs(p) >= kParallelMacs) {
#pragma omp parallel
    {
      const std::int64_t t = omp_get_thread_num(), threads = omp_get_num_threads();
      kernel(p, p.batch * t / threads, p.batch * (t + 1) / threads);
    }
  } else {
    kernel(p, 0, p.batch);
  }
}

}  // namespace

bool tiny_runs(const Problem& p) noexcept {
  return !is_complex(p.dtype) && p.ta == Op::N && p.m <= kTinyMax && p.n <= kTinyMax;
}

void small_gemm(const Problem& p) {
  if (tiny_runs(p)) {
    if (p.dtype == Scalar::f32) return tiny_typed<float>(p);
    return tiny_typed<double>(p);
  }
  dispatch(p.dtype, [&]<class T>() { small_typed<T>(p); });
}

void tile_gemm(const Problem& p) {
  dispatch(p.dtype, [&]<class T>() { tile_typed<T>(p); });
}

}  // namespace gemmroute::cpu
