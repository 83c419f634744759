// dispatch(scalar, f): calls f.template operator()<T>() with T the C++ type of the scalar
// (float, double, std::complex<float>, std::complex<double>). Host code only. The dtype form
// takes uniform dtypes only (is_uniform): a candidate that runs bf16, f16 or TF32 handles them
// itself, and every other candidate refuses them in can_run (uniform_only) before it gets here.
#pragma once

#include <complex>

#include "gemmroute/error.hpp"
#include "gemmroute/types.hpp"

namespace gemmroute {

template <class F>
decltype(auto) dispatch(Scalar s, F&& f) {
  switch (s) {
    case Scalar::f32:
      return f.template operator()<float>();
    case Scalar::f64:
      return f.template operator()<double>();
    case Scalar::c32:
      return f.template operator()<std::complex<float>>();
    case Scalar::c64:
      return f.template operator()<std::complex<double>>();
    case Scalar::bf16:
    case Scalar::f16:
      break;
  }
  throw Error(Errc::internal, "dtype", "dispatch: not one of f32, f64, c32, c64");
}

template <class F>
decltype(auto) dispatch(DType d, F&& f) {
  if (!is_uniform(d)) {
    throw Error(Errc::internal, "dtype", "dispatch: " + to_string(d) + " is not a uniform dtype");
  }
  return dispatch(d.in, static_cast<F&&>(f));
}

// can_run's answer for a candidate that runs uniform dtypes only, or nullptr when it may run.
inline const char* uniform_only(DType d) noexcept {
  return is_uniform(d) ? nullptr : "runs f32, f64, c32 and c64 only (not bf16, f16 or TF32)";
}

}  // namespace gemmroute
