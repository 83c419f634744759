// Scalars, operations, storage order and devices: the vocabulary of a GEMM call.
#pragma once

#include <complex>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gemmroute {

enum class Scalar : std::uint8_t { f32, f64, c32, c64 };
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
template <class T>
inline constexpr Scalar scalar_of_v = scalar_of<T>::value;

constexpr bool is_complex(Scalar s) {
  return s == Scalar::c32 || s == Scalar::c64;
}
constexpr std::size_t size_of(Scalar s) {
  return s == Scalar::f32 ? 4 : s == Scalar::f64 ? 8 : s == Scalar::c32 ? 8 : 16;
}

std::string_view to_string(Scalar s) noexcept;
std::string_view to_string(Op op) noexcept;
std::optional<Scalar> parse_scalar(std::string_view text) noexcept;
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
