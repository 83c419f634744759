// dispatch(scalar, f): calls f.template operator()<T>() with T the C++ type of the scalar
// (float, double, std::complex<float>, std::complex<double>). Host code only.
#pragma once

#include <complex>

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
  }
  return f.template operator()<float>();
}

}  // namespace gemmroute
