// The CUDA backend's candidates, one function per family; backend.cpp orders them.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "core/backend.hpp"
#include "core/candidate.hpp"

namespace gemmroute::cuda {

class CudaExec;

const Candidate& direct_candidate();  // cuda.direct: one thread per element of C, the last resort
const Candidate& tiled_candidate();   // cuda.tiled: 16 x 16 shared-memory tiles
const Candidate& cublas_candidate();  // cublas: cuBLAS's batched GEMMs, the vendor
const Candidate& reg_candidate();     // cuda.reg: 128 x 128 x 8 register tiles, f32
const Candidate& wide_candidate();    // cuda.wide: 64 x 64 x 8 register tiles, f64 c32 c64

// A grouped call's groups in order (cublas.cpp): the groups the grouped kernel may take run in
// one launch per scalar and size class (cuda.grouped); of the rest, consecutive groups that all
// chose `cublas` for one real scalar go to cuBLAS as one grouped call (where the launch is ours
// to shape, only groups small in bytes), and every other group runs alone.
void launch_groups(std::span<const GroupLaunch> groups, const Exec& exec);
// What launch_groups will do with the groups beyond their own candidates (GEMMROUTE_LOG).
std::string group_launch_note(std::span<const GroupLaunch> groups);

// cuda.grouped (small.cu): whether a group joins the grouped launch (its launch allows it, one
// of the four uniform scalars, max(m, n, k) <= kFusedSizeBound, at most kFusedGroupBytes of
// operands, and not C <- beta C alone), and that launch: every such group, one kernel per
// scalar, size class and 64 groups, each group's items computed exactly as the cuda.small
// family computes them.
inline constexpr std::int64_t kFusedSizeBound = 64;
// A group moving more bytes than this runs its own choice: its launch costs little against its
// work, and the table's kernel for its size alone was measured faster than the grouped one
// (bench --grouped on the H200, 64 sizes: 1.2-2.4x at 10^5 and 10^6 items with every group
// fused). 32 MiB against 8 and 128, in one call: geomean 1.063x of 8 over the 12 workloads
// (1.14-1.35x at 10^5 items, 0.97x at f64 uniform 10^4), 128 MiB 1.070x but 0.98x at f32
// uniform 10^5 (bench/results/h200/README.md, "Grouped batches"). Set in MiB by
// -DGEMMROUTE_FUSED_GROUP_MIB for experiments.
#ifndef GEMMROUTE_FUSED_GROUP_MIB
#define GEMMROUTE_FUSED_GROUP_MIB 32
#endif
inline constexpr std::int64_t kFusedGroupBytes = std::int64_t{GEMMROUTE_FUSED_GROUP_MIB} << 20;
// Bytes of A, B and C over a problem's items without padding, in the input scalar's size.
inline std::int64_t operand_bytes(const Problem& p) {
  return p.batch * (p.m * p.k + p.k * p.n + p.m * p.n) *
         static_cast<std::int64_t>(size_of(p.dtype.in));
}
bool fusable(const GroupLaunch& group);
void launch_fused_groups(std::span<const GroupLaunch* const> groups, const CudaExec& exec);

// cuda.small:s=..:t=..: the small-matrix family, every instantiated configuration.
std::span<const Candidate* const> small_candidates();

// cuda.stream:t=.., v=..: packed small-matrix batches streamed through shared memory, per tile.
std::span<const Candidate* const> stream_candidates();

}  // namespace gemmroute::cuda
