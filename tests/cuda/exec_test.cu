// Tests of CudaExec's launch limits (label `gpu`).
#include <gtest/gtest.h>

#include <cstddef>

#include "cuda/exec.hpp"
#include "gpu.hpp"

namespace gemmroute::cuda {
namespace {

// Static shared memory beside the dynamic buffer: the default limit counts both.
__global__ void static_beside_dynamic(int* out) {
  __shared__ int fixed[4];
  extern __shared__ int dynamic[];
  fixed[threadIdx.x % 4] = 1;
  dynamic[threadIdx.x] = 2;
  __syncthreads();
  if (threadIdx.x == 0) *out = fixed[0] + dynamic[0];
}

// 48 KiB of dynamic memory is within the default limit alone, but not with the kernel's 16
// static bytes: allow_shared must raise the kernel's limit, else the launch is refused.
TEST(CudaExec, AllowSharedCountsTheKernelsStaticMemory) {
  GEMMROUTE_REQUIRE_GPU();
  const CudaExec exec(0, nullptr);
  const void* kernel = reinterpret_cast<const void*>(&static_beside_dynamic);
  cudaFuncAttributes attributes{};
  test::cuda_ok(cudaFuncGetAttributes(&attributes, kernel), "cudaFuncGetAttributes");
  ASSERT_GT(attributes.sharedSizeBytes, 0u);
  const std::size_t shared = 48 * 1024;
  exec.allow_shared(kernel, shared);
  test::DeviceMemory out(sizeof(int));
  static_beside_dynamic<<<1, 32, shared, exec.cuda_stream()>>>(static_cast<int*>(out.ptr));
  test::cuda_ok(cudaGetLastError(), "launch");
  test::cuda_ok(cudaStreamSynchronize(exec.cuda_stream()), "sync");
  int got = 0;
  test::cuda_ok(cudaMemcpy(&got, out.ptr, sizeof got, cudaMemcpyDeviceToHost), "cudaMemcpy");
  EXPECT_EQ(got, 3);
}

}  // namespace
}  // namespace gemmroute::cuda
