// Exec: the execution resources a launch runs with, made once per Context by its backend
// (Backend::make_exec) and handed to every launch, so nothing is created, allocated or
// synchronised on the call path. On the CPU it holds nothing; the CUDA backend's holds the
// stream, the cuBLAS handles and a device workspace (src/cuda/exec.hpp). A candidate states up
// front how much workspace a problem needs (Candidate::workspace_bytes), and the selector skips
// it where the Context's workspace is smaller.
#pragma once

#include <cstddef>

namespace gemmroute {

class Exec {
 public:
  virtual ~Exec() = default;
  // Bytes of device workspace every launch through this Exec may use.
  virtual std::size_t workspace_bytes() const noexcept { return 0; }
  // The stream launches are enqueued on (a cudaStream_t), or nullptr.
  virtual void* stream() const noexcept { return nullptr; }
};

}  // namespace gemmroute
