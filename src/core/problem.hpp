// Problem: one homogeneous batched GEMM, type-erased, validated and folded. This is what the
// selector keys on and what a candidate's can_run and launch receive.
#pragma once

#include <complex>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/key.hpp"
#include "gemmroute/types.hpp"

namespace gemmroute {

// One operand of the batch: either base + i * stride, or array[i].
struct Operand {
  const void* base = nullptr;
  const void* const* array = nullptr;  // set for pointer-array batches
  std::int64_t ld = 1;
  std::int64_t stride = 0;  // elements between items; unused with array
};

// Column-major always: row-major calls are swapped before a Problem is made.
struct Problem {
  DType dtype = Scalar::f32;  // A and B hold dtype.in, C holds dtype.out
  Op ta = Op::N, tb = Op::N;  // for real scalars C is already folded to T
  std::int64_t m = 0, n = 0, k = 0, batch = 0;
  std::complex<double> alpha{1.0, 0.0}, beta{0.0, 0.0};  // exact values of the compute type
  Operand a, b, c;

  bool pointer_array() const noexcept { return a.array || b.array || c.array; }
  std::int64_t rows_a() const noexcept { return ta == Op::N ? m : k; }
  std::int64_t cols_a() const noexcept { return ta == Op::N ? k : m; }
  std::int64_t rows_b() const noexcept { return tb == Op::N ? k : n; }
  std::int64_t cols_b() const noexcept { return tb == Op::N ? n : k; }

  // Item i's matrices, as typed pointers.
  template <class T>
  const T* item_a(std::int64_t i) const noexcept {
    return a.array ? static_cast<const T*>(a.array[i])
                   : static_cast<const T*>(a.base) + i * a.stride;
  }
  template <class T>
  const T* item_b(std::int64_t i) const noexcept {
    return b.array ? static_cast<const T*>(b.array[i])
                   : static_cast<const T*>(b.base) + i * b.stride;
  }
  template <class T>
  T* item_c(std::int64_t i) const noexcept {
    return c.array ? static_cast<T*>(const_cast<void*>(c.array[i]))
                   : static_cast<T*>(const_cast<void*>(c.base)) + i * c.stride;
  }
  template <class T>
  T alpha_as() const noexcept {
    return cast_scalar<T>(alpha);
  }
  template <class T>
  T beta_as() const noexcept {
    return cast_scalar<T>(beta);
  }

  template <class T>
  static T cast_scalar(std::complex<double> v) noexcept {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      return static_cast<T>(v.real());
    } else {
      return T(static_cast<typename T::value_type>(v.real()),
               static_cast<typename T::value_type>(v.imag()));
    }
  }
};

// Checks every argument by the BLAS rules and throws Error naming the first bad one. Also
// folds the operations. Order of checks: dtype (a supported one), ta, tb, m, n, k, batch, alpha
// and beta (values of the compute type: real for real types, floats for f32, c32 and TF32), lda,
// ldb, ldc, the extent of an item of A, B and C in bytes, strides (negative, overlapping C, the
// batch's extent in bytes), pointers. Never writes. The entries of pointer arrays are checked for
// null only when `read_pointer_arrays` (host memory); a GPU's arrays live in device memory and are
// not read.
void validate(Problem& problem, bool row_major_swapped = false, bool read_pointer_arrays = true);

// packed: A, B and C each contiguous (ld == rows, stride == rows * cols, or batch == 1) with
// 16-byte-aligned bases; pointer arrays and broadcasts (stride 0, batch > 1) are strided.
Layout classify(const Problem& problem) noexcept;
inline Key key_of(const Problem& p) noexcept {
  return Key{p.dtype, p.ta, p.tb, classify(p), p.m, p.n, p.k, p.batch};
}

// Quick returns the API does itself: true when nothing must be written (m, n or batch == 0).
inline bool is_noop(const Problem& p) noexcept {
  return p.m == 0 || p.n == 0 || p.batch == 0;
}

}  // namespace gemmroute
