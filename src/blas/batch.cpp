// The batch entry points, with oneMKL's signatures: grouped pointer arrays (?gemm_batch_,
// cblas_?gemm_batch) onto gemmroute::gemm_grouped, strided (?gemm_batch_strided_,
// cblas_?gemm_batch_strided) onto the strided gemmroute::gemm.
//
// Every argument of every group is checked before anything is written; a bad one is reported
// to xerbla_ / cblas_xerbla at its position in the routine's own argument list (positions for
// a row-major call are the caller's: no reference CBLAS swap to imitate here). Groups and items
// that the reference GEMM would quick-return are dropped, so they read and write nothing.
#include <complex>
#include <vector>

#include "blas/runtime.hpp"
#include "gemmroute/gemm.hpp"

namespace gemmroute::blas {
namespace {

using c32 = std::complex<float>;
using c64 = std::complex<double>;

// ?GEMM_BATCH(TRANSA_ARRAY, TRANSB_ARRAY, M_ARRAY, N_ARRAY, K_ARRAY, ALPHA_ARRAY, A_ARRAY,
//             LDA_ARRAY, B_ARRAY, LDB_ARRAY, BETA_ARRAY, C_ARRAY, LDC_ARRAY, GROUP_COUNT,
//             GROUP_SIZE)
constexpr Positions kFortranGrouped{.transa = 1,
                                    .transb = 2,
                                    .m = 3,
                                    .n = 4,
                                    .k = 5,
                                    .a = 7,
                                    .lda = 8,
                                    .b = 9,
                                    .ldb = 10,
                                    .c = 12,
                                    .ldc = 13,
                                    .group_count = 14,
                                    .group_size = 15};
// cblas_?gemm_batch(Layout, then as above)
constexpr Positions kCblasGrouped{.layout = 1,
                                  .transa = 2,
                                  .transb = 3,
                                  .m = 4,
                                  .n = 5,
                                  .k = 6,
                                  .a = 8,
                                  .lda = 9,
                                  .b = 10,
                                  .ldb = 11,
                                  .c = 13,
                                  .ldc = 14,
                                  .group_count = 15,
                                  .group_size = 16};
// ?GEMM_BATCH_STRIDED(TRANSA, TRANSB, M, N, K, ALPHA, A, LDA, STRIDEA, B, LDB, STRIDEB, BETA,
//                     C, LDC, STRIDEC, BATCH_SIZE)
constexpr Positions kFortranStrided{.transa = 1,
                                    .transb = 2,
                                    .m = 3,
                                    .n = 4,
                                    .k = 5,
                                    .a = 7,
                                    .lda = 8,
                                    .stride_a = 9,
                                    .b = 10,
                                    .ldb = 11,
                                    .stride_b = 12,
                                    .c = 14,
                                    .ldc = 15,
                                    .stride_c = 16,
                                    .batch = 17};
// cblas_?gemm_batch_strided(Layout, then as above)
constexpr Positions kCblasStrided{.layout = 1,
                                  .transa = 2,
                                  .transb = 3,
                                  .m = 4,
                                  .n = 5,
                                  .k = 6,
                                  .a = 8,
                                  .lda = 9,
                                  .stride_a = 10,
                                  .b = 11,
                                  .ldb = 12,
                                  .stride_b = 13,
                                  .c = 15,
                                  .ldc = 16,
                                  .stride_c = 17,
                                  .batch = 18};

// One group as the caller gave it; the transposes are read by the caller's convention.
template <class T>
struct Group {
  int transa, transb, m, n, k;
  T alpha;
  int lda, ldb;
  T beta;
  int ldc, size;
};

// The grouped form, once per API: `group(g)` reads group g's arguments; `trans` parses one
// transpose. Checks all groups, then runs what is left as one gemm_grouped call.
template <class T, class GroupAt, class Trans>
void grouped(const Routine& r, Order order, int group_count, GroupAt group, Trans trans,
             const T* const* a, const T* const* b, T* const* c) {
  const Positions& pos = r.positions;
  if (group_count < 0) return report(r, pos.group_count);
  std::int64_t total = 0;
  for (int g = 0; g < group_count; ++g) {
    const Group<T> gr = group(g);
    std::optional<Op> ta = trans(gr.transa), tb = trans(gr.transb);
    if (!ta) return report(r, pos.transa);
    if (!tb) return report(r, pos.transb);
    if (auto bad = bad_size(order, *ta, *tb, gr.m, gr.n, gr.k, gr.lda, gr.ldb, gr.ldc)) {
      return report(r, position_of(pos, *bad));
    }
    if (gr.size < 0) return report(r, pos.group_size);
    total += gr.size;
  }
  std::vector<GemmItem> items;
  items.reserve(static_cast<std::size_t>(total));
  std::int64_t i = 0;
  for (int g = 0; g < group_count; ++g) {
    const Group<T> gr = group(g);
    if (quick_return(gr.m, gr.n, gr.k, gr.alpha, gr.beta)) {
      i += gr.size;
      continue;
    }
    const Op ta = *trans(gr.transa), tb = *trans(gr.transb);
    for (int j = 0; j < gr.size; ++j, ++i) {
      items.push_back(make_item<T>(ta, tb, gr.m, gr.n, gr.k, gr.alpha, a[i], gr.lda, b[i], gr.ldb,
                                   gr.beta, c[i], gr.ldc, order));
    }
  }
  if (!items.empty()) gemm_grouped(context(), items);
}

template <class T>
void fortran_grouped(const Routine& r, const char* transa, const char* transb, const int* m,
                     const int* n, const int* k, const T* alpha, const T* const* a, const int* lda,
                     const T* const* b, const int* ldb, const T* beta, T* const* c, const int* ldc,
                     const int* group_count, const int* group_size) noexcept {
  guarded(r, [&] {
    auto group = [&](int g) {
      return Group<T>{transa[g], transb[g], m[g],    n[g],   k[g],         alpha[g],
                      lda[g],    ldb[g],    beta[g], ldc[g], group_size[g]};
    };
    auto trans = [](int t) { return fortran_trans(static_cast<char>(t)); };
    grouped<T>(r, Order::col_major, *group_count, group, trans, a, b, c);
  });
}

template <class T>
void cblas_grouped(const Routine& r, int layout, const int* transa, const int* transb, const int* m,
                   const int* n, const int* k, const T* alpha, const T* const* a, const int* lda,
                   const T* const* b, const int* ldb, const T* beta, T* const* c, const int* ldc,
                   int group_count, const int* group_size) noexcept {
  guarded(r, [&] {
    std::optional<Order> order = cblas_layout(layout);
    if (!order) return report(r, 1, "Illegal layout setting, %d\n", layout);
    auto group = [&](int g) {
      return Group<T>{transa[g], transb[g], m[g],    n[g],   k[g],         alpha[g],
                      lda[g],    ldb[g],    beta[g], ldc[g], group_size[g]};
    };
    grouped<T>(r, *order, group_count, group, cblas_trans, a, b, c);
  });
}

template <class T>
void strided(const Routine& r, Order order, std::optional<Op> ta, std::optional<Op> tb, int m,
             int n, int k, T alpha, const T* a, int lda, int stride_a, const T* b, int ldb,
             int stride_b, T beta, T* c, int ldc, int stride_c, int batch) {
  const Positions& pos = r.positions;
  if (!ta) return report(r, pos.transa);
  if (!tb) return report(r, pos.transb);
  if (auto bad = bad_size(order, *ta, *tb, m, n, k, lda, ldb, ldc)) {
    return report(r, position_of(pos, *bad));
  }
  if (batch < 0) return report(r, pos.batch);
  if (stride_a < 0) return report(r, pos.stride_a);
  if (stride_b < 0) return report(r, pos.stride_b);
  // Items of C may not overlap: each spans ldc times its columns (rows when row-major).
  const std::int64_t c_span = std::int64_t{ldc} * (order == Order::col_major ? n : m);
  if (stride_c < 0 || (batch > 1 && stride_c < c_span)) return report(r, pos.stride_c);
  if (batch == 0 || quick_return(m, n, k, alpha, beta)) return;
  gemm<T>(context(), order, *ta, *tb, m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b, beta, c,
          ldc, stride_c, batch);
}

template <class T>
void fortran_strided(const Routine& r, const char* transa, const char* transb, const int* m,
                     const int* n, const int* k, const T* alpha, const T* a, const int* lda,
                     const int* stride_a, const T* b, const int* ldb, const int* stride_b,
                     const T* beta, T* c, const int* ldc, const int* stride_c,
                     const int* batch) noexcept {
  guarded(r, [&] {
    strided<T>(r, Order::col_major, fortran_trans(*transa), fortran_trans(*transb), *m, *n, *k,
               *alpha, a, *lda, *stride_a, b, *ldb, *stride_b, *beta, c, *ldc, *stride_c, *batch);
  });
}

template <class T>
void cblas_strided(const Routine& r, int layout, int transa, int transb, int m, int n, int k,
                   const T* alpha, const T* a, int lda, int stride_a, const T* b, int ldb,
                   int stride_b, const T* beta, T* c, int ldc, int stride_c, int batch) noexcept {
  guarded(r, [&] {
    std::optional<Order> order = cblas_layout(layout);
    if (!order) return report(r, 1, "Illegal layout setting, %d\n", layout);
    std::optional<Op> ta = cblas_trans(transa);
    if (!ta) return report(r, 2, "Illegal TransA setting, %d\n", transa);
    std::optional<Op> tb = cblas_trans(transb);
    if (!tb) return report(r, 3, "Illegal TransB setting, %d\n", transb);
    strided<T>(r, *order, ta, tb, m, n, k, *alpha, a, lda, stride_a, b, ldb, stride_b, *beta, c,
               ldc, stride_c, batch);
  });
}

}  // namespace
}  // namespace gemmroute::blas

