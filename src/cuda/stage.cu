// Pointer arrays staged into device memory for a grouped call: the host's pointers travel as
// kernel parameters (up to kChunk per launch), so the copy is ordered on the stream like any
// launch and needs neither pinned host memory nor a wait. One kernel, one instantiation.
#include <algorithm>

#include "cuda/check.hpp"
#include "cuda/exec.hpp"
#include "gemmroute/error.hpp"

namespace gemmroute::cuda {
namespace {

// 4000 pointers: 32,000 bytes of parameters, inside the 32,764 that sm_70 and later accept.
constexpr std::size_t kChunk = 4000;

struct Chunk {
  const void* p[kChunk];
};

__global__ void scatter_kernel(const __grid_constant__ Chunk chunk, const void** out, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = chunk.p[i];
}

}  // namespace

Exec::Staged CudaExec::stage_pointers(std::span<const void* const> host) const {
  staging_mutex_.lock();
  try {
    DeviceGuard guard(device_);
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    check(cudaStreamIsCapturing(stream_, &capture), "cudaStreamIsCapturing");
    if (capture != cudaStreamCaptureStatusNone) {
      // A graph would replay the staging into memory that later calls reuse or free.
      throw Error(Errc::unsupported, "items",
                  "a grouped batch cannot be captured into a CUDA graph: its pointer arrays are "
                  "staged in the Context's memory, which later calls reuse; capture one gemm "
                  "per group with device pointer arrays instead");
    }
    if (host.size() > staged_capacity_) {
      // Stream-ordered: launches still reading the old array run before it is freed.
      const std::size_t capacity = std::max(host.size(), 2 * staged_capacity_);
      if (staged_) check(cudaFreeAsync(staged_, stream_), "cudaFreeAsync(staged pointers)");
      staged_ = nullptr;
      staged_capacity_ = 0;
      check(cudaMallocAsync(&staged_, capacity * sizeof(void*), stream_),
            "cudaMallocAsync(staged pointers)");
      staged_capacity_ = capacity;
    }
    auto* out = static_cast<const void**>(staged_);
    Chunk chunk;
    for (std::size_t first = 0; first < host.size(); first += kChunk) {
      const std::size_t count = std::min(kChunk, host.size() - first);
      std::copy_n(host.begin() + static_cast<std::ptrdiff_t>(first), count, chunk.p);
      const int blocks = static_cast<int>((count + 255) / 256);
      scatter_kernel<<<blocks, 256, 0, stream_>>>(chunk, out + first, static_cast<int>(count));
      check_launch("scatter_kernel");
    }
    return Staged(out, this);
  } catch (...) {
    staging_mutex_.unlock();
    throw;
  }
}

}  // namespace gemmroute::cuda
