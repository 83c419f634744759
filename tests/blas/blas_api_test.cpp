// libgemmroute_blas.so linked as a program would link it: the batch interfaces against the
// long-double oracle, the error channel (this program defines its own xerbla_ and
// cblas_xerbla, as the reference test programs do), and that every other BLAS/LAPACK symbol
// still resolves to OpenBLAS.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "blas_api.hpp"
#include "reference.hpp"

using namespace blas_test;
using z64 = std::complex<double>;

// The program's own error handlers; the link exports them (--export-dynamic-symbol) so the
// library's global-scope look-up finds these before OpenBLAS's.
namespace {
std::string g_name;
int g_info = 0;
int g_calls = 0;
void reset_errors() {
  g_name.clear();
  g_info = 0;
  g_calls = 0;
}
}  // namespace

extern "C" void xerbla_(const char* name, const int* info, std::size_t len) {
  g_name.assign(name, len);
  g_info = *info;
  ++g_calls;
}

extern "C" void cblas_xerbla(int info, const char* name, const char*, ...) {
  g_name = name;
  g_info = info;
  ++g_calls;
}

namespace {

char op_char(int t) {
  return t == kNoTrans ? 'N' : t == kTrans ? 'T' : 'C';
}

// Rows and columns of op(X) as stored: (rows, cols) of the stored matrix in its layout.
struct Shape {
  std::int64_t rows, cols;
};
Shape stored(bool row_major, char op, std::int64_t r, std::int64_t c) {
  // op(X) is r x c; X is r x c for N, c x r otherwise. Row-major swaps what ld counts.
  const std::int64_t xr = op == 'N' ? r : c, xc = op == 'N' ? c : r;
  return row_major ? Shape{xc, xr} : Shape{xr, xc};  // {ld needs >= first, extent second}
}

template <class T>
void strided_case(bool row_major, int ta, int tb, int m, int n, int k, T alpha, T beta,
                  bool broadcast_b, int batch) {
  std::mt19937_64 rng(static_cast<unsigned>(m * 131 + n * 17 + k + ta * 7 + tb));
  const char oa = op_char(ta), ob = op_char(tb);
  const Shape sa = stored(row_major, oa, m, k), sb = stored(row_major, ob, k, n);
  const Shape sc = row_major ? Shape{n, m} : Shape{m, n};
  const int lda = static_cast<int>(sa.rows) + 2, ldb = static_cast<int>(sb.rows) + 1;
  const int ldc = static_cast<int>(sc.rows) + 3;
  const int stride_a = lda * static_cast<int>(sa.cols) + 5;
  const int stride_b = broadcast_b ? 0 : ldb * static_cast<int>(sb.cols) + 4;
  const int stride_c = ldc * static_cast<int>(sc.cols) + 7;
  auto a = random_vector<T>(static_cast<std::size_t>(stride_a) * batch, rng);
  auto b = random_vector<T>(
      static_cast<std::size_t>(broadcast_b ? ldb * sb.cols : stride_b * batch), rng);
  auto c = random_vector<T>(static_cast<std::size_t>(stride_c) * batch, rng);
  const auto c0 = c;
  const int layout = row_major ? kRowMajor : kColMajor;
  if constexpr (std::is_same_v<T, double>) {
    cblas_dgemm_batch_strided(layout, ta, tb, m, n, k, alpha, a.data(), lda, stride_a, b.data(),
                              ldb, stride_b, beta, c.data(), ldc, stride_c, batch);
  } else {
    cblas_zgemm_batch_strided(layout, ta, tb, m, n, k, &alpha, a.data(), lda, stride_a, b.data(),
                              ldb, stride_b, &beta, c.data(), ldc, stride_c, batch);
  }
  for (int i = 0; i < batch; ++i) {
    const std::size_t oc = static_cast<std::size_t>(i) * stride_c;
    EXPECT_EQ(check_gemm<T>(row_major, oa, ob, m, n, k, alpha, a.data() + i * stride_a, lda,
                            b.data() + i * stride_b, ldb, beta, c0.data() + oc, c.data() + oc, ldc),
              0)
        << "item " << i << (row_major ? " row" : " col") << "-major " << oa << ob << " m=" << m
        << " n=" << n << " k=" << k;
    // The gap between items of C (stride_c > ldc * cols) is not C's: untouched.
    for (std::size_t g = oc + static_cast<std::size_t>(ldc) * sc.cols; g < oc + stride_c; ++g) {
      EXPECT_EQ(std::memcmp(&c[g], &c0[g], sizeof(T)), 0);
    }
  }
}

TEST(BlasBatchStrided, DoubleMatchesReference) {
  for (bool row : {false, true}) {
    for (int ta : {kNoTrans, kTrans}) {
      for (int tb : {kNoTrans, kTrans, kConjTrans}) {
        strided_case<double>(row, ta, tb, 7, 5, 9, 0.7, 1.3, false, 6);
        strided_case<double>(row, ta, tb, 33, 20, 17, -1.1, 0.0, false, 3);
        strided_case<double>(row, ta, tb, 4, 6, 3, 1.0, 0.5, true, 5);  // B broadcast
      }
    }
  }
}

TEST(BlasBatchStrided, ComplexMatchesReference) {
  for (bool row : {false, true}) {
    for (int ta : {kNoTrans, kTrans, kConjTrans}) {
      for (int tb : {kNoTrans, kConjTrans}) {
        strided_case<z64>(row, ta, tb, 5, 6, 7, z64(0.7, -0.9), z64(1.3, 0.2), false, 4);
        strided_case<z64>(row, ta, tb, 19, 3, 18, z64(1.0, 0.0), z64(0.0, 0.0), true, 3);
      }
    }
  }
}

TEST(BlasBatchStrided, FortranFormMatchesCblasForm) {
  std::mt19937_64 rng(7);
  const int m = 6, n = 5, k = 4, lda = 4, ldb = 5, ldc = 7, sa = 24, sb = 25, sc = 40, batch = 4;
  const double alpha = 0.9, beta = -0.4;
  auto a = random_vector<double>(sa * batch, rng), b = random_vector<double>(sb * batch, rng);
  auto c = random_vector<double>(sc * batch, rng);
  const auto c0 = c;
  dgemm_batch_strided_("T", "N", &m, &n, &k, &alpha, a.data(), &lda, &sa, b.data(), &ldb, &sb,
                       &beta, c.data(), &ldc, &sc, &batch);
  for (int i = 0; i < batch; ++i) {
    EXPECT_EQ(check_gemm<double>(false, 'T', 'N', m, n, k, alpha, a.data() + i * sa, lda,
                                 b.data() + i * sb, ldb, beta, c0.data() + i * sc,
                                 c.data() + i * sc, ldc),
              0);
  }
}

// Three groups of different shapes, forms and scalars, one of them a quick return (alpha 0,
// beta 1) over a C full of NaN that must stay exactly as it was.
template <class T>
void grouped_case(bool row_major) {
  std::mt19937_64 rng(row_major ? 11 : 12);
  struct G {
    int ta, tb, m, n, k;
    T alpha, beta;
    int size;
  };
  const G groups[] = {{kNoTrans, kTrans, 5, 7, 3, T(0.5), T(1.5), 3},
                      {kTrans, kNoTrans, 9, 2, 11, T(-1.0), T(0.0), 2},
                      {kNoTrans, kNoTrans, 4, 4, 4, T(0.0), T(1.0), 2}};
  std::vector<int> ta, tb, m, n, k, lda, ldb, ldc, size;
  std::vector<T> alpha, beta;
  std::vector<std::vector<T>> as, bs, cs;
  for (const G& g : groups) {
    const Shape sa = stored(row_major, op_char(g.ta), g.m, g.k);
    const Shape sb = stored(row_major, op_char(g.tb), g.k, g.n);
    const Shape sc = row_major ? Shape{g.n, g.m} : Shape{g.m, g.n};
    ta.push_back(g.ta), tb.push_back(g.tb), m.push_back(g.m), n.push_back(g.n), k.push_back(g.k);
    alpha.push_back(g.alpha), beta.push_back(g.beta), size.push_back(g.size);
    lda.push_back(static_cast<int>(sa.rows) + 1), ldb.push_back(static_cast<int>(sb.rows));
    ldc.push_back(static_cast<int>(sc.rows) + 2);
    for (int i = 0; i < g.size; ++i) {
      as.push_back(random_vector<T>(lda.back() * sa.cols, rng));
      bs.push_back(random_vector<T>(ldb.back() * sb.cols, rng));
      cs.push_back(random_vector<T>(ldc.back() * sc.cols, rng));
      if (g.alpha == T(0)) {
        for (T& x : cs.back()) x = T(std::numeric_limits<double>::quiet_NaN());
      }
    }
  }
  const auto cs0 = cs;
  std::vector<const T*> ap, bp;
  std::vector<T*> cp;
  for (std::size_t i = 0; i < cs.size(); ++i) {
    ap.push_back(as[i].data()), bp.push_back(bs[i].data()), cp.push_back(cs[i].data());
  }
  const int layout = row_major ? kRowMajor : kColMajor;
  if constexpr (std::is_same_v<T, double>) {
    cblas_dgemm_batch(layout, ta.data(), tb.data(), m.data(), n.data(), k.data(), alpha.data(),
                      ap.data(), lda.data(), bp.data(), ldb.data(), beta.data(), cp.data(),
                      ldc.data(), 3, size.data());
  } else {
    cblas_zgemm_batch(layout, ta.data(), tb.data(), m.data(), n.data(), k.data(), alpha.data(),
                      reinterpret_cast<const void**>(ap.data()), lda.data(),
                      reinterpret_cast<const void**>(bp.data()), ldb.data(), beta.data(),
                      reinterpret_cast<void**>(cp.data()), ldc.data(), 3, size.data());
  }
  std::size_t item = 0;
  for (int g = 0; g < 3; ++g) {
    for (int i = 0; i < size[g]; ++i, ++item) {
      if (alpha[g] == T(0)) {
        EXPECT_EQ(std::memcmp(cs[item].data(), cs0[item].data(), cs[item].size() * sizeof(T)), 0);
        continue;
      }
      EXPECT_EQ(check_gemm<T>(row_major, op_char(ta[g]), op_char(tb[g]), m[g], n[g], k[g], alpha[g],
                              as[item].data(), lda[g], bs[item].data(), ldb[g], beta[g],
                              cs0[item].data(), cs[item].data(), ldc[g]),
                0)
          << "group " << g << " item " << i;
    }
  }
}

TEST(BlasBatchGrouped, DoubleColumnMajor) {
  grouped_case<double>(false);
}
TEST(BlasBatchGrouped, DoubleRowMajor) {
  grouped_case<double>(true);
}
TEST(BlasBatchGrouped, ComplexColumnMajor) {
  grouped_case<z64>(false);
}
TEST(BlasBatchGrouped, ComplexRowMajor) {
  grouped_case<z64>(true);
}

TEST(BlasBatchGrouped, FortranForm) {
  std::mt19937_64 rng(3);
  const char ta[] = {'n', 'C'}, tb[] = {'T', 'n'};
  const int m[] = {3, 6}, n[] = {4, 2}, k[] = {5, 3}, lda[] = {3, 3}, ldb[] = {4, 3},
            ldc[] = {3, 6}, size[] = {2, 1}, groups = 2;
  const double alpha[] = {1.5, -0.5}, beta[] = {0.0, 2.0};
  std::vector<std::vector<double>> a, b, c;
  for (int g = 0; g < 2; ++g) {
    for (int i = 0; i < size[g]; ++i) {
      a.push_back(random_vector<double>(lda[g] * 6, rng));
      b.push_back(random_vector<double>(ldb[g] * 5, rng));
      c.push_back(random_vector<double>(ldc[g] * n[g], rng));
    }
  }
  const auto c0 = c;
  std::vector<const double*> ap, bp;
  std::vector<double*> cp;
  for (std::size_t i = 0; i < c.size(); ++i) {
    ap.push_back(a[i].data()), bp.push_back(b[i].data()), cp.push_back(c[i].data());
  }
  dgemm_batch_(ta, tb, m, n, k, alpha, ap.data(), lda, bp.data(), ldb, beta, cp.data(), ldc,
               &groups, size);
  std::size_t item = 0;
  for (int g = 0; g < 2; ++g) {
    for (int i = 0; i < size[g]; ++i, ++item) {
      const char oa = static_cast<char>(std::toupper(ta[g])),
                 ob = static_cast<char>(std::toupper(tb[g]));
      EXPECT_EQ(check_gemm<double>(false, oa == 'C' ? 'T' : oa, ob, m[g], n[g], k[g], alpha[g],
                                   a[item].data(), lda[g], b[item].data(), ldb[g], beta[g],
                                   c0[item].data(), c[item].data(), ldc[g]),
                0);
    }
  }
}

// --- errors: the program's handler sees the routine and position; nothing is written -------

class BlasErrors : public ::testing::Test {
 protected:
  void SetUp() override { reset_errors(); }
  std::vector<double> a = std::vector<double>(64, 1.0), b = a, c = a;
  const std::vector<double> c0 = c;
  void expect_error(const char* name, int info) {
    EXPECT_EQ(g_calls, 1);
    EXPECT_EQ(g_name, name);
    EXPECT_EQ(g_info, info);
    EXPECT_EQ(c, c0) << "C written despite the error";
  }
};

TEST_F(BlasErrors, FortranGemmPositions) {
  const int two = 2, one = 1, neg = -1;
  const double alpha = 1, beta = 0;
  dgemm_("X", "N", &two, &two, &two, &alpha, a.data(), &two, b.data(), &two, &beta, c.data(), &two);
  expect_error("DGEMM ", 1);
  reset_errors();
  dgemm_("N", "N", &two, &neg, &two, &alpha, a.data(), &two, b.data(), &two, &beta, c.data(), &two);
  expect_error("DGEMM ", 4);
  reset_errors();
  dgemm_("N", "N", &two, &two, &two, &alpha, a.data(), &one, b.data(), &two, &beta, c.data(), &two);
  expect_error("DGEMM ", 8);
  reset_errors();
  dgemm_("N", "T", &two, &two, &two, &alpha, a.data(), &two, b.data(), &one, &beta, c.data(), &two);
  expect_error("DGEMM ", 10);
  reset_errors();
  dgemm_("N", "N", &two, &two, &two, &alpha, a.data(), &two, b.data(), &two, &beta, c.data(), &one);
  expect_error("DGEMM ", 13);
}

TEST_F(BlasErrors, CblasGemmPositionsFollowReferenceCblas) {
  cblas_dgemm(999, kNoTrans, kNoTrans, 2, 2, 2, 1.0, a.data(), 2, b.data(), 2, 0.0, c.data(), 2);
  expect_error("cblas_dgemm", 1);
  reset_errors();
  cblas_dgemm(kRowMajor, 999, kNoTrans, 2, 2, 2, 1.0, a.data(), 2, b.data(), 2, 0.0, c.data(), 2);
  expect_error("cblas_dgemm", 2);
  reset_errors();
  cblas_dgemm(kColMajor, kNoTrans, kNoTrans, 2, 2, 2, 1.0, a.data(), 1, b.data(), 2, 0.0, c.data(),
              2);
  expect_error("cblas_dgemm", 9);
  reset_errors();
  // Row-major: reference CBLAS reports ?GEMM's view of the swapped call, so a bad lda is 11
  // and a bad M is 5 (the reference test's cblas_xerbla swaps them back).
  cblas_dgemm(kRowMajor, kNoTrans, kNoTrans, 2, 2, 3, 1.0, a.data(), 2, b.data(), 2, 0.0, c.data(),
              2);
  expect_error("cblas_dgemm", 11);
  reset_errors();
  cblas_dgemm(kRowMajor, kNoTrans, kNoTrans, -1, 2, 2, 1.0, a.data(), 2, b.data(), 2, 0.0, c.data(),
              2);
  expect_error("cblas_dgemm", 5);
}

TEST_F(BlasErrors, StridedPositions) {
  cblas_dgemm_batch_strided(kColMajor, kNoTrans, kNoTrans, 2, 2, 2, 1.0, a.data(), 2, 4, b.data(),
                            2, 4, 0.0, c.data(), 2, 3, 2);  // items of C overlap
  expect_error("cblas_dgemm_batch_strided", 17);
  reset_errors();
  cblas_dgemm_batch_strided(kColMajor, kNoTrans, kNoTrans, 2, 2, 2, 1.0, a.data(), 2, -1, b.data(),
                            2, 4, 0.0, c.data(), 2, 4, 2);
  expect_error("cblas_dgemm_batch_strided", 10);
  reset_errors();
  cblas_dgemm_batch_strided(kRowMajor, kNoTrans, kNoTrans, 2, 3, 2, 1.0, a.data(), 2, 4, b.data(),
                            2, 6, 0.0, c.data(), 3, 6, 2);  // ldb < n
  expect_error("cblas_dgemm_batch_strided", 12);
  reset_errors();
  const int two = 2, four = 4, neg = -1;
  const double alpha = 1, beta = 0;
  dgemm_batch_strided_("N", "N", &two, &two, &two, &alpha, a.data(), &two, &four, b.data(), &two,
                       &four, &beta, c.data(), &two, &four, &neg);
  expect_error("DGEMM_BATCH_STRIDED", 17);
}

TEST_F(BlasErrors, GroupedChecksEveryGroupBeforeWriting) {
  const int ta[] = {kNoTrans, kNoTrans}, tb[] = {kNoTrans, kNoTrans}, m[] = {2, 2}, n[] = {2, 2},
            k[] = {2, 2}, lda[] = {2, 2}, ldb[] = {2, 2}, ldc[] = {2, 1}, size[] = {1, 1};
  const double alpha[] = {1, 1}, beta[] = {0, 0};
  const double* ap[] = {a.data(), a.data()};
  const double* bp[] = {b.data(), b.data()};
  double* cp[] = {c.data(), c.data() + 8};
  cblas_dgemm_batch(kColMajor, ta, tb, m, n, k, alpha, ap, lda, bp, ldb, beta, cp, ldc, 2, size);
  expect_error("cblas_dgemm_batch", 14);  // group 1's ldc; group 0 not run either
  reset_errors();
  const int bad_size[] = {1, -1};
  const int good_ldc[] = {2, 2};
  cblas_dgemm_batch(kColMajor, ta, tb, m, n, k, alpha, ap, lda, bp, ldb, beta, cp, good_ldc, 2,
                    bad_size);
  expect_error("cblas_dgemm_batch", 16);
  reset_errors();
  const int neg = -1;
  const char fta[] = {'N'}, ftb[] = {'N'};
  dgemm_batch_(fta, ftb, m, n, k, alpha, ap, lda, bp, ldb, beta, cp, good_ldc, &neg, size);
  expect_error("DGEMM_BATCH", 14);
}

TEST_F(BlasErrors, QuickReturnsReadNothing) {
  // m == 0 and (alpha == 0, beta == 1) return before touching A, B or C: null is fine.
  const int zero = 0, two = 2;
  const double one = 1, zero_d = 0;
  dgemm_("N", "N", &zero, &two, &two, &one, nullptr, &two, nullptr, &two, &zero_d, nullptr, &two);
  dgemm_("N", "N", &two, &two, &two, &zero_d, nullptr, &two, nullptr, &two, &one, c.data(), &two);
  EXPECT_EQ(g_calls, 0);
  EXPECT_EQ(c, c0);
}

// --- the rest of BLAS and LAPACK is OpenBLAS's ---------------------------------------------

std::string library_of(const char* symbol) {
  void* p = dlsym(RTLD_DEFAULT, symbol);
  Dl_info info{};
  if (!p || !dladdr(p, &info) || !info.dli_fname) return "(unresolved)";
  return info.dli_fname;
}

TEST(BlasForwarding, GemmIsOursEverythingElseOpenBlas) {
  for (const char* s : {"dgemm_", "cblas_sgemm", "zgemm_batch_", "cblas_dgemm_batch_strided"}) {
    EXPECT_NE(library_of(s).find("libgemmroute_blas"), std::string::npos) << s;
  }
  for (const char* s : {"daxpy_", "dgetrf_", "cblas_ddot", "dsyrk_", "dtrsm_"}) {
    EXPECT_NE(library_of(s).find("libopenblas"), std::string::npos) << s << " -> " << library_of(s);
  }
  using Daxpy = void (*)(const int*, const double*, const double*, const int*, double*, const int*);
  auto daxpy = reinterpret_cast<Daxpy>(dlsym(RTLD_DEFAULT, "daxpy_"));
  ASSERT_NE(daxpy, nullptr);
  const int n = 3, inc = 1;
  const double alpha = 2, x[] = {1, 2, 3};
  double y[] = {1, 1, 1};
  daxpy(&n, &alpha, x, &inc, y, &inc);
  EXPECT_EQ(y[0], 3);
  EXPECT_EQ(y[2], 7);
  // dgetrf_ (LAPACK, inside OpenBLAS) on a small matrix: it runs and factors.
  using Dgetrf = void (*)(const int*, const int*, double*, const int*, int*, int*);
  auto dgetrf = reinterpret_cast<Dgetrf>(dlsym(RTLD_DEFAULT, "dgetrf_"));
  ASSERT_NE(dgetrf, nullptr);
  double lu[] = {4, 2, 1, 3};
  int ipiv[2] = {}, info = -1;
  const int two = 2;
  dgetrf(&two, &two, lu, &two, ipiv, &info);
  EXPECT_EQ(info, 0);
  EXPECT_DOUBLE_EQ(lu[3], 3 - 0.5 * 1);  // U(2,2) = 3 - (2/4) * 1
}

}  // namespace
