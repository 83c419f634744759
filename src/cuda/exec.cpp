#include "cuda/exec.hpp"

#include <utility>

#include "cuda/check.hpp"

namespace gemmroute::cuda {

CudaExec::CudaExec(int device, cudaStream_t caller_stream) : device_(device) {
  DeviceGuard guard(device);
  try {
    if (caller_stream) {
      stream_ = caller_stream;
    } else {
      // A blocking stream: it is ordered with the legacy default stream, as cuBLAS's default
      // stream is, so a caller's plain cudaMemcpy before a call lands before the call reads.
      check(cudaStreamCreateWithFlags(&stream_, cudaStreamDefault), "cudaStreamCreate");
      own_stream_ = true;
    }
    check(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device),
          "cudaDeviceGetAttribute(MultiProcessorCount)");
    int smem = 0;
    check(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
          "cudaDeviceGetAttribute(MaxSharedMemoryPerBlockOptin)");
    max_smem_ = static_cast<std::size_t>(smem);
    check(cudaMalloc(&workspace_, kWorkspaceBytes + kCublasWorkspaceBytes),
          "cudaMalloc(workspace)");
    check(cublasCreate(&blas_), "cublasCreate");
    check(cublasSetStream(blas_, stream_), "cublasSetStream");
    check(cublasSetWorkspace(blas_, static_cast<char*>(workspace_) + kWorkspaceBytes,
                             kCublasWorkspaceBytes),
          "cublasSetWorkspace");
    // Host pointers for alpha and beta; exact FP32 and FP64 arithmetic unless a call asks for
    // less (TF32 is opt-in).
    check(cublasSetPointerMode(blas_, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
    check(cublasSetMathMode(blas_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    check(cublasLtCreate(&lt_), "cublasLtCreate");
  } catch (...) {
    release();
    throw;
  }
}

void CudaExec::allow_shared(const void* kernel, std::size_t shared) const {
  std::lock_guard lock(limits_mutex_);
  raise_shared_limit(kernel, shared);
}

void CudaExec::raise_shared_limit(const void* kernel, std::size_t shared) const {
  // Without the opt-in a block holds 48 KiB of shared memory, static and dynamic together; the
  // kernel's attribute allows `shared` dynamic bytes beside its static ones.
  constexpr std::size_t kDefaultLimit = 48 * 1024;
  if (shared == 0) return;
  struct Limit {
    std::size_t static_bytes = 0;
    std::size_t allowed = 0;  // the dynamic limit set, 0 while the default holds
  };
  // (device, kernel) -> its static size and the limit set, for the whole process.
  static std::mutex mutex;
  static std::map<std::pair<int, const void*>, Limit> limits;
  std::lock_guard lock(mutex);
  const std::pair key{device_, kernel};
  auto it = limits.find(key);
  if (it == limits.end()) {
    cudaFuncAttributes attributes{};
    check(cudaFuncGetAttributes(&attributes, kernel), "cudaFuncGetAttributes");
    it = limits.emplace(key, Limit{.static_bytes = attributes.sharedSizeBytes}).first;
  }
  Limit& limit = it->second;
  if (limit.static_bytes + shared <= kDefaultLimit || limit.allowed >= shared) return;
  check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(shared)),
        "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
  limit.allowed = shared;
}

int CudaExec::blocks_per_sm(const void* kernel, int threads, std::size_t shared) const {
  std::lock_guard lock(limits_mutex_);
  const auto key = std::tuple{kernel, threads, shared};
  if (const auto it = blocks_per_sm_.find(key); it != blocks_per_sm_.end()) return it->second;
  raise_shared_limit(kernel, shared);
  int blocks = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, shared),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  blocks_per_sm_.emplace(key, blocks);
  return blocks;
}

CudaExec::~CudaExec() {
  release();
}

void CudaExec::release() noexcept {
  int previous = -1;
  if (cudaGetDevice(&previous) != cudaSuccess) previous = -1;
  if (previous != device_) cudaSetDevice(device_);
  if (staged_) cudaFreeAsync(staged_, stream_);
  if (stream_) cudaStreamSynchronize(stream_);
  if (lt_) cublasLtDestroy(lt_);
  if (blas_) cublasDestroy(blas_);
  if (workspace_) cudaFree(workspace_);
  if (own_stream_ && stream_) cudaStreamDestroy(stream_);
  lt_ = nullptr;
  blas_ = nullptr;
  workspace_ = nullptr;
  staged_ = nullptr;
  stream_ = nullptr;
  if (previous >= 0 && previous != device_) cudaSetDevice(previous);
}

}  // namespace gemmroute::cuda
