// The libraries a program could call instead of gemmroute, each called the way its own users
// call it, as arms for the shared harness (`gemmroute bench --peers`). Written here, apart
// from the candidates, so the comparison does not inherit anything of ours but the loaders
// (cpu/libraries.hpp) and the parallel threshold every arm shares (for_each_item):
//
//   openblas.items   cblas_?gemm per item, items over the OpenMP threads (OpenBLAS runs one
//                    thread inside a parallel region; a batch of one gets OpenBLAS's threads)
//   openblas.seq     cblas_?gemm per item in sequence, OpenBLAS's threads inside each (batch > 1)
//   openblas.batch   cblas_?gemm_batch, where the installed OpenBLAS has it
//   libxsmm.items    one libxsmm_?mmdispatch per call, the kernel per item with the next item
//                    as prefetch hint, items over the OpenMP threads; alpha and beta other
//                    than 1 and 0/1 through a stack tile and C <- alpha T + beta C
//   libxsmm.batch    libxsmm_mmbatch with index arrays, each OpenMP thread its share (tid,
//                    nthreads); alpha 1, beta 0 or 1 only (it falls back to BLAS otherwise)
//   blis.items       bli_?gemm_ex per item with a one-thread runtime, items over the threads
//   blis.seq         bli_?gemm_ex per item in sequence, all threads inside each
#pragma once

#include <string>
#include <vector>

#include "core/problem.hpp"
#include "measure/measure.hpp"

namespace gemmroute::cli {

struct PeerArm {
  std::string library;  // "openblas", "libxsmm", "blis"
  measure::LaunchArm arm;
};

// The arms for one shape (some keep per-shape state, such as index arrays).
std::vector<PeerArm> make_peer_arms(const Key& key);

// cblas_?gemm on item i of `p`, the call of the openblas arms (and of bench --overhead's
// direct arm for OpenBLAS).
void cblas_item(const Problem& p, std::int64_t i);

}  // namespace gemmroute::cli
