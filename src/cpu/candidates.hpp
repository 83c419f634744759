// The CPU backend's candidates, one function per family; backend.cpp orders them.
#pragma once

#include <span>

#include "core/backend.hpp"
#include "core/candidate.hpp"

namespace gemmroute::cpu {

const Candidate& direct_candidate();         // cpu.direct
const Candidate& small_candidate();          // cpu.small
const Candidate& tile_candidate();           // cpu.tile
const Candidate& openblas_candidate();       // openblas: batch over threads, 1 thread per call
const Candidate& openblas_item_candidate();  // openblas:par=item: OpenBLAS's threads per item
const Candidate& libxsmm_candidate();        // libxsmm: JIT kernel per call, batch over threads
const Candidate& blis_candidate();           // blis: batch over threads, 1 BLIS thread per item
const Candidate& blis_item_candidate();      // blis:par=item: BLIS's threads per item

// Whether an openblas candidate's launch of this problem calls OpenBLAS single-threaded (so it
// gives the same result inside a parallel region). False for any other candidate.
bool openblas_single_threaded(const Candidate& candidate, const Problem& problem);

// A grouped call's groups: small ones together over the threads (grouped.cpp).
void launch_groups(std::span<const GroupLaunch> groups, const Exec& exec);

}  // namespace gemmroute::cpu
