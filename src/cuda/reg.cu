// cuda.reg:m=128:n=128:k=8:t=8 (f32) and cuda.wide:m=64:n=64:k=8:t=4 (f64, c32, c64):
// register-tiled GEMM for mid and large items, every form, any size, ld and alignment.
//
// A block of 256 threads computes an M x N tile of one item's C; each thread holds a T x T
// register tile of it. The k loop walks slabs of K: the block stages op(A)'s M x K and op(B)'s
// K x N slab in shared memory (double-buffered: the next slab is loaded into registers while
// the current one is multiplied), and every thread then reads T elements of each per step, in
// 16-byte pieces, for T x T multiply-adds: 8 x 8 = 64 FMAs per four 16-byte loads for f32,
// which is what feeds the FMA units at their rate. Global loads are coalesced in every form (a
// transposed operand is read along its stored columns); conjugation is applied as the slab is
// staged; edges are predicated (zero-filled operands, guarded stores), so sizes need not be
// multiples of the tile. The f32 tile is 128 x 128 x 8; the wider scalars take 64 x 64 x 8, so
// registers and the 48 KiB of static shared memory suffice (a 16-byte granule holds 2 f64 or
// c32 elements, or 1 c64).
//
// Instantiations: 4 kernels (one per scalar).
#include <cstdint>
#include <string>

#include "core/dispatch.hpp"
#include "cuda/candidates.hpp"
#include "cuda/check.hpp"
#include "cuda/exec.hpp"
#include "cuda/kernel.cuh"
#include "cuda/scale.hpp"