using gemmroute::blas::Api;
using gemmroute::blas::c32;
using gemmroute::blas::c64;
using gemmroute::blas::cblas_grouped;
using gemmroute::blas::cblas_strided;
using gemmroute::blas::fortran_grouped;
using gemmroute::blas::fortran_strided;
using gemmroute::blas::kCblasGrouped;
using gemmroute::blas::kCblasStrided;
using gemmroute::blas::kFortranGrouped;
using gemmroute::blas::kFortranStrided;
using gemmroute::blas::Routine;

// Complex scalars and matrices are void pointers in the CBLAS forms, as in oneMKL's cblas.h.
#define GEMMROUTE_BATCH(x, T, S, P, FNAME, FSNAME)                                                 \
  GEMMROUTE_BLAS_API void x##gemm_batch_(                                                          \
      const char* transa_array, const char* transb_array, const int* m_array, const int* n_array,  \
      const int* k_array, const T* alpha_array, const T** a_array, const int* lda_array,           \
      const T** b_array, const int* ldb_array, const T* beta_array, T** c_array,                   \
      const int* ldc_array, const int* group_count, const int* group_size) {                       \
    static constexpr Routine routine{Api::fortran, FNAME, kFortranGrouped};                        \
    fortran_grouped<T>(routine, transa_array, transb_array, m_array, n_array, k_array,             \
                       alpha_array, a_array, lda_array, b_array, ldb_array, beta_array, c_array,   \
                       ldc_array, group_count, group_size);                                        \
  }                                                                                                \
  GEMMROUTE_BLAS_API void cblas_##x##gemm_batch(                                                   \
      int layout, const int* transa_array, const int* transb_array, const int* m_array,            \
      const int* n_array, const int* k_array, const S* alpha_array, const P** a_array,             \
      const int* lda_array, const P** b_array, const int* ldb_array, const S* beta_array,          \
      P** c_array, const int* ldc_array, int group_count, const int* group_size) {                 \
    static constexpr Routine routine{Api::cblas, "cblas_" #x "gemm_batch", kCblasGrouped};         \
    cblas_grouped<T>(routine, layout, transa_array, transb_array, m_array, n_array, k_array,       \
                     reinterpret_cast<const T*>(alpha_array),                                      \
                     reinterpret_cast<const T* const*>(a_array), lda_array,                        \
                     reinterpret_cast<const T* const*>(b_array), ldb_array,                        \
                     reinterpret_cast<const T*>(beta_array), reinterpret_cast<T* const*>(c_array), \
                     ldc_array, group_count, group_size);                                          \
  }                                                                                                \
  GEMMROUTE_BLAS_API void x##gemm_batch_strided_(                                                  \
      const char* transa, const char* transb, const int* m, const int* n, const int* k,            \
      const T* alpha, const T* a, const int* lda, const int* stridea, const T* b, const int* ldb,  \
      const int* strideb, const T* beta, T* c, const int* ldc, const int* stridec,                 \
      const int* batch_size) {                                                                     \
    static constexpr Routine routine{Api::fortran, FSNAME, kFortranStrided};                       \
    fortran_strided<T>(routine, transa, transb, m, n, k, alpha, a, lda, stridea, b, ldb, strideb,  \
                       beta, c, ldc, stridec, batch_size);                                         \
  }

