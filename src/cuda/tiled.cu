// cuda.tiled: C in 16 x 16 tiles, one per thread block of 16 x 16 threads; each k step stages
// a 16 x 16 slab of op(A) and of op(B) in shared memory so every operand element is read from
// global memory once per tile instead of once per product. Loads are coalesced in every form:
// a transposed operand is read along its stored columns and written transposed into the
// (padded, bank-conflict-free) tile. Any size, ld, alignment and batch; partial tiles are
// predicated, so sizes need not be multiples of 16.
#include "core/dispatch.hpp"
#include "cuda/candidates.hpp"
#include "cuda/check.hpp"
#include "cuda/exec.hpp"
#include "cuda/kernel.cuh"
#include "cuda/scale.hpp"

namespace gemmroute::cuda {
namespace {

constexpr int kTile = 16;

template <class T>
__global__ void tiled_kernel(Args<T> p) {
  __shared__ T as[kTile][kTile + 1];  // as[q][i] = op(A)(i0 + i, q0 + q)
  __shared__ T bs[kTile][kTile + 1];  // bs[j][q] = op(B)(q0 + q, j0 + j)
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t tiles_m = (p.m + kTile - 1) / kTile;
  const std::int64_t tiles = tiles_m * ((p.n + kTile - 1) / kTile);
  for (std::int64_t item = blockIdx.z; item < p.batch; item += gridDim.z) {
    const T* a = p.a.item(item);
    const T* b = p.b.item(item);
    T* c = p.c.item(item);
    for (std::int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
      const std::int64_t i0 = (tile % tiles_m) * kTile, j0 = (tile / tiles_m) * kTile;
      T acc = Ops<T>::zero();
      for (std::int64_t q0 = 0; q0 < p.k; q0 += kTile) {
        // A: form N reads column q0 + ty at rows i0 + tx; T and C read column i0 + ty of the
        // stored matrix at rows q0 + tx, and store it transposed.
        if (p.ta == 0) {
          const std::int64_t i = i0 + tx, q = q0 + ty;
          as[ty][tx] = (i < p.m && q < p.k) ? a[i + q * p.a.ld] : Ops<T>::zero();
        } else {
          const std::int64_t q = q0 + tx, i = i0 + ty;
          T v = (i < p.m && q < p.k) ? a[q + i * p.a.ld] : Ops<T>::zero();
          as[tx][ty] = p.ta == 2 ? Ops<T>::conj(v) : v;
        }
        if (p.tb == 0) {
          const std::int64_t q = q0 + tx, j = j0 + ty;
          bs[ty][tx] = (q < p.k && j < p.n) ? b[q + j * p.b.ld] : Ops<T>::zero();
        } else {
          const std::int64_t j = j0 + tx, q = q0 + ty;
          T v = (q < p.k && j < p.n) ? b[j + q * p.b.ld] : Ops<T>::zero();
          bs[tx][ty] = p.tb == 2 ? Ops<T>::conj(v) : v;
        }
        __syncthreads();
#pragma unroll
        for (int q = 0; q < kTile; ++q) acc = Ops<T>::fma(as[q][tx], bs[ty][q], acc);
        __syncthreads();
      }
      const std::int64_t i = i0 + tx, j = j0 + ty;
      if (i < p.m && j < p.n) update(c + i + j * p.c.ld, acc, p);
    }
  }
}

class Tiled final : public Candidate {
 public:
  std::string_view spelling() const override { return "cuda.tiled"; }
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
      const std::int64_t tiles = ((p.m + kTile - 1) / kTile) * ((p.n + kTile - 1) / kTile);
      dim3 grid(grid_dim(tiles, kGridX), 1, grid_dim(p.batch, kGridYZ));
      tiled_kernel<T><<<grid, dim3(kTile, kTile), 0, exec.cuda_stream()>>>(make_args<T>(p));
      check_launch("tiled_kernel");
    });
  }
};

}  // namespace

const Candidate& tiled_candidate() {
  static const Tiled instance;
  return instance;
}

}  // namespace gemmroute::cuda
