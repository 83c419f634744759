// cuda.direct: the generic native kernel and the CUDA backend's last resort. One thread per
// element of C, summing its k products from global memory in working precision: every scalar,
// every form (N, T, C), any leading dimension, alignment and batch. Items run over grid y
// (and loop past 65535), elements over grid x; every offset is 64-bit.
#include "core/dispatch.hpp"
#include "cuda/candidates.hpp"
#include "cuda/check.hpp"
#include "cuda/exec.hpp"
#include "cuda/kernel.cuh"
#include "cuda/scale.hpp"

namespace gemmroute::cuda {
namespace {

template <class T>
__global__ void direct_kernel(Args<T> p) {
  const std::int64_t elems = p.m * p.n;
  for (std::int64_t item = blockIdx.y; item < p.batch; item += gridDim.y) {
    const T* a = p.a.item(item);
    const T* b = p.b.item(item);
    T* c = p.c.item(item);
    for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < elems;
         e += std::int64_t{gridDim.x} * blockDim.x) {
      const std::int64_t i = e % p.m, j = e / p.m;
      T acc = Ops<T>::zero();
      for (std::int64_t q = 0; q < p.k; ++q) {
        acc = Ops<T>::fma(op_elem(a, p.a.ld, p.ta, i, q), op_elem(b, p.b.ld, p.tb, q, j), acc);
      }
      update(c + i + j * p.c.ld, acc, p);
    }
  }
}

class Direct final : public Candidate {
 public:
  std::string_view spelling() const override { return "cuda.direct"; }
  Provider provider() const override { return Provider::native; }
  Verdict can_run(const Problem& p) const override {
    if (const char* why = uniform_only(p.dtype)) return Verdict::no(why);
    return Verdict::yes();
  }
  void launch(const Problem& p, const Exec& e) const override {
    require_runnable(*this, p, e);
    const CudaExec& exec = cuda_exec(e);
    if (quick_path(p, exec)) return;
    dispatch(p.dtype, [&]<class H>() {
      using T = device_t<H>;
      const std::int64_t elems = p.m * p.n;
      dim3 grid(grid_dim((elems + 127) / 128, kGridX), grid_dim(p.batch, kGridYZ));
      direct_kernel<T><<<grid, 128, 0, exec.cuda_stream()>>>(make_args<T>(p));
      check_launch("direct_kernel");
    });
  }
};

}  // namespace

const Candidate& direct_candidate() {
  static const Direct instance;
  return instance;
}

}  // namespace gemmroute::cuda
