// Entry points of the cpu.small and cpu.tile kernels (small_kernels.cpp, built with AVX2 and
// FMA enabled; call only where cpu_has_avx2_fma() holds).
#pragma once

#include "core/problem.hpp"

namespace gemmroute::cpu {

inline constexpr std::int64_t kSmallMax = 16;  // the largest m, n and k cpu.small runs
inline constexpr std::int64_t kTinyMax = 4;    // m and n up to this run the tiny-item kernels

// Whether small_gemm runs the problem with the tiny-item kernels (real, op(A) = A, m, n <= 4).
bool tiny_runs(const Problem& problem) noexcept;

// Runs the whole batch; the problem must have max(m, n, k) <= kSmallMax, alpha != 0, k > 0.
void small_gemm(const Problem& problem);

// The same kernels over items of any size (cpu.tile); the problem must have alpha != 0, k > 0.
void tile_gemm(const Problem& problem);

bool cpu_has_avx2_fma() noexcept;

}  // namespace gemmroute::cpu
