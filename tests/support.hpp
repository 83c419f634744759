// Test support: random operands with full mantissas, batch buffers with padding and sentinels,
// and Problems built over them in every layout the library distinguishes.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/problem.hpp"

namespace gemmroute::test {

template <class T>
T random_scalar(std::mt19937_64& rng) {
  // Full mantissas in [-1, 1): never small integers, so summation order matters.
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(d(rng));
  } else {
    using R = typename T::value_type;
    return T(static_cast<R>(d(rng)), static_cast<R>(d(rng)));
  }
}

template <class T>
T sentinel() {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(-7.25e3);
  } else {
    return T(-7.25e3, 3.5e2);
  }
}

template <class T>
T nan_value() {
  if constexpr (std::is_floating_point_v<T>) {
    return std::numeric_limits<T>::quiet_NaN();
  } else {
    using R = typename T::value_type;
    return T(std::numeric_limits<R>::quiet_NaN(), std::numeric_limits<R>::infinity());
  }
}

// How the batch's operands are laid out.
// pointers: device-style pointer arrays of padded items (ld = rows + 3). item_pointers: pointer
// arrays of items with ld == rows, back to back (as a program carving its items from one
// allocation holds them). staggered_pointers: the same with one element between items, so that
// item starts take every alignment.
enum class Storage { packed, padded, broadcast, pointers, item_pointers, staggered_pointers };
inline bool pointer_storage(Storage s) {
  return s == Storage::pointers || s == Storage::item_pointers || s == Storage::staggered_pointers;
}
inline const char* name(Storage s) {
  switch (s) {
    case Storage::packed:
      return "packed";
    case Storage::padded:
      return "padded";
    case Storage::broadcast:
      return "broadcast";
    case Storage::pointers:
      return "pointers";
    case Storage::item_pointers:
      return "item pointers";
    case Storage::staggered_pointers:
      return "staggered pointers";
  }
  return "?";
}

// One operand's buffer: items at offset i * stride (or one shared item for broadcast), with
// ld >= rows; every element outside the items holds the sentinel.
template <class T>
struct Buffer {
  std::int64_t rows = 0, cols = 0, ld = 1, stride = 0, batch = 0;
  std::vector<T> data;
  std::vector<const void*> pointers;  // for Storage::pointers

  T* item(std::int64_t i) { return data.data() + i * stride; }
  const T* item(std::int64_t i) const { return data.data() + i * stride; }
  bool inside(std::int64_t offset) const {
    // Items never overlap (stride >= ld * cols, or one shared item).
    const std::int64_t i = stride == 0 ? 0 : offset / stride;
    const std::int64_t local = offset - i * stride;
    return i < (stride == 0 ? 1 : batch) && local < ld * cols && local % ld < rows;
  }
};

template <class T>
Buffer<T> make_buffer(std::int64_t rows, std::int64_t cols, std::int64_t batch, Storage s,
                      bool shared, std::mt19937_64& rng) {
  Buffer<T> b;
  b.rows = rows;
  b.cols = cols;
  b.batch = batch;
  const bool pad = s == Storage::padded || s == Storage::pointers;
  b.ld = std::max<std::int64_t>(rows, 1) + (pad ? 3 : 0);
  b.stride = b.ld * cols + (pad ? 5 : s == Storage::staggered_pointers ? 1 : 0);
  if (s == Storage::broadcast && shared) b.stride = 0;
  const std::int64_t items = b.stride == 0 ? 1 : batch;
  b.data.assign(static_cast<std::size_t>(std::max<std::int64_t>(items * b.stride, b.ld * cols) + 8),
                sentinel<T>());
  for (std::int64_t i = 0; i < items; ++i) {
    for (std::int64_t c = 0; c < cols; ++c) {
      for (std::int64_t r = 0; r < rows; ++r) b.item(i)[r + c * b.ld] = random_scalar<T>(rng);
    }
  }
  for (std::int64_t i = 0; i < batch; ++i) b.pointers.push_back(b.item(b.stride == 0 ? 0 : i));
  return b;
}

