// The single-GEMM entry points: Fortran ?gemm_ and CBLAS cblas_?gemm.
//
// Each checks its arguments exactly as reference BLAS (or reference CBLAS) does, reports a bad
// one to the program's xerbla_ / cblas_xerbla at the reference's position and writes nothing,
// takes the reference's quick return, and hands the rest to gemmroute::gemm (a batch of one).
#include <complex>

#include "blas/runtime.hpp"
#include "gemmroute/gemm.hpp"

namespace gemmroute::blas {
namespace {

using c32 = std::complex<float>;
using c64 = std::complex<double>;

// ?GEMM(TRANSA, TRANSB, M, N, K, ALPHA, A, LDA, B, LDB, BETA, C, LDC)
constexpr Positions kFortran{.transa = 1,
                             .transb = 2,
                             .m = 3,
                             .n = 4,
                             .k = 5,
                             .a = 7,
                             .lda = 8,
                             .b = 9,
                             .ldb = 10,
                             .c = 12,
                             .ldc = 13};
// cblas_?gemm(Layout, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc)
constexpr Positions kCblas{.layout = 1,
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
                           .ldc = 14};

template <class T>
void fortran_gemm(const Routine& r, const char* transa, const char* transb, const int* m,
                  const int* n, const int* k, const T* alpha, const T* a, const int* lda,
                  const T* b, const int* ldb, const T* beta, T* c, const int* ldc) noexcept {
  guarded(r, [&] {
    std::optional<Op> ta = fortran_trans(*transa);
    if (!ta) return report(r, r.positions.transa);
    std::optional<Op> tb = fortran_trans(*transb);
    if (!tb) return report(r, r.positions.transb);
    if (auto bad = bad_size(*ta, *tb, *m, *n, *k, *lda, *ldb, *ldc)) {
      return report(r, position_of(r.positions, *bad));
    }
    if (quick_return(*m, *n, *k, *alpha, *beta)) return;
    gemm<T>(context(), Order::col_major, *ta, *tb, *m, *n, *k, *alpha, a, *lda, 0, b, *ldb, 0,
            *beta, c, *ldc, 0, 1);
  });
}

template <class T>
void cblas_gemm(const Routine& r, int layout, int transa, int transb, int m, int n, int k, T alpha,
                const T* a, int lda, const T* b, int ldb, T beta, T* c, int ldc) noexcept {
  guarded(r, [&] {
    std::optional<Order> order = cblas_layout(layout);
    if (!order) return report(r, 1, "Illegal layout setting, %d\n", layout);
    std::optional<Op> ta = cblas_trans(transa);
    if (!ta) return report(r, 2, "Illegal TransA setting, %d\n", transa);
    std::optional<Op> tb = cblas_trans(transb);
    if (!tb) return report(r, 3, "Illegal TransB setting, %d\n", transb);
    // Reference CBLAS hands a row-major call to ?GEMM swapped (TransB, TransA, N, M, K, B, ldb,
    // A, lda) and reports what ?GEMM finds there, one position on: a bad N as 4, a bad lda as
    // 11. Programs' cblas_xerbla (the reference test's among them) undo exactly that swap.
    std::optional<Arg> bad = *order == Order::col_major
                                 ? bad_size(*ta, *tb, m, n, k, lda, ldb, ldc)
                                 : bad_size(*tb, *ta, n, m, k, ldb, lda, ldc);
    if (bad) return report(r, position_of(r.positions, *bad));
    if (quick_return(m, n, k, alpha, beta)) return;
    gemm<T>(context(), *order, *ta, *tb, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0, 1);
  });
}

template <class T>
T scalar(const void* p) noexcept {
  return *static_cast<const T*>(p);
}

}  // namespace
}  // namespace gemmroute::blas

using gemmroute::blas::Api;
using gemmroute::blas::c32;
using gemmroute::blas::c64;
using gemmroute::blas::cblas_gemm;
using gemmroute::blas::fortran_gemm;
using gemmroute::blas::kCblas;
using gemmroute::blas::kFortran;
using gemmroute::blas::Routine;
using gemmroute::blas::scalar;

// Fortran: character arguments by reference; the hidden lengths gfortran appends are not read,
// so callers that pass them and callers that do not both work.
#define GEMMROUTE_FORTRAN_GEMM(x, T, NAME)                                                    \
  GEMMROUTE_BLAS_API void x##gemm_(const char* transa, const char* transb, const int* m,      \
                                   const int* n, const int* k, const T* alpha, const T* a,    \
                                   const int* lda, const T* b, const int* ldb, const T* beta, \
                                   T* c, const int* ldc) {                                    \
    static constexpr Routine routine{Api::fortran, NAME, kFortran};                           \
    fortran_gemm<T>(routine, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);   \
  }

GEMMROUTE_FORTRAN_GEMM(s, float, "SGEMM ")
GEMMROUTE_FORTRAN_GEMM(d, double, "DGEMM ")
GEMMROUTE_FORTRAN_GEMM(c, c32, "CGEMM ")
GEMMROUTE_FORTRAN_GEMM(z, c64, "ZGEMM ")
#undef GEMMROUTE_FORTRAN_GEMM

GEMMROUTE_BLAS_API void cblas_sgemm(int layout, int transa, int transb, int m, int n, int k,
                                    float alpha, const float* a, int lda, const float* b, int ldb,
                                    float beta, float* c, int ldc) {
  static constexpr Routine routine{Api::cblas, "cblas_sgemm", kCblas};
  cblas_gemm<float>(routine, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

GEMMROUTE_BLAS_API void cblas_dgemm(int layout, int transa, int transb, int m, int n, int k,
                                    double alpha, const double* a, int lda, const double* b,
                                    int ldb, double beta, double* c, int ldc) {
  static constexpr Routine routine{Api::cblas, "cblas_dgemm", kCblas};
  cblas_gemm<double>(routine, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

GEMMROUTE_BLAS_API void cblas_cgemm(int layout, int transa, int transb, int m, int n, int k,
                                    const void* alpha, const void* a, int lda, const void* b,
                                    int ldb, const void* beta, void* c, int ldc) {
  static constexpr Routine routine{Api::cblas, "cblas_cgemm", kCblas};
  cblas_gemm<c32>(routine, layout, transa, transb, m, n, k, scalar<c32>(alpha),
                  static_cast<const c32*>(a), lda, static_cast<const c32*>(b), ldb,
                  scalar<c32>(beta), static_cast<c32*>(c), ldc);
}

GEMMROUTE_BLAS_API void cblas_zgemm(int layout, int transa, int transb, int m, int n, int k,
                                    const void* alpha, const void* a, int lda, const void* b,
                                    int ldb, const void* beta, void* c, int ldc) {
  static constexpr Routine routine{Api::cblas, "cblas_zgemm", kCblas};
  cblas_gemm<c64>(routine, layout, transa, transb, m, n, k, scalar<c64>(alpha),
                  static_cast<const c64*>(a), lda, static_cast<const c64*>(b), ldb,
                  scalar<c64>(beta), static_cast<c64*>(c), ldc);
}
