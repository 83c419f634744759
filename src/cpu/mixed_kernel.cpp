// cpu.direct's arithmetic for the mixed dtypes (bf16 and f16 inputs, f32 with TF32 compute):
// one model of the result, computed exactly as stated, so that tests and other backends can
// be held to it.
//
// Per element of C: each input converted to f32 (exact for bf16 and f16; rounded to nearest,
// ties to even, at 10 mantissa bits for TF32), s = 0, then s = fma(a(i, q), b(q, j), s) in f32
// for q = 0, 1, ..., k - 1 in that order; then t = fma(alpha, s, beta * c0) in f32 (t = alpha *
// s when beta == 0, C not read), and C = t rounded once to the output type (nearest, ties to
// even). alpha == 0 or k == 0: C = beta * c0 rounded the same way, A and B not read.
//
// Each item's op(A) is first converted into rows of f32 (row i contiguous in q) and each column
// of op(B) into a vector, so the sum walks memory in order whatever the forms.
#include <cmath>
#include <cstdint>
#include <vector>

#include "cpu/batch.hpp"
#include "cpu/mixed_kernel.hpp"
#include "gemmroute/error.hpp"

namespace gemmroute::cpu {
namespace {

template <class T>
float widen(T x) {
  if constexpr (std::is_same_v<T, float>) {
    return x;
  } else {
    return to_float(x);
  }
}

template <class T>
T narrow(float x) {
  if constexpr (std::is_same_v<T, float>) {
    return x;
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    return to_bfloat16(x);
  } else {
    return to_float16(x);
  }
}

template <class In, bool Tf32>
float input(In x) {
  if constexpr (Tf32) {
    return round_to_tf32(widen(x));
  } else {
    return widen(x);
  }
}

template <class Out>
void scale_only(const Problem& p, Out* c) {
  const float beta = static_cast<float>(p.beta.real());
  for (std::int64_t j = 0; j < p.n; ++j) {
    for (std::int64_t i = 0; i < p.m; ++i) {
      Out& x = c[i + j * p.c.ld];
      x = beta == 0.0f ? narrow<Out>(0.0f) : narrow<Out>(beta * widen(x));
    }
  }
}

template <class In, class Out, bool Tf32>
void mixed_item(const Problem& p, const In* a, const In* b, Out* c) {
  const std::int64_t m = p.m, n = p.n, k = p.k;
  const float alpha = static_cast<float>(p.alpha.real());
  const float beta = static_cast<float>(p.beta.real());
  // op(A) as m rows of k, op(B)'s column j as k values.
  std::vector<float> rows(static_cast<std::size_t>(m * k)), column(static_cast<std::size_t>(k));
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t q = 0; q < k; ++q) {
      const In x = p.ta == Op::N ? a[i + q * p.a.ld] : a[q + i * p.a.ld];
      rows[static_cast<std::size_t>(i * k + q)] = input<In, Tf32>(x);
    }
  }
  for (std::int64_t j = 0; j < n; ++j) {
    for (std::int64_t q = 0; q < k; ++q) {
      const In y = p.tb == Op::N ? b[q + j * p.b.ld] : b[j + q * p.b.ld];
      column[static_cast<std::size_t>(q)] = input<In, Tf32>(y);
    }
    for (std::int64_t i = 0; i < m; ++i) {
      const float* row = rows.data() + i * k;
      float s = 0.0f;
      for (std::int64_t q = 0; q < k; ++q) s = std::fma(row[q], column[q], s);
      Out& out = c[i + j * p.c.ld];
      const float t = beta == 0.0f ? alpha * s : std::fma(alpha, s, beta * widen(out));
      out = narrow<Out>(t);
    }
  }
}

template <class In, class Out, bool Tf32>
void mixed_batch(const Problem& p) {
  const bool quick = p.k == 0 || p.alpha == std::complex<double>(0.0, 0.0);
  for_each_item(p, [&](std::int64_t i) {
    if (quick) {
      scale_only<Out>(p, p.item_c<Out>(i));
    } else {
      mixed_item<In, Out, Tf32>(p, p.item_a<In>(i), p.item_b<In>(i), p.item_c<Out>(i));
    }
  });
}

}  // namespace

bool runs_mixed(DType d) noexcept {
  return is_supported(d) && !is_uniform(d);
}

void mixed_gemm(const Problem& p) {
  const DType d = p.dtype;
  if (d.compute == Compute::tf32) return mixed_batch<float, float, true>(p);
  if (d.in == Scalar::bf16 && d.out == Scalar::bf16)
    return mixed_batch<bfloat16, bfloat16, false>(p);
  if (d.in == Scalar::bf16 && d.out == Scalar::f32) return mixed_batch<bfloat16, float, false>(p);
  if (d.in == Scalar::f16 && d.out == Scalar::f16) return mixed_batch<float16, float16, false>(p);
  if (d.in == Scalar::f16 && d.out == Scalar::f32) return mixed_batch<float16, float, false>(p);
  throw Error(Errc::internal, "dtype", "mixed_gemm: " + to_string(d) + " is not a mixed dtype");
}

}  // namespace gemmroute::cpu