GEMMROUTE_BATCH(s, float, float, float, "SGEMM_BATCH", "SGEMM_BATCH_STRIDED")
GEMMROUTE_BATCH(d, double, double, double, "DGEMM_BATCH", "DGEMM_BATCH_STRIDED")
GEMMROUTE_BATCH(c, c32, void, void, "CGEMM_BATCH", "CGEMM_BATCH_STRIDED")
GEMMROUTE_BATCH(z, c64, void, void, "ZGEMM_BATCH", "ZGEMM_BATCH_STRIDED")
#undef GEMMROUTE_BATCH

GEMMROUTE_BLAS_API void cblas_sgemm_batch_strided(int layout, int transa, int transb, int m, int n,
                                                  int k, float alpha, const float* a, int lda,
                                                  int stridea, const float* b, int ldb, int strideb,
                                                  float beta, float* c, int ldc, int stridec,
                                                  int batch_size) {
  static constexpr Routine routine{Api::cblas, "cblas_sgemm_batch_strided", kCblasStrided};
  cblas_strided<float>(routine, layout, transa, transb, m, n, k, &alpha, a, lda, stridea, b, ldb,
                       strideb, &beta, c, ldc, stridec, batch_size);
}

GEMMROUTE_BLAS_API void cblas_dgemm_batch_strided(int layout, int transa, int transb, int m, int n,
                                                  int k, double alpha, const double* a, int lda,
                                                  int stridea, const double* b, int ldb,
                                                  int strideb, double beta, double* c, int ldc,
                                                  int stridec, int batch_size) {
  static constexpr Routine routine{Api::cblas, "cblas_dgemm_batch_strided", kCblasStrided};
  cblas_strided<double>(routine, layout, transa, transb, m, n, k, &alpha, a, lda, stridea, b, ldb,
                        strideb, &beta, c, ldc, stridec, batch_size);
}

