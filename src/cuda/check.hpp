// CUDA and cuBLAS statuses as gemmroute::Error: every failing call is named with its status.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace gemmroute::cuda {

// Throw Error(internal, "cuda", "<call> failed: <status name>: <description>") unless ok.
void check(cudaError_t status, const char* call);
void check(cublasStatus_t status, const char* call);
// After a kernel launch: the launch's own error (bad configuration, no kernel image).
void check_launch(const char* kernel);

const char* status_name(cublasStatus_t status) noexcept;

// Makes `device` current for a scope and restores the caller's device after.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

}  // namespace gemmroute::cuda
