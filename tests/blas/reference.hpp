// The tests' oracle: one GEMM in long double, column-major or row-major, and the reference
// BLAS test's acceptance rule per element (docs/architecture.md, "Numerics").
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

namespace blas_test {

template <class T>
struct Wide {
  using type = long double;
};
template <class R>
struct Wide<std::complex<R>> {
  using type = std::complex<long double>;
};
template <class T>
using wide_t = typename Wide<T>::type;

template <class T>
struct RealOf {
  using type = T;
};
template <class R>
struct RealOf<std::complex<R>> {
  using type = R;
};

template <class T>
T random_value(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(d(rng));
  } else {
    using R = typename T::value_type;
    R re = static_cast<R>(d(rng));
    return T(re, static_cast<R>(d(rng)));
  }
}

template <class T>
std::vector<T> random_vector(std::size_t n, std::mt19937_64& rng) {
  std::vector<T> v(n);
  for (T& x : v) x = random_value<T>(rng);
  return v;
}

// op = 'N', 'T' or 'C'.
template <class T>
wide_t<T> element(const T* x, std::int64_t ld, bool row_major, char op, std::int64_t i,
                  std::int64_t j) {
  // op(X)(i, j)
  const std::int64_t r = op == 'N' ? i : j, c = op == 'N' ? j : i;
  const T v = row_major ? x[r * ld + c] : x[r + c * ld];
  wide_t<T> w = static_cast<wide_t<T>>(v);
  if constexpr (!std::is_floating_point_v<T>) {
    if (op == 'C') w = std::conj(w);
  }
  return w;
}

// Checks C (after) against alpha op(A) op(B) + beta C0 (before); returns the number of bad
// elements (NaN is always bad) and checks nothing outside the m x n part changed.
template <class T>
int check_gemm(bool row_major, char ta, char tb, std::int64_t m, std::int64_t n, std::int64_t k,
               T alpha, const T* a, std::int64_t lda, const T* b, std::int64_t ldb, T beta,
               const T* c0, const T* c, std::int64_t ldc) {
  using W = wide_t<T>;
  using R = typename RealOf<T>::type;
  const long double eps = std::numeric_limits<R>::epsilon();
  int bad = 0;
  const std::int64_t rows = row_major ? m : ldc, cols = row_major ? ldc : n;
  for (std::int64_t p = 0; p < (row_major ? rows : cols); ++p) {
    for (std::int64_t q = 0; q < (row_major ? cols : rows); ++q) {
      const std::int64_t i = row_major ? p : q, j = row_major ? q : p;
      const std::int64_t at = row_major ? i * ldc + j : i + j * ldc;
      if (i >= m || j >= n) {  // padding: must be untouched, bit for bit
        if (std::memcmp(&c[at], &c0[at], sizeof(T)) != 0) ++bad;
        continue;
      }
      W sum = 0;
      long double mag = 0;
      for (std::int64_t q2 = 0; q2 < k; ++q2) {
        const W x = element(a, lda, row_major, ta, i, q2);
        const W y = element(b, ldb, row_major, tb, q2, j);
        sum += x * y;
        mag += std::abs(x) * std::abs(y);
      }
      const W want = static_cast<W>(alpha) * sum +
                     (beta == T(0) ? W(0) : static_cast<W>(beta) * static_cast<W>(c0[at]));
      const long double scaled_c =
          beta == T(0) ? 0.0L : std::abs(static_cast<W>(beta)) * std::abs(static_cast<W>(c0[at]));
      const long double bound = 16 * eps * (std::abs(static_cast<W>(alpha)) * mag + scaled_c) +
                                std::numeric_limits<long double>::min();
      const long double err = std::abs(static_cast<W>(c[at]) - want);
      if (!(err <= bound)) ++bad;
    }
  }
  return bad;
}

}  // namespace blas_test
