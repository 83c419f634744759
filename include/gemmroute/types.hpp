// Scalars, operations, storage order and devices: the vocabulary of a GEMM call.
#pragma once

#include <complex>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gemmroute {

// Storage types of operands. bf16 and f16 are inputs (and outputs) of mixed-precision calls
// only: they always compute in f32 (see DType).
enum class Scalar : std::uint8_t { f32, f64, c32, c64, bf16, f16 };
// The type products and sums are formed in: a scalar's own precision, or TF32 (f32 operands
// rounded to TF32's 10-bit mantissa on the way into an f32 accumulation), which a call gets
// only when it asks (Options::tf32).
enum class Compute : std::uint8_t { f32, f64, c32, c64, tf32 };

// The 16-bit storage types, as bits: values convert to float exactly, and from float rounded
// to nearest, ties to even (NaN stays NaN). Arithmetic happens in float.
struct bfloat16 {
  std::uint16_t bits = 0;
};
struct float16 {
  std::uint16_t bits = 0;
};

float to_float(bfloat16 x) noexcept;
float to_float(float16 x) noexcept;
bfloat16 to_bfloat16(float x) noexcept;
float16 to_float16(float x) noexcept;
// x rounded to nearest (ties to even) at TF32's precision, 10 mantissa bits (NaN and Inf kept).
float round_to_tf32(float x) noexcept;
enum class Op : std::uint8_t { N, T, C };
enum class Order : std::uint8_t { col_major, row_major };
enum class BackendKind : std::uint8_t { cpu, cuda };

template <class T>
struct scalar_of;
template <>
struct scalar_of<float> {
  static constexpr Scalar value = Scalar::f32;
};
template <>
struct scalar_of<double> {
  static constexpr Scalar value = Scalar::f64;
};
template <>
struct scalar_of<std::complex<float>> {
  static constexpr Scalar value = Scalar::c32;
};
template <>
struct scalar_of<std::complex<double>> {
  static constexpr Scalar value = Scalar::c64;
};
template <>
struct scalar_of<bfloat16> {
  static constexpr Scalar value = Scalar::bf16;
};
template <>
struct scalar_of<float16> {
  static constexpr Scalar value = Scalar::f16;
};
template <class T>
inline constexpr Scalar scalar_of_v = scalar_of<T>::value;

constexpr bool is_complex(Scalar s) {
  return s == Scalar::c32 || s == Scalar::c64;
}
constexpr std::size_t size_of(Scalar s) {
  switch (s) {
    case Scalar::f32:
      return 4;
    case Scalar::f64:
    case Scalar::c32:
      return 8;
    case Scalar::c64:
      return 16;
    case Scalar::bf16:
    case Scalar::f16:
      return 2;
  }
  return 0;
}

// What a scalar computes in unless told otherwise: itself, and f32 for bf16 and f16.
constexpr Compute default_compute(Scalar s) {
  switch (s) {
    case Scalar::f64:
      return Compute::f64;
    case Scalar::c32:
      return Compute::c32;
    case Scalar::c64:
      return Compute::c64;
    default:
      return Compute::f32;
  }
}

// The types of a call, named separately as CUTLASS's functional key does: A and B are `in`,
// C is `out`, products and sums are formed in `compute`. alpha and beta are values of the
// compute type (float for f32 and TF32). A Scalar converts to its uniform dtype (f32 is
// f32:f32:f32; bf16 is bf16:bf16:f32). Nine are supported (is_supported): the four uniform
// ones, f32 with TF32 compute, and bf16 or f16 inputs with their own type or f32 as output.
struct DType {
  Scalar in = Scalar::f32;
  Scalar out = Scalar::f32;
  Compute compute = Compute::f32;

  constexpr DType() = default;
  constexpr DType(Scalar s) : in(s), out(s), compute(default_compute(s)) {}  // NOLINT: implicit
  constexpr DType(Scalar in_, Scalar out_, Compute compute_)
      : in(in_), out(out_), compute(compute_) {}

  friend constexpr bool operator==(const DType&, const DType&) = default;
  friend constexpr auto operator<=>(const DType&, const DType&) = default;
};

// One of f32, f64, c32, c64 computing in itself: what every candidate runs.
constexpr bool is_uniform(DType d) {
  return d.in == d.out && d.compute == default_compute(d.in) && d.in <= Scalar::c64;
}
constexpr bool is_supported(DType d) {
  if (is_uniform(d)) return true;
  if (d.in == Scalar::f32) return d.out == Scalar::f32 && d.compute == Compute::tf32;
  const bool half = d.in == Scalar::bf16 || d.in == Scalar::f16;
  return half && (d.out == d.in || d.out == Scalar::f32) && d.compute == Compute::f32;
}
constexpr bool is_complex(DType d) {
  return is_complex(d.in);
}
// A small number unique to each supported dtype, 0 to kDTypeCount - 1, with the uniform ones
// first in Scalar's order (hashes and the table's buckets use it).
inline constexpr std::size_t kDTypeCount = 9;
constexpr std::size_t dtype_index(DType d) {
  if (is_uniform(d)) return static_cast<std::size_t>(d.in);
  if (d.compute == Compute::tf32) return 4;
  const std::size_t half = d.in == Scalar::bf16 ? 5 : 7;
  return half + (d.out == Scalar::f32 ? 1 : 0);
}

// The three types in one word, for hashes: no branch, distinct for distinct dtypes.
constexpr std::uint32_t dtype_bits(DType d) {
  return std::uint32_t(d.in) | std::uint32_t(d.out) << 3 | std::uint32_t(d.compute) << 6;
}

std::string_view to_string(Scalar s) noexcept;
std::string_view to_string(Compute c) noexcept;
// "f32", "bf16", "bf16:f32:f32": the key's dtype field (core/key.hpp has the grammar).
std::string to_string(DType d);
std::string_view to_string(Op op) noexcept;
std::optional<Scalar> parse_scalar(std::string_view text) noexcept;
std::optional<Compute> parse_compute(std::string_view text) noexcept;
std::optional<Op> parse_op(std::string_view text) noexcept;

// Where a Context runs its calls.
struct Device {
  BackendKind kind = BackendKind::cpu;
  int index = 0;

  static Device cpu() { return {BackendKind::cpu, 0}; }
  static Device cuda(int index = 0) { return {BackendKind::cuda, index}; }
};

std::optional<Device> parse_device(std::string_view text) noexcept;  // "cpu", "cuda", "cuda:1"

}  // namespace gemmroute
