// The CUDA backend's candidates, one function per family; backend.cpp orders them.
#pragma once

#include <span>

#include "core/backend.hpp"
#include "core/candidate.hpp"

namespace gemmroute::cuda {

const Candidate& direct_candidate();  // cuda.direct: one thread per element of C, the last resort
const Candidate& tiled_candidate();   // cuda.tiled: 16 x 16 shared-memory tiles
const Candidate& cublas_candidate();  // cublas: cuBLAS's batched GEMMs, the vendor
const Candidate& reg_candidate();     // cuda.reg: 128 x 128 x 8 register tiles, f32
const Candidate& wide_candidate();    // cuda.wide: 64 x 64 x 8 register tiles, f64 c32 c64

// A grouped call's groups in order; consecutive groups that all chose `cublas` for one real
// scalar go to cuBLAS as one grouped call (cublas.cpp).
void launch_groups(std::span<const GroupLaunch> groups, const Exec& exec);

// cuda.small:s=..:t=..: the small-matrix family, every instantiated configuration.
std::span<const Candidate* const> small_candidates();

// cuda.stream:t=.., v=..: packed small-matrix batches streamed through shared memory, per tile.
std::span<const Candidate* const> stream_candidates();

}  // namespace gemmroute::cuda
