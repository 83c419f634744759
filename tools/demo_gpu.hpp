// The GPU section of `gemmroute demo` (demo_gpu.cpp).
#pragma once

namespace gemmroute::cli {

// Runs the GPU workload on cuda:0 and prints its lines: 0 when every shape is within the error
// bound, 1 when one is not, -1 (after one line saying so) when there is no GPU.
int demo_gpu(int reps);

}  // namespace gemmroute::cli
