// C <- beta * C for every item, the BLAS quick path (alpha == 0 or k == 0): A and B are never
// read; beta == 0 writes zeros without reading C. Every CUDA candidate takes this path. The
// mixed dtypes scale in f32 (their compute type) and round once to C's type.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "core/dispatch.hpp"
#include "cuda/check.hpp"
#include "cuda/exec.hpp"
#include "cuda/kernel.cuh"
#include "cuda/scale.hpp"

namespace gemmroute::cuda {
namespace {

template <class T>
__global__ void scale_kernel(Args<T> p) {
  const std::int64_t elems = p.m * p.n;
  for (std::int64_t item = blockIdx.y; item < p.batch; item += gridDim.y) {
    T* c = p.c.item(item);
    for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < elems;
         e += std::int64_t{gridDim.x} * blockDim.x) {
      T* x = c + (e % p.m) + (e / p.m) * p.c.ld;
      *x = p.beta_zero ? Ops<T>::zero() : Ops<T>::mul(p.beta, *x);
    }
  }
}

// C's storage type as f32 and back (rounded to nearest, ties to even).
template <class S>
struct Stored;
template <>
struct Stored<float> {
  __device__ static float load(float x) { return x; }
  __device__ static float store(float x) { return x; }
};
template <>
struct Stored<__nv_bfloat16> {
  __device__ static float load(__nv_bfloat16 x) { return __bfloat162float(x); }
  __device__ static __nv_bfloat16 store(float x) { return __float2bfloat16_rn(x); }
};
template <>
struct Stored<__half> {
  __device__ static float load(__half x) { return __half2float(x); }
  __device__ static __half store(float x) { return __float2half_rn(x); }
};

template <class S>
__global__ void scale_mixed_kernel(Matrices<S> c, std::int64_t m, std::int64_t n,
                                   std::int64_t batch, float beta) {
  const std::int64_t elems = m * n;
  for (std::int64_t item = blockIdx.y; item < batch; item += gridDim.y) {
    S* ci = c.item(item);
    for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < elems;
         e += std::int64_t{gridDim.x} * blockDim.x) {
      S* x = ci + (e % m) + (e / m) * c.ld;
      *x = Stored<S>::store(beta == 0.0f ? 0.0f : beta * Stored<S>::load(*x));
    }
  }
}

template <class S>
void scale_mixed(const Problem& p, const CudaExec& exec) {
  const Matrices<S> c{static_cast<S*>(const_cast<void*>(p.c.base)),
                      reinterpret_cast<S* const*>(const_cast<void* const*>(p.c.array)), p.c.ld,
                      p.c.stride};
  const std::int64_t elems = p.m * p.n;
  dim3 grid(grid_dim((elems + 255) / 256, 4096), grid_dim(p.batch, kGridYZ));
  scale_mixed_kernel<S><<<grid, 256, 0, exec.cuda_stream()>>>(c, p.m, p.n, p.batch,
                                                              static_cast<float>(p.beta.real()));
  check_launch("scale_mixed_kernel");
}

}  // namespace

bool quick_path(const Problem& p, const CudaExec& exec) {
  if (p.k != 0 && p.alpha != std::complex<double>(0.0, 0.0)) return false;
  if (p.beta == std::complex<double>(1.0, 0.0)) return true;  // C unchanged
  if (!is_uniform(p.dtype)) {
    if (p.dtype.out == Scalar::bf16) {
      scale_mixed<__nv_bfloat16>(p, exec);
    } else if (p.dtype.out == Scalar::f16) {
      scale_mixed<__half>(p, exec);
    } else {
      scale_mixed<float>(p, exec);
    }
    return true;
  }
  dispatch(p.dtype, [&]<class H>() {
    using T = device_t<H>;
    const Args<T> args = make_args<T>(p);
    const std::int64_t elems = p.m * p.n;
    dim3 grid(grid_dim((elems + 255) / 256, 4096), grid_dim(p.batch, kGridYZ));
    scale_kernel<T><<<grid, 256, 0, exec.cuda_stream()>>>(args);
    check_launch("scale_kernel");
  });
  return true;
}

}  // namespace gemmroute::cuda
