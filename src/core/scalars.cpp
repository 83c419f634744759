// The 16-bit storage types and TF32 rounding: conversions by bit manipulation, so they give
// the same bits on every compiler and CPU (no reliance on _Float16 or __bf16 support).
#include <bit>
#include <cmath>
#include <cstdint>

#include "gemmroute/types.hpp"

namespace gemmroute {
namespace {

// x's f32 bits rounded to nearest, ties to even, keeping the top `keep` mantissa bits of 23;
// NaN stays a quiet NaN, and an overflow rounds to Inf as IEEE rounding does.
std::uint32_t round_mantissa(std::uint32_t bits, int keep) {
  const int drop = 23 - keep;
  if ((bits & 0x7f800000u) == 0x7f800000u) {  // Inf or NaN
    return (bits & 0x007fffffu) ? (bits | (0x00400000u)) : bits;
  }
  const std::uint32_t half = (std::uint32_t{1} << (drop - 1)) - 1;
  const std::uint32_t lsb = (bits >> drop) & 1u;
  bits += half + lsb;
  return bits & ~((std::uint32_t{1} << drop) - 1);
}

}  // namespace

float to_float(bfloat16 x) noexcept {
  return std::bit_cast<float>(std::uint32_t{x.bits} << 16);
}

bfloat16 to_bfloat16(float x) noexcept {
  return {static_cast<std::uint16_t>(round_mantissa(std::bit_cast<std::uint32_t>(x), 7) >> 16)};
}

float round_to_tf32(float x) noexcept {
  return std::bit_cast<float>(round_mantissa(std::bit_cast<std::uint32_t>(x), 10));
}

float to_float(float16 x) noexcept {
  const std::uint32_t sign = std::uint32_t{x.bits & 0x8000u} << 16;
  const std::uint32_t exp = (x.bits >> 10) & 0x1fu, man = x.bits & 0x3ffu;
  if (exp == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (man << 13));
  if (exp == 0) {  // zero or subnormal: man * 2^-24, exact in float
    const float v = std::ldexp(static_cast<float>(man), -24);
    return sign ? -v : v;
  }
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (man << 13));
}

float16 to_float16(float x) noexcept {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const float a = std::fabs(x);
  if (std::isnan(x)) return {static_cast<std::uint16_t>(sign | 0x7e00u)};
  if (a >= 65520.0f) return {static_cast<std::uint16_t>(sign | 0x7c00u)};  // rounds to Inf
  if (a < 0x1p-14f) {
    // Subnormal (or zero): a multiple of 2^-24, rounded to nearest even by the FPU's own
    // rounding of a * 2^24 (exact scaling, one rounding in nearbyint).
    const auto man = static_cast<std::uint16_t>(std::nearbyint(a * 0x1p24f));
    return {static_cast<std::uint16_t>(sign | man)};  // man == 0x400 is the least normal
  }
  const std::uint32_t r = round_mantissa(bits & 0x7fffffffu, 10);
  const std::uint32_t exp = (r >> 23) - 112, man = (r >> 13) & 0x3ffu;
  return {static_cast<std::uint16_t>(sign | (exp << 10) | man)};
}

}  // namespace gemmroute