namespace gemmroute::cuda {
namespace {

constexpr int kThreads = 256;

// 16 bytes of T.
template <class T>
struct alignas(16) Granule {
  T v[16 / sizeof(T)];
};

// Two blocks a multiprocessor (128 registers a thread) for the 4 x 4 tiles of f64 and c32;
// one for f32's 8 x 8 (64 accumulators) and c64's 4 x 4 of 16-byte elements, which spill
// under a 128-register cap.
template <class T, int TILE>
constexpr int kRegMinBlocks = TILE* TILE * sizeof(T) <= 128 ? 2 : 1;

template <class T, int M, int N, int K, int TILE>
__global__ void __launch_bounds__(kThreads, kRegMinBlocks<T, TILE>) reg_kernel(Args<T> p) {
  constexpr int G = 16 / sizeof(T);  // elements per 16-byte granule
  constexpr int kSideM = M / TILE, kSideN = N / TILE;
  static_assert(kSideM * kSideN == kThreads, "the thread tiles cover the block tile");
  static_assert(TILE % G == 0, "a thread's rows come in whole granules");
  constexpr int kLoadsA = M * K / kThreads, kLoadsB = K * N / kThreads;
  static_assert(kLoadsA * kThreads == M * K && kLoadsB * kThreads == K * N, "whole loads");
  // as[q][i] = op(A)(i0 + i, q0 + q), bs[q][j] = op(B)(q0 + q, j0 + j); rows padded by one
  // granule so the transposing stores do not collide in one bank, and kept 16-byte aligned.
  __shared__ Granule<T> as_raw[2][K][(M + G) / G];
  __shared__ Granule<T> bs_raw[2][K][(N + G) / G];
  auto as = [&](int buf, int q) { return reinterpret_cast<T*>(as_raw[buf][q]); };
  auto bs = [&](int buf, int q) { return reinterpret_cast<T*>(bs_raw[buf][q]); };

  const int tid = threadIdx.x;
  const int tx = tid % kSideM, ty = tid / kSideM;
  // The thread's rows: TILE / G granules, spread over the tile so that the 16 threads along
  // m read 16 consecutive granules (no bank conflicts). Columns likewise.
  auto row = [&](int u) { return (u / G) * (M / (TILE / G)) + tx * G + (u % G); };
  auto col = [&](int v) { return (v / G) * (N / (TILE / G)) + ty * G + (v % G); };

  const std::int64_t tiles_m = (p.m + M - 1) / M, tiles_n = (p.n + N - 1) / N;
  const std::int64_t tiles = tiles_m * tiles_n;
  const bool ta = p.ta != 0, tb = p.tb != 0;
  const bool ca = p.ta == 2, cb = p.tb == 2;
  for (std::int64_t item = blockIdx.z; item < p.batch; item += gridDim.z) {
    const T* a = p.a.item(item);
    const T* b = p.b.item(item);
    T* c = p.c.item(item);
    for (std::int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
      const std::int64_t i0 = (tile % tiles_m) * M, j0 = (tile / tiles_m) * N;
      // One slab's elements for this thread, as loaded: A's (i, q) and B's (q, j).
      T ra[kLoadsA], rb[kLoadsB];
      auto load = [&](std::int64_t q0) {
#pragma unroll
        for (int r = 0; r < kLoadsA; ++r) {
          const int e = tid + r * kThreads;
          // N: along the stored column i; T or C: along the stored column q.
          const int i = ta ? e / K : e % M, q = ta ? e % K : e / M;
          const std::int64_t gi = i0 + i, gq = q0 + q;
          T v = Ops<T>::zero();
          if (gi < p.m && gq < p.k) v = ta ? a[gq + gi * p.a.ld] : a[gi + gq * p.a.ld];
          ra[r] = ca ? Ops<T>::conj(v) : v;
        }
#pragma unroll
        for (int r = 0; r < kLoadsB; ++r) {
          const int e = tid + r * kThreads;
          // N: along the stored column j (q fastest); T or C: along the stored column q.
          const int q = tb ? e / N : e % K, j = tb ? e % N : e / K;
          const std::int64_t gq = q0 + q, gj = j0 + j;
          T v = Ops<T>::zero();
          if (gq < p.k && gj < p.n) v = tb ? b[gj + gq * p.b.ld] : b[gq + gj * p.b.ld];
          rb[r] = cb ? Ops<T>::conj(v) : v;
        }
      };
      auto store = [&](int buf) {
#pragma unroll
        for (int r = 0; r < kLoadsA; ++r) {
          const int e = tid + r * kThreads;
          const int i = ta ? e / K : e % M, q = ta ? e % K : e / M;
          as(buf, q)[i] = ra[r];
        }
#pragma unroll
        for (int r = 0; r < kLoadsB; ++r) {
          const int e = tid + r * kThreads;
          const int q = tb ? e / N : e % K, j = tb ? e % N : e / K;
          bs(buf, q)[j] = rb[r];
        }
      };

      T acc[TILE][TILE];
#pragma unroll
      for (int u = 0; u < TILE; ++u)
#pragma unroll
        for (int v = 0; v < TILE; ++v) acc[u][v] = Ops<T>::zero();

      load(0);
      store(0);
      __syncthreads();
      int buf = 0;
      for (std::int64_t q0 = 0; q0 < p.k; q0 += K) {
        const bool more = q0 + K < p.k;
        if (more) load(q0 + K);  // in flight while this slab is multiplied
#pragma unroll
        for (int q = 0; q < K; ++q) {
          T x[TILE], y[TILE];
          const Granule<T>* ga = reinterpret_cast<const Granule<T>*>(as(buf, q));
          const Granule<T>* gb = reinterpret_cast<const Granule<T>*>(bs(buf, q));
#pragma unroll
          for (int u = 0; u < TILE; u += G) {
            const Granule<T> g = ga[row(u) / G];
#pragma unroll
            for (int l = 0; l < G; ++l) x[u + l] = g.v[l];
          }
#pragma unroll
          for (int v = 0; v < TILE; v += G) {
            const Granule<T> g = gb[col(v) / G];
#pragma unroll
            for (int l = 0; l < G; ++l) y[v + l] = g.v[l];
          }
#pragma unroll
          for (int u = 0; u < TILE; ++u)
#pragma unroll
            for (int v = 0; v < TILE; ++v) acc[u][v] = Ops<T>::fma(x[u], y[v], acc[u][v]);
        }
        if (more) {
          store(buf ^ 1);
          __syncthreads();  // the other buffer is full; nobody reads this one any more
          buf ^= 1;
        }
      }
#pragma unroll
      for (int v = 0; v < TILE; ++v) {
        const std::int64_t j = j0 + col(v);
        if (j >= p.n) continue;
#pragma unroll
        for (int u = 0; u < TILE; ++u) {
          const std::int64_t i = i0 + row(u);
          if (i < p.m) update(c + i + j * p.c.ld, acc[u][v], p);
        }
      }
      __syncthreads();  // the next tile restages buffer 0
    }
  }
}

template <class T, int M, int N, int K, int TILE>
void launch_reg(const Problem& p, const CudaExec& exec) {
  const std::int64_t tiles = ((p.m + M - 1) / M) * ((p.n + N - 1) / N);
  dim3 grid(grid_dim(tiles, kGridX), 1, grid_dim(p.batch, kGridYZ));
  reg_kernel<T, M, N, K, TILE><<<grid, kThreads, 0, exec.cuda_stream()>>>(make_args<T>(p));
  check_launch("reg_kernel");
}

// One family member: its spelling, the scalars it is instantiated for, and its launcher.
class Reg final : public Candidate {
 public:
  using Launcher = void (*)(const Problem&, const CudaExec&);
  Reg(std::string spelling, Scalar a, Scalar b, Scalar c, Launcher fa, Launcher fb, Launcher fc)
      : spelling_(std::move(spelling)), scalars_{a, b, c}, launchers_{fa, fb, fc} {}
  std::string_view spelling() const override { return spelling_; }
  Provider provider() const override { return Provider::native; }
  Verdict can_run(const Problem& p) const override {
    if (const char* why = uniform_only(p.dtype)) return Verdict::no(why);
    return launcher(p.dtype.in) ? Verdict::yes()
                                : Verdict::no("this tile is not instantiated for the scalar");
  }
  void launch(const Problem& p, const Exec& e) const override {
    require_runnable(*this, p, e);
    const CudaExec& exec = cuda_exec(e);
    if (quick_path(p, exec)) return;
    launcher(p.dtype.in)(p, exec);
  }

 private:
  Launcher launcher(Scalar s) const {
    for (int i = 0; i < 3; ++i) {
      if (launchers_[i] && scalars_[i] == s) return launchers_[i];
    }
    return nullptr;
  }
  std::string spelling_;
  Scalar scalars_[3];
  Launcher launchers_[3];
};

}  // namespace

const Candidate& reg_candidate() {
  static const Reg instance("cuda.reg:m=128:n=128:k=8:t=8", Scalar::f32, Scalar::f32, Scalar::f32,
                            &launch_reg<float, 128, 128, 8, 8>, nullptr, nullptr);
  return instance;
}

const Candidate& wide_candidate() {
  static const Reg instance("cuda.wide:m=64:n=64:k=8:t=4", Scalar::f64, Scalar::c32, Scalar::c64,
                            &launch_reg<double, 64, 64, 8, 4>, &launch_reg<Cx<float>, 64, 64, 8, 4>,
                            &launch_reg<Cx<double>, 64, 64, 8, 4>);
  return instance;
}

}  // namespace gemmroute::cuda
