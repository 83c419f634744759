// The CUDA backend's candidates, one function per family; backend.cpp orders them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>

#include "core/backend.hpp"
#include "core/candidate.hpp"

namespace gemmroute::cuda {

class CudaExec;

const Candidate& direct_candidate();   // cuda.direct: one thread per element of C, the last resort
const Candidate& tiled_candidate();    // cuda.tiled: 16 x 16 shared-memory tiles
const Candidate& cublas_candidate();   // cublas: cuBLAS's batched GEMMs, the vendor
const Candidate& reg_candidate();      // cuda.reg: 128 x 128 x 8 register tiles, f32
const Candidate& reg_big_candidate();  // cuda.reg: 256 x 128 x 8, 8 x 16 a thread, f32
const Candidate& wide_candidate();     // cuda.wide: 64 x 64 x 8 register tiles, f64 c32 c64

// A grouped call's groups in order (cublas.cpp): the groups the grouped kernel may take run in
// one launch per scalar and size class (cuda.grouped); of the rest, consecutive groups that all
// chose `cublas` for one real scalar go to cuBLAS as one grouped call (where the launch is ours
// to shape, only groups small in bytes), and every other group runs alone.
void launch_groups(std::span<const GroupLaunch> groups, const Exec& exec);
// What launch_groups will do with the groups beyond their own candidates (GEMMROUTE_LOG).
std::string group_launch_note(std::span<const GroupLaunch> groups);

// cuda.grouped (small.cu): whether a group joins the grouped launch (its launch allows it, one
// of the four uniform scalars, max(m, n, k) <= kFusedSizeBound, at most fused_group_bytes of
// operands, and not C <- beta C alone), and that launch: every such group, one kernel per
// scalar, size class and 64 groups, each group's items computed exactly as the cuda.small
// family computes them.
inline constexpr std::int64_t kFusedSizeBound = 64;
// A group moving more bytes than its bound runs its own choice: its launch costs little against
// its work, and the table's kernel for its size alone was measured faster than the grouped one.
// The bound depends on the group's largest side (bench --grouped on the H200, 64 sizes, 10^4 to
// 10^6 items, bench/results/h200/README.md, "Grouped batches"):
// - sides over kFusedSmallSide: 32 MiB (8, 32 and 128 in one call: 32 MiB 1.063x of 8 in
//   geomean over the 12 workloads, 1.14-1.35x at 10^5 items; at 128 MiB the groups of n > 42
//   cost f32 uniform 10^5 2%);
// - sides up to kFusedSmallSide: 1 GiB (against 32 MiB for every size, in one call: 1.05-1.20x at
//   10^6 items, where such groups of 15,600 items had run a launch each, none slower; 128 MiB
//   gave 1.02-1.07x there). A larger group of small items still runs its own choice: that bound
//   was not measured, only set above this workload's groups. (A group's own choice is never
//   `cuda.stream` today: a grouped call's items are pointer arrays, which it refuses; see
//   dev/pending/18.)
// Set in MiB by -DGEMMROUTE_FUSED_GROUP_MIB and -DGEMMROUTE_FUSED_SMALL_GROUP_MIB for experiments.
#ifndef GEMMROUTE_FUSED_GROUP_MIB
#define GEMMROUTE_FUSED_GROUP_MIB 32
#endif
#ifndef GEMMROUTE_FUSED_SMALL_GROUP_MIB
#define GEMMROUTE_FUSED_SMALL_GROUP_MIB 1024
#endif
inline constexpr std::int64_t kFusedSmallSide = 40;
inline constexpr std::int64_t kFusedGroupBytes = std::int64_t{GEMMROUTE_FUSED_GROUP_MIB} << 20;
inline constexpr std::int64_t kFusedSmallGroupBytes = std::int64_t{GEMMROUTE_FUSED_SMALL_GROUP_MIB}
                                                      << 20;
// Bytes of A, B and C over a problem's items without padding, in the input scalar's size.
inline std::int64_t operand_bytes(const Problem& p) {
  return p.batch * (p.m * p.k + p.k * p.n + p.m * p.n) *
         static_cast<std::int64_t>(size_of(p.dtype.in));
}
// The byte bound of a group's operands in the grouped launch, by its largest side.
inline std::int64_t fused_group_bytes(const Problem& p) {
  return std::max({p.m, p.n, p.k}) <= kFusedSmallSide ? kFusedSmallGroupBytes : kFusedGroupBytes;
}
bool fusable(const GroupLaunch& group);
void launch_fused_groups(std::span<const GroupLaunch* const> groups, const CudaExec& exec);

// cuda.small:s=..:t=..: the small-matrix family, every instantiated configuration.
std::span<const Candidate* const> small_candidates();

// cuda.stream:t=.., v=..: packed small-matrix batches streamed through shared memory, per tile.
std::span<const Candidate* const> stream_candidates();

// An A/B build (CMake's GEMMROUTE_AB_PATCHES; docs/decisions.md, "Two builds of a kernel in one
// process") compiles a patched copy of stream.cu, small.cu or reg.cu beside the shipped file,
// with GEMMROUTE_AB defined for the copy alone: its candidates' spellings end in `:ab=1`
// (GEMMROUTE_AB_SPELLING) and its exported functions in `_ab` (GEMMROUTE_AB_EXPORT), so both
// link into one library.
#ifdef GEMMROUTE_AB
#define GEMMROUTE_AB_SPELLING ":ab=1"
#define GEMMROUTE_AB_EXPORT(name) name##_ab
#else
#define GEMMROUTE_AB_SPELLING ""
#define GEMMROUTE_AB_EXPORT(name) name
#endif

// The patched copies' candidates, empty in every other build. The backend and the GPU tests
// take them after the rest, so the patched kernels are tested and timed beside the shipped ones.
std::span<const Candidate* const> ab_candidates();
std::span<const Candidate* const> stream_candidates_ab();
// The patched copy of reg.cu in an A/B build (cuda.reg, both tiles, and cuda.wide `:ab=1`).
const Candidate& reg_candidate_ab();
const Candidate& reg_big_candidate_ab();
const Candidate& wide_candidate_ab();
// The patched copy of small.cu in an A/B build (cuda.small `:ab=1`, and its grouped launch).
std::span<const Candidate* const> small_candidates_ab();
bool fusable_ab(const GroupLaunch& group);
void launch_fused_groups_ab(std::span<const GroupLaunch* const> groups, const CudaExec& exec);
// Whether the grouped calls of this thread run the A/B copy's grouped launch (an A/B build with
// small.cu patched, and core's set_ab_grouped on).
bool use_ab_grouped();

}  // namespace gemmroute::cuda
