#include "reference/reference.hpp"

#include <cmath>
#include <complex>
#include <limits>

#include "core/dispatch.hpp"

namespace gemmroute::reference {
namespace {

using LD = long double;
using CLD = std::complex<long double>;

template <class T>
CLD widen(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return CLD(static_cast<LD>(v), 0.0L);
  } else {
    return CLD(static_cast<LD>(v.real()), static_cast<LD>(v.imag()));
  }
}

template <class T>
T narrow(CLD v) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v.real());
  } else {
    using R = typename T::value_type;
    return T(static_cast<R>(v.real()), static_cast<R>(v.imag()));
  }
}

template <class T>
double epsilon() {
  if constexpr (std::is_floating_point_v<T>) {
    return std::numeric_limits<T>::epsilon();
  } else {
    return std::numeric_limits<typename T::value_type>::epsilon();
  }
}

// |z| for the bound: |re| + |im| (an upper bound on the modulus, as reference BLAS tests use).
LD mag(CLD z) {
  return std::fabs(z.real()) + std::fabs(z.imag());
}

template <class T>
CLD op_elem(const T* x, std::int64_t ld, Op op, std::int64_t r, std::int64_t c) {
  // op(X)(r, c)
  if (op == Op::N) return widen(x[r + c * ld]);
  CLD v = widen(x[c + r * ld]);
  return op == Op::C ? std::conj(v) : v;
}

struct Expected {
  CLD value;
  LD scale;  // |alpha| sum |a||b| + |beta| |c0|
};

template <class T>
Expected expected(const Problem& p, const T* a, const T* b, const T* c0, std::int64_t i,
                  std::int64_t j) {
  const CLD alpha(static_cast<LD>(p.alpha.real()), static_cast<LD>(p.alpha.imag()));
  const CLD beta(static_cast<LD>(p.beta.real()), static_cast<LD>(p.beta.imag()));
  CLD sum = 0;
  LD abs_sum = 0;
  if (alpha != CLD(0)) {
    for (std::int64_t q = 0; q < p.k; ++q) {
      CLD x = op_elem(a, p.a.ld, p.ta, i, q);
      CLD y = op_elem(b, p.b.ld, p.tb, q, j);
      sum += x * y;
      abs_sum += mag(x) * mag(y);
    }
  }
  Expected e{alpha == CLD(0) ? CLD(0) : alpha * sum, mag(alpha) * abs_sum};
  if (beta != CLD(0)) {
    CLD c = widen(c0[i + j * p.c.ld]);
    e.value += beta * c;
    e.scale += mag(beta) * mag(c);
  }
  return e;
}

template <class T>
Check check_typed(const Problem& got, const Problem& orig, double c_factor) {
  Check out;
  const double eps = epsilon<T>();
  for (std::int64_t item = 0; item < got.batch; ++item) {
    const T* a = orig.item_a<T>(item);
    const T* b = orig.item_b<T>(item);
    const T* c0 = orig.item_c<T>(item);
    const T* c = got.item_c<T>(item);
    for (std::int64_t j = 0; j < got.n; ++j) {
      for (std::int64_t i = 0; i < got.m; ++i) {
        Expected e = expected(orig, a, b, c0, i, j);
        CLD v = widen(c[i + j * got.c.ld]);
        LD err = mag(v - e.value);
        LD bound = static_cast<LD>(c_factor * eps) * e.scale;
        double ratio;
        if (std::isnan(v.real()) || std::isnan(v.imag())) {
          ratio = std::numeric_limits<double>::infinity();
        } else if (bound == 0) {
          ratio = err == 0 ? 0.0 : std::numeric_limits<double>::infinity();
        } else {
          ratio = static_cast<double>(err / bound);
        }
        if (!(ratio <= out.worst)) {
          out.worst = ratio;
          out.item = item;
          out.row = i;
          out.col = j;
        }
      }
    }
  }
  if (!(out.worst <= 1.0)) {
    out.ok = false;
    out.message = "error " + std::to_string(out.worst) + "x the bound at item " +
                  std::to_string(out.item) + " (" + std::to_string(out.row) + ", " +
                  std::to_string(out.col) + ")";
  }
  return out;
}

template <class T>
void reference_typed(const Problem& p) {
  for (std::int64_t item = 0; item < p.batch; ++item) {
    const T* a = p.item_a<T>(item);
    const T* b = p.item_b<T>(item);
    T* c = p.item_c<T>(item);
    for (std::int64_t j = 0; j < p.n; ++j) {
      for (std::int64_t i = 0; i < p.m; ++i) {
        c[i + j * p.c.ld] = narrow<T>(expected(p, a, b, c, i, j).value);
      }
    }
  }
}

}  // namespace

Check check_against_reference(const Problem& computed, const Problem& original, double c_factor) {
  return dispatch(computed.dtype,
                  [&]<class T>() { return check_typed<T>(computed, original, c_factor); });
}

void reference_gemm(const Problem& problem) {
  dispatch(problem.dtype, [&]<class T>() { reference_typed<T>(problem); });
}

}  // namespace gemmroute::reference
