// The CUDA backend's execution resources, made once per Context: the device, a stream (the
// caller's, or a blocking one of its own, ordered with the legacy default stream as cuBLAS's
// default is), a cuBLAS and a cuBLASLt handle bound to that stream, the device
// workspace candidates declare they need, and the device's limits that launches size grids by.
// Nothing here is created or allocated on the call path.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <tuple>

#include "core/exec.hpp"

namespace gemmroute::cuda {

// Device workspace for candidates (Candidate::workspace_bytes), and cuBLAS's own (the size
// NVIDIA recommends for Hopper).
inline constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;
inline constexpr std::size_t kCublasWorkspaceBytes = std::size_t{32} << 20;

class CudaExec final : public Exec {
 public:
  CudaExec(int device, cudaStream_t caller_stream);
  ~CudaExec() override;
  CudaExec(const CudaExec&) = delete;
  CudaExec& operator=(const CudaExec&) = delete;

  std::size_t workspace_bytes() const noexcept override { return kWorkspaceBytes; }
  void* stream() const noexcept override { return stream_; }

  int device() const noexcept { return device_; }
  cudaStream_t cuda_stream() const noexcept { return stream_; }
  cublasHandle_t blas() const noexcept { return blas_; }
  cublasLtHandle_t lt() const noexcept { return lt_; }
  void* workspace() const noexcept { return workspace_; }
  int sms() const noexcept { return sms_; }
  std::size_t max_shared_per_block() const noexcept { return max_smem_; }  // opt-in limit

  // Held while a launch enqueues work that uses the workspace: calls from several host threads
  // on one Context then cannot interleave their uses of it on the shared stream.
  std::mutex& launch_mutex() const noexcept { return launch_mutex_; }

  // Before a native kernel is launched with `shared` bytes of dynamic shared memory: the
  // kernel's limit raised where that is over the default 48 KiB, and the blocks of `threads`
  // one multiprocessor holds at that size. Each is asked of the runtime once per kernel (and
  // size) on this Exec's device; later launches read the cached answer.
  void allow_shared(const void* kernel, std::size_t shared) const;
  int blocks_per_sm(const void* kernel, int threads, std::size_t shared) const;

  // Copies the pointers into a device array of this Exec (grown, stream-ordered, when a call
  // needs more) by kernel launches that carry them as parameters: nothing waits for the device
  // and the host array may go as soon as this returns.
  Staged stage_pointers(std::span<const void* const> host) const override;

 private:
  void release() noexcept;
  // Raises the kernel's dynamic shared-memory limit on this device to at least `shared` where
  // that and the kernel's static shared memory together pass the default 48 KiB. The
  // limit is the kernel's, shared by every Context in the process, so it is kept process-wide
  // and only ever raised (kept per Context, a second Context's smaller launch once lowered it
  // under the first's larger one: cudaErrorInvalidValue at launch).
  void raise_shared_limit(const void* kernel, std::size_t shared) const;  // limits_mutex_ held

  int device_ = 0;
  cudaStream_t stream_ = nullptr;
  bool own_stream_ = false;
  cublasHandle_t blas_ = nullptr;
  cublasLtHandle_t lt_ = nullptr;
  void* workspace_ = nullptr;  // kWorkspaceBytes for candidates, then cuBLAS's
  int sms_ = 0;
  std::size_t max_smem_ = 0;
  mutable std::mutex launch_mutex_;
  mutable std::mutex limits_mutex_;
  mutable std::map<std::tuple<const void*, int, std::size_t>, int> blocks_per_sm_;
  // The staging area: held from stage_pointers until its Staged is destroyed.
  mutable std::mutex staging_mutex_;
  mutable void* staged_ = nullptr;  // device memory, staged_capacity_ pointers
  mutable std::size_t staged_capacity_ = 0;

 protected:
  void release_staged() const noexcept override { staging_mutex_.unlock(); }
};

// The CudaExec a CUDA candidate was handed (the backend makes no other kind).
inline const CudaExec& cuda_exec(const Exec& exec) {
  return static_cast<const CudaExec&>(exec);
}

}  // namespace gemmroute::cuda
