// C <- beta * C for every item, the BLAS quick path (alpha == 0 or k == 0): A and B are never
// read; beta == 0 writes zeros without reading C. Every CUDA candidate takes this path.
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

}  // namespace

bool quick_path(const Problem& p, const CudaExec& exec) {
  if (p.k != 0 && p.alpha != std::complex<double>(0.0, 0.0)) return false;
  if (p.beta == std::complex<double>(1.0, 0.0)) return true;  // C unchanged
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
