// The BLAS quick path on the device, shared by every CUDA candidate.
#pragma once

#include "core/problem.hpp"
#include "cuda/exec.hpp"

namespace gemmroute::cuda {

// When alpha == 0 or k == 0: enqueues C <- beta * C (never reading A or B; beta == 0 never
// reads C) and returns true. Otherwise does nothing and returns false.
bool quick_path(const Problem& problem, const CudaExec& exec);

}  // namespace gemmroute::cuda