GEMMROUTE_BLAS_API void cblas_cgemm_batch_strided(int layout, int transa, int transb, int m, int n,
                                                  int k, const void* alpha, const void* a, int lda,
                                                  int stridea, const void* b, int ldb, int strideb,
                                                  const void* beta, void* c, int ldc, int stridec,
                                                  int batch_size) {
  static constexpr Routine routine{Api::cblas, "cblas_cgemm_batch_strided", kCblasStrided};
  cblas_strided<c32>(routine, layout, transa, transb, m, n, k, static_cast<const c32*>(alpha),
                     static_cast<const c32*>(a), lda, stridea, static_cast<const c32*>(b), ldb,
                     strideb, static_cast<const c32*>(beta), static_cast<c32*>(c), ldc, stridec,
                     batch_size);
}

GEMMROUTE_BLAS_API void cblas_zgemm_batch_strided(int layout, int transa, int transb, int m, int n,
                                                  int k, const void* alpha, const void* a, int lda,
                                                  int stridea, const void* b, int ldb, int strideb,
                                                  const void* beta, void* c, int ldc, int stridec,
                                                  int batch_size) {
  static constexpr Routine routine{Api::cblas, "cblas_zgemm_batch_strided", kCblasStrided};
  cblas_strided<c64>(routine, layout, transa, transb, m, n, k, static_cast<const c64*>(alpha),
                     static_cast<const c64*>(a), lda, stridea, static_cast<const c64*>(b), ldb,
                     strideb, static_cast<const c64*>(beta), static_cast<c64*>(c), ldc, stridec,
                     batch_size);
}