template <class T>
Operand operand(Buffer<T>& b, Storage s) {
  if (pointer_storage(s)) return Operand{nullptr, b.pointers.data(), b.ld, 0};
  return Operand{b.data.data(), nullptr, b.ld, b.stride};
}

// The forms op(X) a scalar has: N and T, and C where the scalar is complex.
inline std::vector<Op> forms(Scalar s) {
  return is_complex(s) ? std::vector<Op>{Op::N, Op::T, Op::C} : std::vector<Op>{Op::N, Op::T};
}

// A candidate test's batch: `batch` items of m x n x k.
struct Shape {
  std::int64_t m, n, k, batch;
};

// A problem over fresh host operands in `storage` (for broadcast, A is shared, and B too when
// the batch is odd). nan_in_ab fills A and B with NaN, nan_in_c C's items with NaN and Inf in
// turn: what alpha == 0 and beta == 0 must never read.
template <class T>
struct HostCase {
  Problem p;
  Buffer<T> A, B, C;
};

template <class T>
HostCase<T> host_case(Op ta, Op tb, const Shape& s, Storage storage, T alpha, T beta,
                      std::mt19937_64& rng, bool nan_in_c, bool nan_in_ab) {
  HostCase<T> hc;
  Problem& p = hc.p;
  p.dtype = scalar_of_v<T>;
  p.ta = ta;
  p.tb = tb;
  p.m = s.m;
  p.n = s.n;
  p.k = s.k;
  p.batch = s.batch;
  p.alpha = std::complex<double>(alpha);
  p.beta = std::complex<double>(beta);
  const bool bcast = storage == Storage::broadcast;
  hc.A = make_buffer<T>(p.rows_a(), p.cols_a(), s.batch, storage, bcast, rng);
  hc.B = make_buffer<T>(p.rows_b(), p.cols_b(), s.batch, storage, bcast && (s.batch % 2 == 1), rng);
  hc.C = make_buffer<T>(s.m, s.n, s.batch, storage, false, rng);
  if (nan_in_ab) {
    for (auto* buf : {&hc.A, &hc.B}) {
      for (std::int64_t i = 0; i < (buf->stride == 0 ? 1 : s.batch); ++i) {
        for (std::int64_t c = 0; c < buf->cols; ++c) {
          for (std::int64_t r = 0; r < buf->rows; ++r) {
            buf->item(i)[r + c * buf->ld] = nan_value<T>();
          }
        }
      }
    }
  }
  if (nan_in_c) {
    for (std::int64_t i = 0; i < s.batch; ++i) {
      for (std::int64_t c = 0; c < s.n; ++c) {
        for (std::int64_t r = 0; r < s.m; ++r) {
          hc.C.item(i)[r + c * hc.C.ld] = (r + c) % 2 ? nan_value<T>() : T(INFINITY);
        }
      }
    }
  }
  p.a = operand(hc.A, storage);
  p.b = operand(hc.B, storage);
  p.c = operand(hc.C, storage);
  return hc;
}

inline std::string describe(const Problem& p) {
  return std::string(to_string(p.dtype)) + " " + std::string(to_string(p.ta)) +
         std::string(to_string(p.tb)) + " m=" + std::to_string(p.m) + " n=" + std::to_string(p.n) +
         " k=" + std::to_string(p.k) + " batch=" + std::to_string(p.batch) + " alpha=(" +
         std::to_string(p.alpha.real()) + "," + std::to_string(p.alpha.imag()) + ") beta=(" +
         std::to_string(p.beta.real()) + "," + std::to_string(p.beta.imag()) + ")";
}

template <class T>
bool same_bytes(const std::vector<T>& x, const std::vector<T>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(T)) == 0;
}

}  // namespace gemmroute::test
