// The CUDA backend's candidates, one function per family; backend.cpp orders them.
#pragma once

#include <span>

#include "core/candidate.hpp"

namespace gemmroute::cuda {

const Candidate& direct_candidate();  // cuda.direct: one thread per element of C, the last resort
const Candidate& tiled_candidate();   // cuda.tiled: 16 x 16 shared-memory tiles
const Candidate& cublas_candidate();  // cublas: cuBLAS's batched GEMMs, the vendor

// cuda.small:s=..:t=..: the small-matrix family, every instantiated configuration.
std::span<const Candidate* const> small_candidates();

}  // namespace gemmroute::cuda
