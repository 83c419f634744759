// The CPU's one kernel for the mixed dtypes (mixed_kernel.cpp states its arithmetic): cpu.direct
// runs it for bf16, f16 and TF32 problems.
#pragma once

#include "core/problem.hpp"

namespace gemmroute::cpu {

// Whether d is one of the supported dtypes that are not uniform (bf16, f16 or TF32).
bool runs_mixed(DType d) noexcept;
// The whole batch of a validated problem of such a dtype.
void mixed_gemm(const Problem& problem);

}  // namespace gemmroute::cpu
