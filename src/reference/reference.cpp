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
  if constexpr (std::is_same_v<T, bfloat16> || std::is_same_v<T, float16>) {
    return CLD(static_cast<LD>(to_float(v)), 0.0L);
  } else if constexpr (std::is_floating_point_v<T>) {
    return CLD(static_cast<LD>(v), 0.0L);
  } else {
    return CLD(static_cast<LD>(v.real()), static_cast<LD>(v.imag()));
  }
}

// To the output type; bf16 and f16 by way of f32 (two roundings).
template <class T>
T narrow(CLD v) {
  if constexpr (std::is_same_v<T, bfloat16>) {
    return to_bfloat16(static_cast<float>(v.real()));
  } else if constexpr (std::is_same_v<T, float16>) {
    return to_float16(static_cast<float>(v.real()));
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v.real());
  } else {
    using R = typename T::value_type;
    return T(static_cast<R>(v.real()), static_cast<R>(v.imag()));
  }
}

// The compute type's epsilon: the accumulation term's. TF32 keeps 10 mantissa bits: 2^-10.
double epsilon(Compute c) {
  switch (c) {
    case Compute::f32:
    case Compute::c32:
      return std::numeric_limits<float>::epsilon();
    case Compute::tf32:
      return 0x1p-10;
    case Compute::f64:
    case Compute::c64:
      break;
  }
  return std::numeric_limits<double>::epsilon();
}

// The output's rounding beyond the compute type's, as a relative bound (unit roundoff) and an
// absolute one (half the spacing of its subnormals): none where C is the compute type.
struct OutputRounding {
  LD relative = 0, absolute = 0;
};
OutputRounding output_rounding(Scalar out) {
  if (out == Scalar::bf16) return {0x1p-8L, 0x1p-134L};
  if (out == Scalar::f16) return {0x1p-11L, 0x1p-25L};
  return {};
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

template <class T, class Out>
Expected expected(const Problem& p, const T* a, const T* b, const Out* c0, std::int64_t i,
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

// Bound per element: c * eps * scale for the computation, and where C is narrower than the
// compute type one more rounding of the computed value: relative * (|ref| + c * eps * scale)
// + absolute.
template <class T, class Out = T>
Check check_typed(const Problem& got, const Problem& orig, double c_factor) {
  Check out;
  const double eps = epsilon(orig.dtype.compute);
  const OutputRounding rounding = output_rounding(orig.dtype.out);
  for (std::int64_t item = 0; item < got.batch; ++item) {
    const T* a = orig.item_a<T>(item);
    const T* b = orig.item_b<T>(item);
    const Out* c0 = orig.item_c<Out>(item);
    const Out* c = got.item_c<Out>(item);
    for (std::int64_t j = 0; j < got.n; ++j) {
      for (std::int64_t i = 0; i < got.m; ++i) {
        Expected e = expected(orig, a, b, c0, i, j);
        CLD v = widen(c[i + j * got.c.ld]);
        LD err = mag(v - e.value);
        LD bound = static_cast<LD>(c_factor * eps) * e.scale;
        bound += rounding.relative * (mag(e.value) + bound) + rounding.absolute;
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

template <class T, class Out = T>
void reference_typed(const Problem& p) {
  for (std::int64_t item = 0; item < p.batch; ++item) {
    const T* a = p.item_a<T>(item);
    const T* b = p.item_b<T>(item);
    Out* c = p.item_c<Out>(item);
    for (std::int64_t j = 0; j < p.n; ++j) {
      for (std::int64_t i = 0; i < p.m; ++i) {
        c[i + j * p.c.ld] = narrow<Out>(expected(p, a, b, c, i, j).value);
      }
    }
  }
}

// f(In, Out) for the input and output types of any supported dtype (TF32: float, float; the
// reference takes the f32 inputs as they are, unrounded).
template <class F>
decltype(auto) dispatch_types(DType d, F&& f) {
  if (is_uniform(d)) {
    return dispatch(d.in, [&]<class T>() { return f.template operator()<T, T>(); });
  }
  const bool to_f32 = d.out == Scalar::f32;
  if (d.in == Scalar::bf16) {
    return to_f32 ? f.template operator()<bfloat16, float>()
                  : f.template operator()<bfloat16, bfloat16>();
  }
  if (d.in == Scalar::f16) {
    return to_f32 ? f.template operator()<float16, float>()
                  : f.template operator()<float16, float16>();
  }
  return f.template operator()<float, float>();
}

}  // namespace

Check check_against_reference(const Problem& computed, const Problem& original, double c_factor) {
  return dispatch_types(computed.dtype, [&]<class T, class Out>() {
    return check_typed<T, Out>(computed, original, c_factor);
  });
}

void reference_gemm(const Problem& problem) {
  dispatch_types(problem.dtype, [&]<class T, class Out>() { reference_typed<T, Out>(problem); });
}

}  // namespace gemmroute::reference
