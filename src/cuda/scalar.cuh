// Device-side scalars: float, double, and Cx<R>, a plain complex type with the layout of
// std::complex<R>. std::complex never reaches device code: its operator* follows C Annex G
// (NaN checks, a __mulsc3 call), and a GEMM needs the four-FMA product.
//
// Ops<T> gathers what kernels need, so one kernel body serves all four scalars:
//   Ops<T>::fma(a, b, acc)    acc + a * b
//   Ops<T>::mul(a, b)         a * b
//   Ops<T>::conj(a)           conjugate (identity for real T)
//   Ops<T>::is_zero(a)
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>

namespace gemmroute::cuda {

// Aligned as R (not 2 R), like std::complex<R>: callers may pass bases that are only
// element-aligned.
template <class R>
struct Cx {
  R re, im;
};

template <class T>
struct Ops;

template <>
struct Ops<float> {
  static constexpr bool complex = false;
  __host__ __device__ static float zero() { return 0.0f; }
  __device__ static float fma(float a, float b, float acc) { return fmaf(a, b, acc); }
  __device__ static float mul(float a, float b) { return a * b; }
  __device__ static float conj(float a) { return a; }
  __host__ __device__ static bool is_zero(float a) { return a == 0.0f; }
};

template <>
struct Ops<double> {
  static constexpr bool complex = false;
  __host__ __device__ static double zero() { return 0.0; }
  __device__ static double fma(double a, double b, double acc) { return ::fma(a, b, acc); }
  __device__ static double mul(double a, double b) { return a * b; }
  __device__ static double conj(double a) { return a; }
  __host__ __device__ static bool is_zero(double a) { return a == 0.0; }
};

template <class R>
struct Ops<Cx<R>> {
  using T = Cx<R>;
  static constexpr bool complex = true;
  __host__ __device__ static T zero() { return {R(0), R(0)}; }
  // (a.re + i a.im)(b.re + i b.im) + acc as four FMAs.
  __device__ static T fma(T a, T b, T acc) {
    acc.re = Ops<R>::fma(a.re, b.re, acc.re);
    acc.re = Ops<R>::fma(-a.im, b.im, acc.re);
    acc.im = Ops<R>::fma(a.re, b.im, acc.im);
    acc.im = Ops<R>::fma(a.im, b.re, acc.im);
    return acc;
  }
  __device__ static T mul(T a, T b) { return fma(a, b, zero()); }
  __device__ static T conj(T a) { return {a.re, -a.im}; }
  __host__ __device__ static bool is_zero(T a) { return a.re == R(0) && a.im == R(0); }
};

// The device type of a host scalar type, and the conversion of alpha and beta.
template <class H>
struct device_type {
  using type = H;
};
template <class R>
struct device_type<std::complex<R>> {
  using type = Cx<R>;
};
template <class H>
using device_t = typename device_type<H>::type;

template <class T>
T from_host(std::complex<double> v) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return static_cast<T>(v.real());
  } else {
    using R = decltype(T{}.re);
    return T{static_cast<R>(v.real()), static_cast<R>(v.imag())};
  }
}

}  // namespace gemmroute::cuda
