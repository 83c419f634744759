// Test support for the mixed dtypes (bf16, f16, TF32): byte buffers of any input and output
// type, random full-mantissa values of the type, a padded batch with a sentinel pattern, the
// reference check, and the arithmetic the CPU's mixed kernel states (cpu/mixed_kernel.cpp).
// Host memory; the GPU tests mirror the buffers to the device.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/problem.hpp"
#include "reference/reference.hpp"

namespace gemmroute::test {

constexpr DType kTf32{Scalar::f32, Scalar::f32, Compute::tf32};
inline const DType kMixed[] = {kTf32,
                               Scalar::bf16,
                               {Scalar::bf16, Scalar::f32, Compute::f32},
                               Scalar::f16,
                               {Scalar::f16, Scalar::f32, Compute::f32}};

// Element i of a buffer of scalar s, as f32, and stored from f32 (rounded to nearest even).
inline float load(Scalar s, const std::vector<std::uint8_t>& buf, std::int64_t i) {
  std::uint16_t h = 0;
  switch (s) {
    case Scalar::f32: {
      float f;
      std::memcpy(&f, buf.data() + 4 * i, 4);
      return f;
    }
    case Scalar::bf16:
      std::memcpy(&h, buf.data() + 2 * i, 2);
      return to_float(bfloat16{h});
    default:
      std::memcpy(&h, buf.data() + 2 * i, 2);
      return to_float(float16{h});
  }
}
inline void store(Scalar s, std::vector<std::uint8_t>& buf, std::int64_t i, float v) {
  if (s == Scalar::f32) {
    std::memcpy(buf.data() + 4 * i, &v, 4);
  } else {
    const std::uint16_t h = s == Scalar::bf16 ? to_bfloat16(v).bits : to_float16(v).bits;
    std::memcpy(buf.data() + 2 * i, &h, 2);
  }
}

// Random values of the type with full mantissas: uniform draws in [-1, 1) rounded to it.
inline void fill(Scalar s, std::vector<std::uint8_t>& buf, std::int64_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  for (std::int64_t i = 0; i < n; ++i) store(s, buf, i, static_cast<float>(d(rng)));
}

// One strided or pointer-array batch with padding (ld = rows + 2, stride = ld * cols + 3) and
// a sentinel pattern outside the items.
struct Case {
  Problem p;
  std::vector<std::uint8_t> a, b, c;
  std::vector<const void*> pa, pb, pc;
};

inline Case make_case(DType d, Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k,
                      std::int64_t batch, bool pointers, std::mt19937_64& rng) {
  Case x;
  Problem& p = x.p;
  p.dtype = d;
  p.ta = ta;
  p.tb = tb;
  p.m = m;
  p.n = n;
  p.k = k;
  p.batch = batch;
  std::uniform_real_distribution<float> u(-1.5f, 1.5f);
  p.alpha = u(rng);
  p.beta = u(rng);
  auto make = [&](std::vector<std::uint8_t>& buf, Scalar s, std::int64_t rows, std::int64_t cols,
                  Operand& op, std::vector<const void*>& ptrs) {
    op.ld = std::max<std::int64_t>(rows, 1) + 2;
    op.stride = op.ld * cols + 3;
    const std::int64_t elems = op.stride * batch + 8;
    buf.assign(static_cast<std::size_t>(elems * static_cast<std::int64_t>(size_of(s))), 0xA5);
    for (std::int64_t i = 0; i < batch; ++i) {
      for (std::int64_t j = 0; j < cols; ++j) {
        for (std::int64_t r = 0; r < rows; ++r) {
          std::uniform_real_distribution<double> dd(-1.0, 1.0);
          store(s, buf, i * op.stride + j * op.ld + r, static_cast<float>(dd(rng)));
        }
      }
      ptrs.push_back(buf.data() + i * op.stride * static_cast<std::int64_t>(size_of(s)));
    }
    op.base = buf.data();
    if (pointers) {
      op.array = ptrs.data();
      op.base = nullptr;
    }
  };
  make(x.a, d.in, p.rows_a(), p.cols_a(), p.a, x.pa);
  make(x.b, d.in, p.rows_b(), p.cols_b(), p.b, x.pb);
  make(x.c, d.out, m, n, p.c, x.pc);
  return x;
}

// The arithmetic mixed_kernel.cpp states, written out plainly: f32 inputs (TF32: rounded),
// fma in increasing q from 0, then fma(alpha, s, beta * c0) (alpha * s when beta == 0), one
// rounding to C's type.
inline std::vector<std::uint8_t> model(const Case& x) {
  const Problem& p = x.p;
  std::vector<std::uint8_t> c = x.c;
  const bool tf32 = p.dtype.compute == Compute::tf32;
  const float alpha = static_cast<float>(p.alpha.real()), beta = static_cast<float>(p.beta.real());
  auto in = [&](const std::vector<std::uint8_t>& buf, std::int64_t i) {
    const float v = load(p.dtype.in, buf, i);
    return tf32 ? round_to_tf32(v) : v;
  };
  for (std::int64_t item = 0; item < p.batch; ++item) {
    for (std::int64_t j = 0; j < p.n; ++j) {
      for (std::int64_t i = 0; i < p.m; ++i) {
        float s = 0.0f;
        for (std::int64_t q = 0; q < p.k; ++q) {
          const std::int64_t ai = p.ta == Op::N ? i + q * p.a.ld : q + i * p.a.ld;
          const std::int64_t bi = p.tb == Op::N ? q + j * p.b.ld : j + q * p.b.ld;
          s = std::fma(in(x.a, item * p.a.stride + ai), in(x.b, item * p.b.stride + bi), s);
        }
        const std::int64_t ci = item * p.c.stride + i + j * p.c.ld;
        const float t = p.k == 0 || alpha == 0.0f
                            ? (beta == 0.0f ? 0.0f : beta * load(p.dtype.out, c, ci))
                        : beta == 0.0f ? alpha * s
                                       : std::fma(alpha, s, beta * load(p.dtype.out, c, ci));
        store(p.dtype.out, c, ci, t);
      }
    }
  }
  return c;
}

inline reference::Check check(const Case& x, const std::vector<std::uint8_t>& c0) {
  Problem got = x.p, orig = x.p;
  std::vector<const void*> pc0;
  const auto elem = static_cast<std::int64_t>(size_of(x.p.dtype.out));
  for (std::int64_t i = 0; i < x.p.batch; ++i) pc0.push_back(c0.data() + i * x.p.c.stride * elem);
  if (x.p.pointer_array()) {
    orig.c.array = pc0.data();
  } else {
    orig.c.base = c0.data();
  }
  return reference::check_against_reference(got, orig);
}

inline std::string describe(DType d, Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k,
                            std::int64_t batch, bool pointers) {
  return to_string(d) + " " + std::string(to_string(ta)) + std::string(to_string(tb)) + " " +
         std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " b" +
         std::to_string(batch) + (pointers ? " pointers" : " strided");
}

}  // namespace gemmroute::test
