// cuda.reg:m=128:n=128:k=8:t=8 and :m=256:n=128:k=8:t=8x16 (f32), cuda.wide:m=64:n=64:k=8:t=4
// (f64, c32, c64):
// register-tiled GEMM for mid and large items, every form, any size, ld and alignment.
//
// cuda.reg (f32). A block of 256 threads computes a 128 x 128 tile of one item's C; each
// thread holds an 8 x 8 register tile of it, as 2 x 2 blocks of 4 x 4. The eight warps split
// the tile 2 (m) x 4 (n), 64 x 32 each; a warp's lanes 8 (m) x 4 (n), so that a k step's four
// 16-byte shared-memory loads of a warp read 128 and 64 consecutive bytes (no bank conflict;
// lanes that share rows or columns share the words) for 64 multiply-adds a thread. The k loop
// walks slabs of 8 (16 where k is split and loads are 16 bytes): op(A)'s 128 x 8 and op(B)'s
// 8 x 128 are staged in shared memory as [k][128], one barrier a slab, in one of two ways
// (measured per form, see launch_sgemm_form): through registers into two buffers (the next
// slab is loaded while the current one is multiplied), or by asynchronous copies (cp.async)
// into three or four stages, except an operand whose 16-byte runs lie along k, which always
// goes through registers (it is transposed on the way). The form is a template parameter (a
// real operand is N or T), so each operand's loads run along its stored columns with no
// run-time branch: 16-byte loads where the operand allows them (ld, base and stride 16-byte
// multiples, and the extent along the stored column a multiple of 4; then C is stored 16
// bytes at a time too), else element by element; edges are predicated (zero-filled operands,
// guarded stores). Two blocks a multiprocessor (128 registers).
//
// cuda.wide (f64, c32, c64): the same scheme, generic over the scalar and the form at run
// time: 64 x 64 x 8 tiles, 4 x 4 a thread, element loads, conjugation applied as the slab is
// staged, so registers and the 48 KiB of static shared memory suffice (a 16-byte granule holds
// 2 f64 or c32 elements, or 1 c64).
//
// Where a call's tiles would leave most multiprocessors idle (a few large items), cuda.reg
// splits k into chunks (sgemm_split): each chunk's sums go to the candidates' workspace and a
// second kernel adds them in chunk order, so the bits depend on the shape and the GPU only.
//
// cuda.reg:m=256:n=128:k=8:t=8x16 (f32): every call on 256 x 128 tiles, 8 x 16 a thread, one
// block a multiprocessor, both operands by 4-byte asynchronous copies, k split in the same way
// where the tiles are few (see "the large tile").
//
// Instantiations: 33 kernels (cuda.reg 128 x 128: 2 forms of A x 2 of B x 16-byte or element
// loads x whole or split k, 12 of them copying asynchronously, and the chunks' sum; 256 x 128:
// one a form, and those whose copies past an edge repeat a copy inside, 5: N N with A's edge,
// B's or both, T N with both, T T with A's, and one a form for split k; cuda.wide: one per
// scalar).
#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>
#include <type_traits>

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

// ---- cuda.wide -------------------------------------------------------------------------------

// Two blocks a multiprocessor (128 registers a thread) for the 4 x 4 tiles of f64 and c32;
// one for c64's 4 x 4 of 16-byte elements, which spill under a 128-register cap.
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

// ---- cuda.reg: the f32 kernel --------------------------------------------------------------

constexpr int kRegTile = 128;  // the block's tile of C, m and n
constexpr int kRegSlab = 8;    // k per slab
// k per slab where blocks take chunks of k (split k), and for T T: twice the multiply-adds a
// barrier. Slabs of 16 through registers spill under the two-block cap (the whole-k kernels of
// N N and T N; bench/results/h200/README.md, "The f32 register tile").
constexpr int kDeepSlab = 16;
constexpr int kRegPitch = kRegTile + 4;  // a staged row, padded (16-byte multiple, see load)

// Where one thread's part of an operand's 128 x S slab X(r, q) lies (r along m for A, along n
// for B; q along k), as the f32 kernel stages the slab at xs[q][r]. kRowsRun: the stored
// columns run along r (A in N, B in T), so X(r, q) = x[r + q ld]; else along q (A in T, B in
// N), X(r, q) = x[q + r ld]. kVec: runs of 4 (the run's extent a multiple of 4, ld and the item
// base 16-byte multiples), each inside or outside the operand, S / 8 of them a thread, 8 columns
// (kRowsRun) or 1024 / S rows apart; else S / 2 elements a thread, 2 columns (kRowsRun) or
// 256 / S rows apart. begin() fixes the thread's elements for a tile (a pointer, and which of
// its units fall inside along r); Slab and Stager move them.
template <bool kRowsRun, bool kVec, int S>
struct SlabPart {
  static constexpr int kUnits = kVec ? S / 8 : S / 2;
  static constexpr int kApart = kRowsRun ? (kVec ? 8 : 2) : (kVec ? 1024 / S : 256 / S);
  const float* next;  // the thread's first element in the next slab
  unsigned inside;    // bit l: unit l's r is inside the operand

  // The thread's first element: (r, q) within the slab.
  __device__ static int r_of(int t) {
    if (kVec) return kRowsRun ? (t % 32) * 4 : t / (S / 4);
    return kRowsRun ? t % kRegTile : t / S;
  }
  __device__ static int q_of(int t) {
    if (kVec) return kRowsRun ? t / 32 : (t % (S / 4)) * 4;
    return kRowsRun ? t / kRegTile : t % S;
  }

  // x: the item, r0 the tile's first r, q0 the first slab's, R the operand's extent along r.
  __device__ void begin(const float* x, std::int64_t ld, std::int64_t r0, std::int64_t q0,
                        std::int64_t R, int t) {
    const std::int64_t r = r0 + r_of(t), q = q0 + q_of(t);
    next = kRowsRun ? x + r + q * ld : x + q + r * ld;
    inside = 0;
#pragma unroll
    for (int l = 0; l < kUnits; ++l) {
      if ((kRowsRun ? r : r + l * kApart) < R) inside |= 1u << l;
    }
  }
  // To the next slab. (Whether unit l is inside stays written out where it is used: as a member
  // function it changed the kernels' generated code.)
  __device__ void advance(std::int64_t ld) {
    next += kRowsRun ? S * ld : S;
  }
};

// A slab copied from global to shared memory asynchronously (cp.async, no registers held while
// the copies fly): one 16-byte copy a unit where the run lies along r, four 4-byte copies (a
// transpose) where it lies along q, one 4-byte copy an element. Elements outside the operand are
// zeros stored directly (but see kLastRow). issue() starts the copies of the next slab.
template <bool kRowsRun, bool kVec, int S, bool kLastRow = false>
struct Stager {
  using Part = SlabPart<kRowsRun, kVec, S>;
  static constexpr int kApart = Part::kApart, kUnits = Part::kUnits;
  Part part;

  // kLastRow, element copies: rows past the operand's edge along r copy its last row instead of
  // zeros. They reach only rows (A) or columns (B) of the tile's C outside the call, which are
  // never written, so an edge tile's whole slabs need no zeros and no guard: a thread past the
  // edge copies from row R - 1 (where its runs lie along r, all its units: `inside` all set),
  // or, where they lie along q, its units past the edge copy unit 0's element (issue()).
  __device__ void begin(const float* x, std::int64_t ld, std::int64_t r0, std::int64_t q0,
                        std::int64_t R, int t) {
    part.begin(x, ld, r0, q0, R, t);
    if constexpr (kLastRow && !kVec) {
      const std::int64_t past = r0 + Part::r_of(t) - (R - 1);  // > 0: the thread's r is outside
      if (past > 0) {
        part.next -= kRowsRun ? past : past * ld;
        if constexpr (kRowsRun) part.inside = (1u << kUnits) - 1;
      }
    }
  }

  // Copies the slab at q0 (the one after the last issued) into xs; Q: where the thread's k
  // range ends. Element copies go unguarded where every unit lies inside the operand: a
  // predicated copy beside a predicated zero store to the same place costs three more issued
  // instructions a copy (the element kernels, with store_tile's C read first, measured
  // 1.06-1.13x at 1023^3 and 2047^3). 16-byte units stay guarded one by one: unguarded, they
  // measured 0.97-1.02x, slower on the split calls and N T 2048^3.
  __device__ void issue(float (*xs)[kRegPitch], std::int64_t ld, std::int64_t q0, std::int64_t Q,
                        int t) {
    const int r = Part::r_of(t), qs = Part::q_of(t);
    const std::int64_t q = q0 + qs;
    if constexpr (kVec) {
#pragma unroll
      for (int l = 0; l < kUnits; ++l) {
        const bool in = ((part.inside >> l) & 1) && (kRowsRun ? q + l * kApart : q) < Q;
        const float* src = part.next + l * kApart * ld;
        if constexpr (kRowsRun) {
          float* dst = &xs[qs + l * kApart][r];
          if (in) {
            copy_async<16>(dst, src);
          } else {
            *reinterpret_cast<float4*>(dst) = make_float4(0.f, 0.f, 0.f, 0.f);
          }
        } else {  // a run along k, stored across four rows
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            float* dst = &xs[qs + e][r + l * kApart];
            if (in) {
              copy_async<4>(dst, src + e);
            } else {
              *dst = 0.f;
            }
          }
        }
      }
    } else if (part.inside == (1u << kUnits) - 1 && q0 + S <= Q) {
#pragma unroll
      for (int l = 0; l < kUnits; ++l) copy_unit(xs, part.next + l * kApart * ld, l, r, qs);
    } else if (kLastRow && q0 + S <= Q) {  // an edge tile's whole slab, runs along q: begin()
#pragma unroll
      for (int l = 0; l < kUnits; ++l) {
        copy_unit(xs, (part.inside >> l) & 1 ? part.next + l * kApart * ld : part.next, l, r, qs);
      }
    } else {
#pragma unroll
      for (int l = 0; l < kUnits; ++l) {
        if (((part.inside >> l) & 1) && (kRowsRun ? q + l * kApart : q) < Q) {
          copy_unit(xs, part.next + l * kApart * ld, l, r, qs);
        } else {
          zero_unit(xs, l, r, qs);
        }
      }
    }
    part.advance(ld);
  }

 private:
  // Element copy l of the thread's share (its first element at r, qs of the slab) from src, or a
  // zero in its place.
  __device__ static float& unit(float (*xs)[kRegPitch], int l, int r, int qs) {
    return kRowsRun ? xs[qs + l * kApart][r] : xs[qs][r + l * kApart];
  }
  __device__ static void copy_unit(float (*xs)[kRegPitch], const float* src, int l, int r, int qs) {
    copy_async<4>(&unit(xs, l, r, qs), src);
  }
  __device__ static void zero_unit(float (*xs)[kRegPitch], int l, int r, int qs) {
    unit(xs, l, r, qs) = 0.f;
  }
};

// A slab through registers: load() fetches the next slab into registers (16-byte loads with
// kVec, else element loads), store() puts them into shared memory.
template <bool kRowsRun, bool kVec, int S>
struct Slab {
  using Part = SlabPart<kRowsRun, kVec, S>;
  static constexpr int kApart = Part::kApart, kUnits = Part::kUnits;
  float4 v4[kVec ? kUnits : 1];
  float v[kVec ? 1 : kUnits];
  Part part;

  __device__ void begin(const float* x, std::int64_t ld, std::int64_t r0, std::int64_t q0,
                        std::int64_t R, int t) {
    part.begin(x, ld, r0, q0, R, t);
  }

  // The slab at q0 (the one after the last loaded); Q: where the thread's k range ends.
  __device__ void load(std::int64_t ld, std::int64_t q0, std::int64_t Q, int t) {
    const std::int64_t q = q0 + Part::q_of(t);
    if constexpr (kVec) {
#pragma unroll
      for (int l = 0; l < kUnits; ++l) {
        const bool in = ((part.inside >> l) & 1) && (kRowsRun ? q + l * kApart : q) < Q;
        v4[l] = in ? *reinterpret_cast<const float4*>(part.next + l * kApart * ld)
                   : make_float4(0.f, 0.f, 0.f, 0.f);
      }
    } else {
#pragma unroll
      for (int l = 0; l < kUnits; ++l) {
        const bool in = ((part.inside >> l) & 1) && (kRowsRun ? q + l * kApart : q) < Q;
        v[l] = in ? part.next[l * kApart * ld] : 0.f;
      }
    }
    part.advance(ld);
  }
  __device__ void store(float (*xs)[kRegPitch], int t) const {
    const int r = Part::r_of(t), q0 = Part::q_of(t);
    if constexpr (kVec) {
#pragma unroll
      for (int l = 0; l < kUnits; ++l) {
        if (kRowsRun) {
          *reinterpret_cast<float4*>(&xs[q0 + l * kApart][r]) = v4[l];
        } else {  // a run along k, stored across four rows
          xs[q0][r + l * kApart] = v4[l].x;
          xs[q0 + 1][r + l * kApart] = v4[l].y;
          xs[q0 + 2][r + l * kApart] = v4[l].z;
          xs[q0 + 3][r + l * kApart] = v4[l].w;
        }
      }
    } else {
#pragma unroll
      for (int l = 0; l < kUnits; ++l) {
        if (kRowsRun) {
          xs[q0 + l * kApart][r] = v[l];
        } else {
          xs[q0][r + l * kApart] = v[l];
        }
      }
    }
  }
};

// Two blocks a multiprocessor: ptxas fits the kernel in 128 registers without spilling, and
// it ran 1.6x faster than one block of 150-160 registers (-DGEMMROUTE_SGEMM_MIN_BLOCKS=1;
// bench/results/h200/README.md, "The f32 register tile").
#ifndef GEMMROUTE_SGEMM_MIN_BLOCKS
#define GEMMROUTE_SGEMM_MIN_BLOCKS 2
#endif
constexpr int kSgemmMinBlocks = GEMMROUTE_SGEMM_MIN_BLOCKS;

// Split k: where the tiles of a call are too few to fill the GPU, blockIdx.y takes k in
// `count` chunks of `chunk` (a multiple of the slab), each writing its sums into `partial`,
// [count][batch][n][partial_ld(m)] (the candidates' workspace), and split_sum_kernel adds them
// in order and applies alpha and beta. count == 1: the whole k, straight into C.
struct Split {
  int count;
  std::int64_t chunk;
  float* partial;
  std::int64_t ld = 0;  // the sums' column stride, partial_ld(m) (sgemm_split sets it)
};

// The partial sums' column stride (Split::ld): m rounded up to 4, so that every column starts
// on 16 bytes and a tile's runs of 4 rows go 16 bytes at a time whatever m is (the rows past m
// take sums of rows past the matrix, which the sum kernel reads and drops). With ld = m and m
// unaligned, the element kernel's stores asked 1.9x the L1 tag requests and the split kernel
// took 1.19x the time of k unaligned (ncu, H100, N N 1023 x 1024 x 1024 against
// 1024 x 1024 x 1023).
constexpr std::int64_t partial_ld(std::int64_t m) {
  return (m + 3) / 4 * 4;
}

// The thread's place in the block's tile: rows wm 64 + s 32 + lm 4 + (0..3), columns
// wn 32 + s 16 + ln 4 + (0..3), for warp (wm, wn) and lane (lm, ln); acc[u][v] is the element
// of row row0 + (u / 4) 32 + u % 4 and column col0 + (v / 4) 16 + v % 4.
__device__ __forceinline__ int tile_row0(int t) {
  return (t / 32 % 2) * 64 + (t % 32 % 8) * 4;
}
__device__ __forceinline__ int tile_col0(int t) {
  return (t / 32 / 2) * 32 + (t % 32 / 8) * 4;
}

// One staged slab's S steps of k into the thread's 8 x 8 tile. Fragments double-buffered in
// registers: step q + 1's shared-memory loads issue before step q's multiply-adds.
template <int S>
__device__ __forceinline__ void multiply_slab(const float (*as)[kRegPitch],
                                              const float (*bs)[kRegPitch], int row0, int col0,
                                              float (&acc)[8][8]) {
  float x[2][8], y[2][8];
  auto fragments = [&](int q, float* xq, float* yq) {
#pragma unroll
    for (int s = 0; s < 2; ++s) {
      const float4 xa = *reinterpret_cast<const float4*>(&as[q][row0 + s * 32]);
      const float4 yb = *reinterpret_cast<const float4*>(&bs[q][col0 + s * 16]);
      xq[s * 4] = xa.x, xq[s * 4 + 1] = xa.y, xq[s * 4 + 2] = xa.z, xq[s * 4 + 3] = xa.w;
      yq[s * 4] = yb.x, yq[s * 4 + 1] = yb.y, yq[s * 4 + 2] = yb.z, yq[s * 4 + 3] = yb.w;
    }
  };
  fragments(0, x[0], y[0]);
#pragma unroll
  for (int q = 0; q < S; ++q) {
    if (q + 1 < S) fragments(q + 1, x[(q + 1) % 2], y[(q + 1) % 2]);
#pragma unroll
    for (int u = 0; u < 8; ++u)
#pragma unroll
      for (int v = 0; v < 8; ++v) acc[u][v] = fmaf(x[q % 2][u], y[q % 2][v], acc[u][v]);
  }
}

// The tile at (i0, j0) of an item, a thread's 8 x N of it (rows row0 + s 32 + (0..3), s < 2;
// columns col0 + (v / 4) 16 + v % 4, v < N): with kSplit, this chunk's raw sums into the
// workspace (as split_sum_kernel reads them; 16 bytes at a time, the rows up to partial_ld(m)),
// else alpha acc + beta C into C (16 bytes at a time with vec: m is then a multiple of 4, so a
// run of 4 rows is inside or outside).
// kReadFirst: C is read N / 4 columns at a time, every load before the first store (a load after
// a store to the same array waits for it); else each run of C is read and written in turn. The
// first measured 1.06-1.13x on the 128 x 128 tile's element kernels (with their unguarded
// copies) and is part of the 256 x 128 tile's 1.02-1.20x, but 0.985-1.02x on the 128 x 128
// tile's register kernels, no gain where another block on the multiprocessor can hide the
// round trips (bench/results/h100-ab-2026-12-06/README.md, "Patches 25, 26 and 27").
template <bool kSplit, bool kReadFirst, int N>
__device__ __forceinline__ void store_tile(const Args<float>& p, const Split& split,
                                           std::int64_t item, std::int64_t i0, std::int64_t j0,
                                           int row0, int col0, const float (&acc)[8][N], bool vec) {
  float* out;
  std::int64_t ld;
  if constexpr (kSplit) {
    // The 16-byte kernels (!kReadFirst) have m a multiple of 4, so split.ld == m there; reading
    // m keeps their code as it was (with split.ld the N N one ran 1.4-2.5% slower on an H100).
    ld = kReadFirst ? split.ld : p.m;
    out = split.partial + (blockIdx.y * p.batch + item) * p.n * ld;
  } else {
    out = p.c.item(item);
    ld = p.c.ld;
  }
  if constexpr (kReadFirst) {
    constexpr int kGroup = N / 4;  // columns read together (more would spill at 8 x 8)
    const bool read_c = !kSplit && !p.beta_zero;
#pragma unroll
    for (int v0 = 0; v0 < N; v0 += kGroup) {
      float old[kGroup][8];  // beta C's old values, row u of the thread's 8 (0 where not read)
#pragma unroll
      for (int g = 0; g < kGroup; ++g) {
#pragma unroll
        for (int u = 0; u < 8; ++u) old[g][u] = 0.f;
      }
      if (read_c) {
#pragma unroll
        for (int g = 0; g < kGroup; ++g) {
          const int v = v0 + g;
          const std::int64_t j = j0 + col0 + (v / 4) * 16 + v % 4;
          if (j >= p.n) continue;
          const float* oj = out + j * ld;
#pragma unroll
          for (int s = 0; s < 2; ++s) {
            const std::int64_t i = i0 + row0 + s * 32;
            if (vec) {
              if (i >= p.m) continue;
              const float4 o = *reinterpret_cast<const float4*>(oj + i);
              old[g][s * 4] = o.x;
              old[g][s * 4 + 1] = o.y;
              old[g][s * 4 + 2] = o.z;
              old[g][s * 4 + 3] = o.w;
            } else {
#pragma unroll
              for (int l = 0; l < 4; ++l) {
                if (i + l < p.m) old[g][s * 4 + l] = oj[i + l];
              }
            }
          }
        }
      }
#pragma unroll
      for (int g = 0; g < kGroup; ++g) {
        const int v = v0 + g;
        const std::int64_t j = j0 + col0 + (v / 4) * 16 + v % 4;
        if (j >= p.n) continue;
        float* oj = out + j * ld;
        float r[8];  // what the thread's 8 rows of column j become
#pragma unroll
        for (int u = 0; u < 8; ++u) {
          r[u] = kSplit ? acc[u][v] : p.alpha * acc[u][v];
          if (read_c) r[u] = fmaf(p.beta, old[g][u], r[u]);
        }
#pragma unroll
        for (int s = 0; s < 2; ++s) {
          const std::int64_t i = i0 + row0 + s * 32;
          if (vec) {
            if (i >= p.m) continue;
            *reinterpret_cast<float4*>(oj + i) =
                make_float4(r[s * 4], r[s * 4 + 1], r[s * 4 + 2], r[s * 4 + 3]);
          } else {
#pragma unroll
            for (int l = 0; l < 4; ++l) {
              if (i + l < p.m) oj[i + l] = r[s * 4 + l];
            }
          }
        }
      }
    }
  } else {
#pragma unroll
    for (int v = 0; v < N; ++v) {
      const std::int64_t j = j0 + col0 + (v / 4) * 16 + v % 4;
      if (j >= p.n) continue;
      float* oj = out + j * ld;
#pragma unroll
      for (int s = 0; s < 2; ++s) {
        const std::int64_t i = i0 + row0 + s * 32;
        if (vec) {
          if (i >= p.m) continue;
          float4* o4 = reinterpret_cast<float4*>(oj + i);
          if constexpr (kSplit) {
            *o4 =
                make_float4(acc[s * 4][v], acc[s * 4 + 1][v], acc[s * 4 + 2][v], acc[s * 4 + 3][v]);
          } else {
            float4 r = make_float4(p.alpha * acc[s * 4][v], p.alpha * acc[s * 4 + 1][v],
                                   p.alpha * acc[s * 4 + 2][v], p.alpha * acc[s * 4 + 3][v]);
            if (!p.beta_zero) {
              const float4 old = *o4;
              r.x = fmaf(p.beta, old.x, r.x);
              r.y = fmaf(p.beta, old.y, r.y);
              r.z = fmaf(p.beta, old.z, r.z);
              r.w = fmaf(p.beta, old.w, r.w);
            }
            *o4 = r;
          }
        } else {
#pragma unroll
          for (int l = 0; l < 4; ++l) {
            if (i + l >= p.m) continue;
            if constexpr (kSplit) {
              oj[i + l] = acc[s * 4 + l][v];
            } else {
              update(oj + i + l, acc[s * 4 + l][v], p);
            }
          }
        }
      }
    }
  }
}

// kTa, kTb: op(A), op(B) is the transpose (a real C is folded into T). kVec: every operand
// takes 16-byte loads and stores (launch_sgemm checks). kSplit: blockIdx.y is a chunk of k
// (split.count > 1); without it the k loop runs to the constant p.k and writes C, as fast as
// before split k was added (a run-time chunk range cost about 11% at 2048^3).
//
// Both operands through registers, two buffers in static shared memory: the next slab is
// loaded into registers while the current one is multiplied, then stored, one barrier a slab.
template <bool kTa, bool kTb, bool kVec, bool kSplit>
__global__ void __launch_bounds__(kThreads, kSgemmMinBlocks)
    sgemm_kernel(Args<float> p, Split split) {
  constexpr int S = kSplit && kVec ? kDeepSlab : kRegSlab;
  if constexpr (kSplit) let_the_next_launch_start();  // the sum kernel (launch_sgemm_form)
  __shared__ __align__(16) float as[2][S][kRegPitch];
  __shared__ __align__(16) float bs[2][S][kRegPitch];
  Slab<!kTa, kVec, S> sa;  // A(i, q): stored columns along i when N
  Slab<kTb, kVec, S> sb;   // B(q, j) = X(j, q): stored columns along j when T

  const int t = threadIdx.x, row0 = tile_row0(t), col0 = tile_col0(t);
  const std::int64_t tiles_m = (p.m + kRegTile - 1) / kRegTile;
  const std::int64_t tiles = tiles_m * ((p.n + kRegTile - 1) / kRegTile);
  for (std::int64_t item = blockIdx.z; item < p.batch; item += gridDim.z) {
    for (std::int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
      float acc[8][8];
#pragma unroll
      for (int u = 0; u < 8; ++u)
#pragma unroll
        for (int v = 0; v < 8; ++v) acc[u][v] = 0.f;

      const std::int64_t q_begin = kSplit ? blockIdx.y * split.chunk : 0;
      const std::int64_t q_end = kSplit ? min(p.k, q_begin + split.chunk) : p.k;
      sa.begin(p.a.item(item), p.a.ld, (tile % tiles_m) * kRegTile, q_begin, p.m, t);
      sb.begin(p.b.item(item), p.b.ld, (tile / tiles_m) * kRegTile, q_begin, p.n, t);
      sa.load(p.a.ld, q_begin, q_end, t);
      sb.load(p.b.ld, q_begin, q_end, t);
      sa.store(as[0], t);
      sb.store(bs[0], t);
      __syncthreads();
      int buf = 0;
      for (std::int64_t q0 = q_begin; q0 < q_end; q0 += S) {
        const bool more = q0 + S < q_end;
        if (more) {  // in flight while this slab is multiplied
          sa.load(p.a.ld, q0 + S, q_end, t);
          sb.load(p.b.ld, q0 + S, q_end, t);
        }
        multiply_slab<S>(as[buf], bs[buf], row0, col0, acc);
        if (more) {
          sa.store(as[buf ^ 1], t);
          sb.store(bs[buf ^ 1], t);
          __syncthreads();  // the other buffer is full; nobody reads this one any more
          buf ^= 1;
        }
      }
      // Recomputed here rather than held through the k loop (registers).
      const std::int64_t i0 = (tile % tiles_m) * kRegTile, j0 = (tile / tiles_m) * kRegTile;
      store_tile<kSplit, !kVec>(p, split, item, i0, j0, row0, col0, acc, kVec);
      __syncthreads();  // the next tile restages buffer 0
    }
  }
}

// The same tile with asynchronous copies (cp.async) into P stages of S steps of k, in dynamic
// shared memory: P - 1 slabs in flight while one is multiplied, no registers held for them, one
// barrier a slab. An operand whose 16-byte runs lie along k (A in T, B in N) still goes
// through registers (Slab, two buffers): as four 4-byte copies a run it measured 0.6-0.8x.
template <bool kTa, bool kTb, bool kVec, bool kSplit, int S, int P>
__global__ void __launch_bounds__(kThreads, kSgemmMinBlocks)
    sgemm_async_kernel(Args<float> p, Split split) {
  if constexpr (kSplit) let_the_next_launch_start();  // the sum kernel (launch_sgemm_form)
  constexpr bool kAsyncA = !(kVec && kTa), kAsyncB = !(kVec && !kTb);
  static_assert(kAsyncA || kAsyncB, "both operands through registers: sgemm_kernel");
  constexpr int kStagesA = kAsyncA ? P : 2, kStagesB = kAsyncB ? P : 2;
  extern __shared__ __align__(16) float staged[];  // [kStagesA + kStagesB][S][kRegPitch]
  auto a_stage = [&](std::int64_t slab) {
    return reinterpret_cast<float(*)[kRegPitch]>(staged + (slab % kStagesA) * S * kRegPitch);
  };
  auto b_stage = [&](std::int64_t slab) {
    return reinterpret_cast<float(*)[kRegPitch]>(staged +
                                                 (kStagesA + slab % kStagesB) * S * kRegPitch);
  };
  // A(i, q): stored columns along i when N. B(q, j) = X(j, q): stored columns along j when T.
  // Rows past the edge copied (Stager's kLastRow) where it measured faster on an H100: N N (the
  // element kernels 1.036-1.042x at 1023^3 and 2047^3; T N unchanged:
  // bench/results/h100-ab-2026-12-06/README.md, "Which edge"), and N T and T T over whole k
  // (1.045x at 2047^3, 1.012x at T T 2047 x 2048 x 2048: bench/results/h100-ab-2026-12-07/). Their
  // split kernels keep the shipped copies: they were timed only beside a split sum that was
  // dropped, so no run speaks for them.
  constexpr bool kLastRow = (!kTa && !kTb) || (kTb && !kSplit);
  std::conditional_t<kAsyncA, Stager<!kTa, kVec, S, kLastRow>, Slab<!kTa, kVec, S>> sa;
  std::conditional_t<kAsyncB, Stager<kTb, kVec, S, kLastRow>, Slab<kTb, kVec, S>> sb;

  const int t = threadIdx.x, row0 = tile_row0(t), col0 = tile_col0(t);
  const std::int64_t tiles_m = (p.m + kRegTile - 1) / kRegTile;
  const std::int64_t tiles = tiles_m * ((p.n + kRegTile - 1) / kRegTile);
  for (std::int64_t item = blockIdx.z; item < p.batch; item += gridDim.z) {
    for (std::int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
      float acc[8][8];
#pragma unroll
      for (int u = 0; u < 8; ++u)
#pragma unroll
        for (int v = 0; v < 8; ++v) acc[u][v] = 0.f;

      const std::int64_t q_begin = kSplit ? blockIdx.y * split.chunk : 0;
      const std::int64_t q_end = kSplit ? min(p.k, q_begin + split.chunk) : p.k;
      const std::int64_t slabs = (q_end - q_begin + S - 1) / S;
      sa.begin(p.a.item(item), p.a.ld, (tile % tiles_m) * kRegTile, q_begin, p.m, t);
      sb.begin(p.b.item(item), p.b.ld, (tile / tiles_m) * kRegTile, q_begin, p.n, t);
      // The copied operands' first P - 1 slabs in flight, a copy group each (empty past the
      // last slab); a register operand's first slab staged.
#pragma unroll
      for (int slab = 0; slab < P - 1; ++slab) {
        if (slab < slabs) {
          if constexpr (kAsyncA) sa.issue(a_stage(slab), p.a.ld, q_begin + slab * S, q_end, t);
          if constexpr (kAsyncB) sb.issue(b_stage(slab), p.b.ld, q_begin + slab * S, q_end, t);
        }
        commit_copies();
      }
      if constexpr (!kAsyncA) {
        sa.load(p.a.ld, q_begin, q_end, t);
        sa.store(a_stage(0), t);
      }
      if constexpr (!kAsyncB) {
        sb.load(p.b.ld, q_begin, q_end, t);
        sb.store(b_stage(0), t);
      }
      for (std::int64_t slab = 0; slab < slabs; ++slab) {
        wait_copies<P - 2>();  // this thread's copies of this slab have landed
        __syncthreads();       // everyone's have, and nobody still reads the last slab's stage
        const std::int64_t ahead = slab + P - 1;  // into the stage the last slab left
        if (ahead < slabs) {
          if constexpr (kAsyncA) sa.issue(a_stage(ahead), p.a.ld, q_begin + ahead * S, q_end, t);
          if constexpr (kAsyncB) sb.issue(b_stage(ahead), p.b.ld, q_begin + ahead * S, q_end, t);
        }
        commit_copies();
        const bool more = slab + 1 < slabs;
        if (more) {  // a register operand's next slab, in flight while this one is multiplied
          if constexpr (!kAsyncA) sa.load(p.a.ld, q_begin + (slab + 1) * S, q_end, t);
          if constexpr (!kAsyncB) sb.load(p.b.ld, q_begin + (slab + 1) * S, q_end, t);
        }
        multiply_slab<S>(a_stage(slab), b_stage(slab), row0, col0, acc);
        if (more) {  // into the buffer the last slab left (read before this slab's barrier)
          if constexpr (!kAsyncA) sa.store(a_stage(slab + 1), t);
          if constexpr (!kAsyncB) sb.store(b_stage(slab + 1), t);
        }
      }
      const std::int64_t i0 = (tile % tiles_m) * kRegTile, j0 = (tile / tiles_m) * kRegTile;
      // A split's sums go 16 bytes at a time into the workspace's aligned columns (partial_ld),
      // but in N T and T T element by element, where 16 bytes spilled registers (ptxas).
      store_tile<kSplit, !kVec>(p, split, item, i0, j0, row0, col0, acc,
                                kVec || (kSplit && !kTb));
      __syncthreads();  // the next tile refills the first stages
    }
  }
}

// ---- cuda.reg:m=256:n=128:k=8:t=8x16 (f32): the large tile --------------------------------
//
// cuBLAS's own design for large SGEMM on this GPU (a CUTLASS SIMT kernel, profiled:
// bench/results/h100-ab-2026-12-06/README.md). A block of 256 threads computes a 256 x 128 tile
// of C with its whole k, each thread 8 x 16 of it (2 x 4 blocks of 4 x 4): 128 multiply-adds for
// six 16-byte shared loads a k step, where the 128 x 128 tile's 8 x 8 does 64 for four. The eight
// warps split the tile 4 (m) x 2 (n), 64 x 64 each, lanes 8 (m) x 4 (n) as in the 128 x 128
// tile. Both operands are copied asynchronously element by element (4-byte cp.async, whatever
// the form, ld or alignment) into four stages of 8 k: a thread's 12 copies a slab against its
// 1,024 multiply-adds. The copies' lanes run along the operand's stored column, so a warp reads
// consecutive words; an operand whose columns run along k is written into the stage [k][r]
// across eight rows 4 mod 32 words long, so the warp's 32 stores meet each bank once. A slab's
// last k step waits for the next slab, passes the barrier and loads the next slab's first
// fragments before its own multiply-adds, so no warp waits on a shared load at a slab's start;
// the next slab's first step refills the stage the last one left (four slabs in flight). One
// block a multiprocessor (up to 255 registers). Where its tiles leave multiprocessors idle and
// k is long, k is split as the 128 x 128 tile's is (sgemm_big_split: one round of blocks,
// chunks of at least 128), into the same workspace layout and sum kernel; where the tiles are
// fewer still, the 128 x 128 member is the one to run (the table decides by measurement).
constexpr int kBigM = 256, kBigN = 128, kBigSlab = 8, kBigStages = 4;
constexpr int kBigStageB = kBigSlab * (kBigM + 4);  // where B's part of a stage starts
constexpr int kBigStageWords = kBigStageB + kBigSlab * (kBigN + 4);
constexpr std::size_t kBigShared = std::size_t{kBigStages} * kBigStageWords * sizeof(float);

// One operand's share of a slab: R rows (r along m for A, along n for B) by 8 of k, staged as
// xs[q][r] with rows R + 4 long. kRowsRun: the stored columns run along r (A in N, B in T),
// X(r, q) = x[r + q ld], and thread t's copy c takes element e = t + 256 c of the slab at r =
// e % R, q = e / R; else they run along q (A in T, B in N), X(r, q) = x[q + r ld], q = e % 8,
// r = e / 8. Either way copy c is copy 0 moved by c (kDr, kDq): its place in the stage is a
// constant offset from copy 0's, its source a fixed step further. kLastRow: rows past the
// operand's edge copy a row inside it (begin()).
template <bool kRowsRun, int R, bool kLastRow = false>
struct BigStager {
  static constexpr int kCopies = R * kBigSlab / kThreads;
  static constexpr int kPitch = R + 4;
  static constexpr int kDr = kRowsRun ? 0 : kThreads / kBigSlab;
  static constexpr int kDq = kRowsRun ? kThreads / R : 0;
  static constexpr int kDst = kDq * kPitch + kDr;  // from copy c's place to copy c + 1's
  static_assert(kRowsRun ? kThreads % R == 0 : R % kDr == 0, "whole copies");
  const float* next;       // copy 0's element in the next slab
  const float* cur;        // the next copy's element, while a slab is copied in pieces
  std::int64_t step;       // from copy c's element to copy c + 1's
  std::int64_t slab_step;  // from one slab's to the next
  int dst;                 // copy 0's place in a stage
  int q;                   // copy 0's q
  int last;                // kLastRow, runs along q: the thread's last copy inside (later ones
                           // take its source again)
  unsigned inside;         // bit c: copy c's r is inside the operand

  // x: the item; r0: the tile's first r; extent: the operand's along r. With kLastRow, a copy
  // past the edge copies a row inside instead: a row past the edge reaches only rows (A) or
  // columns (B) of the tile's C outside the call, which are never written, so it may hold any
  // value. Where runs lie along r, the thread's copies lie in one row, and a thread past the
  // edge copies row extent - 1; where they lie along q, its copies are kDr rows apart, and
  // those past the edge take the source of its last copy inside (row extent - 1 where none
  // is). Its copies are then all "inside", and an edge tile's whole slabs refill in pieces as
  // the others do.
  __device__ void begin(const float* x, std::int64_t ld, std::int64_t r0, std::int64_t extent,
                        int t) {
    const int r = kRowsRun ? t % R : t / kBigSlab;
    q = kRowsRun ? t / R : t % kBigSlab;
    dst = q * kPitch + r;
    if constexpr (kRowsRun && kLastRow) {
      next = x + (r0 + r < extent ? r0 + r : extent - 1) + q * ld;
      inside = (1u << kCopies) - 1;
    } else if constexpr (kLastRow) {
      const std::int64_t rows_left = extent - 1 - (r0 + r);  // inside after this thread's row
      next = x + q + (rows_left >= 0 ? r0 + r : extent - 1) * ld;
      last = rows_left >= 0 ? static_cast<int>(min(rows_left / kDr, std::int64_t{kCopies - 1}))
                            : 0;
      inside = (1u << kCopies) - 1;
    } else {
      next = kRowsRun ? x + (r0 + r) + q * ld : x + q + (r0 + r) * ld;
      inside = 0;
#pragma unroll
      for (int c = 0; c < kCopies; ++c) {
        if (r0 + r + c * kDr < extent) inside |= 1u << c;
      }
    }
    step = kRowsRun ? kDq * ld : kDr * ld;
    slab_step = kRowsRun ? kBigSlab * ld : kBigSlab;
  }
  // Whether the thread's copies of the slab at q0 all lie inside the operand (k: its extent
  // along q).
  __device__ bool whole(std::int64_t q0, std::int64_t k) const {
    return inside == (1u << kCopies) - 1 && q0 + kBigSlab <= k;
  }
  // A whole slab's copies one at a time, spread over the k steps of the slab before it: start(),
  // copy(xs, c) for c = 0, 1, ... kCopies - 1, then advance(). A burst of twelve copies filled
  // the memory pipe's queue, and the registers they read (addresses the allocator reused right
  // after them) were held until the last of them left it.
  __device__ void start() {
    cur = next;
  }
  __device__ void copy(float* xs, int c) {
    copy_async<4>(xs + dst + c * kDst, cur);
    cur += step_after(c);
  }
  // From copy c's source to copy c + 1's: a step, or none past the thread's last copy inside.
  __device__ std::int64_t step_after(int c) const {
    if constexpr (kLastRow && !kRowsRun) {
      return c < last ? step : 0;
    } else {
      return step;
    }
  }
  __device__ void advance() {
    next += slab_step;
  }

  // Copies the slab at q0 (the one after the last issued) into xs at once and advances; k: the
  // extent along q. Where all of the thread's copies lie inside the operand they go unguarded;
  // elsewhere the elements outside are zeros stored directly.
  __device__ void issue(float* xs, std::int64_t q0, std::int64_t k) {
    float* const d = xs + dst;
    const float* src = next;
    if (whole(q0, k)) {
#pragma unroll
      for (int c = 0; c < kCopies; src += step_after(c), ++c) {
        copy_async<4>(d + c * kDst, src);
      }
    } else {
      const int left = static_cast<int>(min(k - q0, std::int64_t{kBigSlab}));  // q below it
#pragma unroll
      for (int c = 0; c < kCopies; src += step_after(c), ++c) {
        if (((inside >> c) & 1) && q + c * kDq < left) {
          copy_async<4>(d + c * kDst, src);
        } else {
          d[c * kDst] = 0.f;
        }
      }
    }
    advance();
  }
};

// A k step's fragments of the thread's rows and columns from a stage (as, bs; step q).
__device__ __forceinline__ void big_fragments(const float* as, const float* bs, int q, int row0,
                                              int col0, float (&x)[8], float (&y)[16]) {
#pragma unroll
  for (int s = 0; s < 2; ++s) {
    const float4 g = *reinterpret_cast<const float4*>(as + q * (kBigM + 4) + row0 + s * 32);
    x[s * 4] = g.x, x[s * 4 + 1] = g.y, x[s * 4 + 2] = g.z, x[s * 4 + 3] = g.w;
  }
#pragma unroll
  for (int s = 0; s < 4; ++s) {
    const float4 g = *reinterpret_cast<const float4*>(bs + q * (kBigN + 4) + col0 + s * 16);
    y[s * 4] = g.x, y[s * 4 + 1] = g.y, y[s * 4 + 2] = g.z, y[s * 4 + 3] = g.w;
  }
}

// kTa, kTb: op(A), op(B) is the transpose (a real C is folded into T). The whole k, straight
// into C (16 bytes at a time where vec_c: m a multiple of 4, C's base, ld and stride 16-byte
// multiples). kLastA, kLastB: A's, B's copies past the edge copy a row inside instead
// (BigStager::begin's kLastRow; which calls take them: launch_sgemm_big_form).
// With kSplit, chunk blockIdx.y of k (split.chunk long from A's, B's start; p.k its length)
// into the workspace instead (sgemm_big_split_kernel); without it, the code is the whole-k
// kernels' as it was before the split (the same SASS).
template <bool kTa, bool kTb, bool kLastA, bool kLastB, bool kSplit>
__device__ __forceinline__ void big_tiles(const Args<float>& p, bool vec_c, const Split& split) {
  extern __shared__ __align__(16) float staged[];  // [kBigStages][A's 8 x 260, B's 8 x 132]

  BigStager<!kTa, kBigM, kLastA> sa;  // A(i, q): stored columns along i when N
  BigStager<kTb, kBigN, kLastB> sb;   // B(q, j) = X(j, q): stored columns along j when T

  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  // The thread's rows: (warp % 4) 64 + s 32 + (lane % 8) 4 + (0..3), s < 2; its columns:
  // (warp / 4) 64 + s 16 + (lane / 8) 4 + (0..3), s < 4. acc[u][v]: row u / 4, u % 4 of those
  // and column v / 4, v % 4.
  const int row0 = (warp % 4) * 64 + (lane % 8) * 4, col0 = (warp / 4) * 64 + (lane / 8) * 4;
  const std::int64_t tiles_m = (p.m + kBigM - 1) / kBigM;
  const std::int64_t tiles = tiles_m * ((p.n + kBigN - 1) / kBigN);
  const int slabs = static_cast<int>((p.k + kBigSlab - 1) / kBigSlab);  // k < 2^31 (can_run)
  for (std::int64_t item = blockIdx.z; item < p.batch; item += gridDim.z) {
    for (std::int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
      const std::int64_t i0 = (tile % tiles_m) * kBigM, j0 = (tile / tiles_m) * kBigN;
      float acc[8][16];
#pragma unroll
      for (int u = 0; u < 8; ++u)
#pragma unroll
        for (int v = 0; v < 16; ++v) acc[u][v] = 0.f;

      const float* a = p.a.item(item);
      const float* b = p.b.item(item);
      if constexpr (kSplit) {  // from the chunk's first column of A (row when T), row of B
        const std::int64_t first = blockIdx.y * split.chunk;
        a += kTa ? first : first * p.a.ld;
        b += kTb ? first * p.b.ld : first;
      }
      sa.begin(a, p.a.ld, i0, p.m, t);
      sb.begin(b, p.b.ld, j0, p.n, t);
#pragma unroll
      for (int slab = 0; slab < kBigStages; ++slab) {  // a copy group each, empty past k
        if (slab < slabs) {
          sa.issue(staged + slab * kBigStageWords, slab * kBigSlab, p.k);
          sb.issue(staged + slab * kBigStageWords + kBigStageB, slab * kBigSlab, p.k);
        }
        commit_copies();
      }
      wait_copies<kBigStages - 1>();  // slab 0 has landed, for everyone after the barrier
      __syncthreads();
      // Fragments double-buffered in registers: step q + 1's loads before step q's products.
      float x[2][8], y[2][16];
      big_fragments(staged, staged + kBigStageB, 0, row0, col0, x[0], y[0]);
      int stage = 0;        // slab % kBigStages
      bool pieces = false;  // this slab's refill goes in pieces (slab 0 has none)
      for (int slab = 0; slab < slabs; ++slab) {
        const float* as = staged + stage * kBigStageWords;
        const float* bs = as + kBigStageB;
        const int next = stage + 1 == kBigStages ? 0 : stage + 1;
        // The last slab's stage is free since its last barrier: slab + 3 goes there, one copy of
        // A each step and one of B every other step where every thread's copies are all inside
        // the operands (pieces, agreed at the last barrier), else all at once at the first step.
        // One copy group, committed at the last step.
        const int ahead = slab - 1 + kBigStages;
        const bool refill = slab > 0 && ahead < slabs;
        float* const free = staged + (stage == 0 ? kBigStages - 1 : stage - 1) * kBigStageWords;
        static_assert(decltype(sa)::kCopies == kBigSlab && decltype(sb)::kCopies == kBigSlab / 2,
                      "a copy of A a step, one of B every other step");
        // The slab's eight steps, in two copies of the code so that neither tests for pieces.
        auto steps = [&]<bool kPieces>() {
#pragma unroll
          for (int q = 0; q < kBigSlab; ++q) {
            if constexpr (kPieces) {
              if (q == 0) {
                sa.start();
                sb.start();
              }
              sa.copy(free, q);
              if (q % 2 == 0) sb.copy(free + kBigStageB, q / 2);
              if (q + 1 == kBigSlab) {
                sa.advance();
                sb.advance();
              }
            } else if (q == 0 && refill) {
              sa.issue(free, std::int64_t{ahead} * kBigSlab, p.k);
              sb.issue(free + kBigStageB, std::int64_t{ahead} * kBigSlab, p.k);
            }
            if (q + 1 == kBigSlab && slab > 0) commit_copies();
            if (q + 1 < kBigSlab) {
              big_fragments(as, bs, q + 1, row0, col0, x[(q + 1) % 2], y[(q + 1) % 2]);
            } else if (slab + 1 < slabs) {
              wait_copies<kBigStages - 2>();  // slab + 1 has landed (for everyone, after the
              // barrier), and no one reads this slab's stage; whether slab + 1 refills in pieces
              const std::int64_t q_ahead = std::int64_t{ahead + 1} * kBigSlab;
              pieces = __syncthreads_and(ahead + 1 < slabs && sa.whole(q_ahead, p.k) &&
                                         sb.whole(q_ahead, p.k));
              const float* an = staged + next * kBigStageWords;
              big_fragments(an, an + kBigStageB, 0, row0, col0, x[0], y[0]);
            }
#pragma unroll
            for (int u = 0; u < 8; ++u)
#pragma unroll
              for (int v = 0; v < 16; ++v) acc[u][v] = fmaf(x[q % 2][u], y[q % 2][v], acc[u][v]);
          }
        };
        if (pieces) {
          steps.template operator()<true>();
        } else {
          steps.template operator()<false>();
        }
        stage = next;
      }
      store_tile<kSplit, true>(p, split, item, i0, j0, row0, col0, acc, vec_c);
      wait_copies<0>();  // no copy of this tile is still in flight into the stages
      __syncthreads();   // the next tile refills every stage
    }
  }
}

template <bool kTa, bool kTb, bool kLastA, bool kLastB>
__global__ void __launch_bounds__(kThreads, 1) sgemm_big_kernel(Args<float> p, bool vec_c) {
  big_tiles<kTa, kTb, kLastA, kLastB, false>(p, vec_c, Split{1, p.k, nullptr});
}

// A chunk of k a block (sgemm_big_split), the sums into the workspace for split_sum_kernel.
template <bool kTa, bool kTb, bool kLast>
__global__ void __launch_bounds__(kThreads, 1) sgemm_big_split_kernel(Args<float> p, Split split) {
  let_the_next_launch_start();  // the sum kernel (launch_split_sum)
  Args<float> chunk = p;  // k: the block's chunk's length
  chunk.k = min(p.k, (blockIdx.y + 1) * split.chunk) - blockIdx.y * split.chunk;
  big_tiles<kTa, kTb, kLast, kLast, true>(chunk, true, split);
}

// The chunks' sums into C: alpha times them, added in chunk order, plus beta C. A column of an
// item takes 2^shift threads, each 4 rows (16-byte loads of the sums; 16-byte loads and stores
// of C with vec: m a multiple of 4, C's base and ld multiples of 16 bytes), and the grid's x
// takes the column's rows past 4 << shift, so a thread has one run of 4 rows of a column where
// the grid allows (a thread that walked 4096 rows in four passes waited on four rounds of loads
// one after another); no index is divided. A thread's loads go out together before any add: C's
// old values (vec, beta != 0) and kSumGroup chunks' sums, so up to kSumGroup chunks cost one
// round trip to memory (four chunks at a time and C after them took three at 8 chunks), in 64
// registers (four blocks a multiprocessor; 80 uncapped); the adds stay in chunk order, so the
// bits do not change. The kernel is launched as a programmatic dependent of the tile's kernel,
// whose split blocks let it start as they begin: its blocks are resident by the time the last
// chunk ends, where the tiles leave room, and its launch is not paid after them; each waits for
// the tile's kernel to complete before it reads anything. Both steps together (with the counts
// of sgemm_split) measured 1.004-1.09x at the split shapes where the count did not change
// (512^3 1.039, N T 1.087; the 1024^3-sized and thin calls 1.004-1.020), 1.00x elsewhere, the
// same bits (H100; bench/results/h100-ab-2026-12-07/README.md, "Patches 41 and 42").
constexpr int kSumGroup = 8;
__global__ void __launch_bounds__(kThreads, 4)
    split_sum_kernel(Args<float> p, Split split, int shift, bool vec) {
  const std::int64_t item_sums = split.ld * p.n;
  // A chunk's sums are `total` floats apart; all of them lie in the candidates' workspace
  // (kWorkspaceBytes), so the offsets fit in 32 bits.
  const int total = static_cast<int>(item_sums * p.batch);
  const int lane = threadIdx.x & ((1 << shift) - 1), columns = kThreads >> shift;
  const std::int64_t row_step = std::int64_t{4 << shift} * gridDim.x;
  wait_for_the_launch_before();  // the chunks' sums are all written
  for (std::int64_t item = blockIdx.z; item < p.batch; item += gridDim.z) {
    float* c = p.c.item(item);
    const float* part = split.partial + item * item_sums;
    for (std::int64_t j = std::int64_t{blockIdx.y} * columns + (threadIdx.x >> shift); j < p.n;
         j += std::int64_t{gridDim.y} * columns) {
      for (std::int64_t i = 4 * (lane + (std::int64_t{blockIdx.x} << shift)); i < p.m;
           i += row_step) {
        const float* x = part + j * split.ld + i;
        float* cj = c + j * p.c.ld + i;
        float4 old{};
        if (vec && !p.beta_zero) old = *reinterpret_cast<const float4*>(cj);
        float4 y[kSumGroup];
#pragma unroll
        for (int g = 0; g < kSumGroup; ++g) {
          if (g < split.count) y[g] = *reinterpret_cast<const float4*>(x + g * total);
        }
        float4 sum = y[0];
#pragma unroll
        for (int g = 1; g < kSumGroup; ++g) {
          if (g < split.count) sum.x += y[g].x, sum.y += y[g].y, sum.z += y[g].z, sum.w += y[g].w;
        }
        for (int s0 = kSumGroup; s0 < split.count; s0 += kSumGroup) {
#pragma unroll
          for (int g = 0; g < kSumGroup; ++g) {
            if (s0 + g < split.count) y[g] = *reinterpret_cast<const float4*>(x + (s0 + g) * total);
          }
#pragma unroll
          for (int g = 0; g < kSumGroup; ++g) {
            if (s0 + g < split.count) {
              sum.x += y[g].x, sum.y += y[g].y, sum.z += y[g].z, sum.w += y[g].w;
            }
          }
        }
        if (vec) {
          float4 r = make_float4(p.alpha * sum.x, p.alpha * sum.y, p.alpha * sum.z,
                                 p.alpha * sum.w);
          if (!p.beta_zero) {
            r.x = fmaf(p.beta, old.x, r.x);
            r.y = fmaf(p.beta, old.y, r.y);
            r.z = fmaf(p.beta, old.z, r.z);
            r.w = fmaf(p.beta, old.w, r.w);
          }
          *reinterpret_cast<float4*>(cj) = r;
        } else {
          const float sums[4] = {sum.x, sum.y, sum.z, sum.w};
          for (int l = 0; l < 4 && i + l < p.m; ++l) update(cj + l, sums[l], p);
        }
      }
    }
  }
}

// k in `want` chunks, each a multiple of `step` long, or fewer where the sums of so many would
// not fit the candidates' workspace; one chunk (no split) where that leaves fewer than two.
Split chunks_of_k(const Problem& p, std::int64_t want, std::int64_t step) {
  const std::int64_t ld = partial_ld(p.m);
  const std::int64_t bytes_a_chunk = ld * p.n * p.batch * std::int64_t{sizeof(float)};
  const std::int64_t count =
      std::min(want, static_cast<std::int64_t>(kWorkspaceBytes) / bytes_a_chunk);
  if (count < 2) return {1, p.k, nullptr};
  std::int64_t chunk = (p.k + count - 1) / count;
  chunk = (chunk + step - 1) / step * step;
  return {static_cast<int>((p.k + chunk - 1) / chunk), chunk, nullptr, ld};
}

// How many chunks of k a call takes, where its tiles fill less than one round of the GPU's
// blocks (two a multiprocessor): as many as fill the round, each at least 64 long, or, where
// that is more, as many as fill one block a multiprocessor, each at least 32 long; within the
// candidates' workspace. A pure function of the shape and the SM count, so a key always runs
// the same chunks and the bits do not vary from call to call. Chunks of 32 measured 1.14-1.31x
// where they take a call from 16-64 blocks to 108-128 (256^3, 384^3, 512 x 512 x 256,
// 512 x 256 x 512, 256^3 x 4), but 0.88-0.97x where they took it past one block a
// multiprocessor (512^3: 128 -> 256 blocks, the tile's kernel no faster and the sum kernel 6.5
// -> 9.0 us; H100, bench/results/h100-ab-2026-12-07/README.md, "Patches 39 and 40"); with this
// rule, 1.16-1.41x at those five and no other count changed ("Patches 41 and 42").
Split sgemm_split(const Problem& p, int sms) {
  if (p.m < 1 || p.n < 1 || p.k < 1 || p.batch < 1) return {1, p.k, nullptr};
  const std::int64_t blocks =
      ((p.m + kRegTile - 1) / kRegTile) * ((p.n + kRegTile - 1) / kRegTile) * p.batch;
  const std::int64_t two = 2 * std::int64_t{sms} / blocks, one = std::int64_t{sms} / blocks;
  return chunks_of_k(p, std::max(std::min(two, p.k / 64), std::min(one, p.k / 32)), kDeepSlab);
}

// The 256 x 128 tile's chunks of k, where its tiles leave multiprocessors idle (one block a
// multiprocessor): as many as fill one round of blocks, each at least kBigChunk long, within
// the candidates' workspace; the sums as sgemm_split's (Split). A pure function of the shape
// and the SM count, as sgemm_split is.
constexpr std::int64_t kBigChunk = 128;
Split sgemm_big_split(const Problem& p, int sms) {
  if (p.m < 1 || p.n < 1 || p.k < 1 || p.batch < 1) return {1, p.k, nullptr};
  const std::int64_t blocks = ((p.m + kBigM - 1) / kBigM) * ((p.n + kBigN - 1) / kBigN) * p.batch;
  return chunks_of_k(p, std::min(std::int64_t{sms} / blocks, p.k / kBigChunk), kBigSlab);
}

// The most workspace a tile's split asks on any GPU (whatever its SM count): never more than
// the candidates' workspace.
template <Split (*kSplitOf)(const Problem&, int)>
std::size_t split_workspace(const Problem& p) {
  const Split most = kSplitOf(p, 1 << 20);
  return most.count > 1 ? static_cast<std::size_t>(most.count * most.ld * p.n * p.batch) *
                              sizeof(float)
                        : 0;
}

// Whether an operand's items all take 16-byte loads: base, ld and stride multiples of 16
// bytes, its stored columns a multiple of 4 long. Pointer arrays are not looked into.
inline bool runs_of_four(const Operand& o, std::int64_t rows, std::int64_t batch) {
  return !o.array && reinterpret_cast<std::uintptr_t>(o.base) % 16 == 0 && o.ld % 4 == 0 &&
         rows % 4 == 0 && (batch == 1 || o.stride % 4 == 0);
}

// The chunks' sums into C (split_sum_kernel), launched as a programmatic dependent of the tile's
// kernel just launched on `stream`. vec: C takes 16-byte loads and stores.
void launch_split_sum(const Problem& p, const Args<float>& args, const Split& split, bool vec,
                      cudaStream_t stream) {
  int shift = 0;  // 2^shift threads a column: the least that cover m in fours, at most kThreads
  while ((4 << shift) < p.m && (1 << shift) < kThreads) ++shift;
  const std::int64_t columns = kThreads >> shift;
  const std::int64_t runs = std::int64_t{4} << shift;  // rows a block's column covers
  const dim3 sum_grid(grid_dim((p.m + runs - 1) / runs, kGridX),
                      grid_dim((p.n + columns - 1) / columns, kGridYZ), grid_dim(p.batch, kGridYZ));
  check(launch_maybe_dependent(split_sum_kernel, sum_grid, dim3(kThreads), 0, stream, true, args,
                               split, shift, vec),
        "cudaLaunchKernelEx(split_sum_kernel)");
}

template <bool kTa, bool kTb, bool kVec, bool kSplit, int S, int P>
void launch_async(dim3 grid, const Args<float>& args, const Split& split, const CudaExec& exec) {
  constexpr int stages = (kVec && kTa ? 2 : P) + (kVec && !kTb ? 2 : P);
  constexpr std::size_t shared = stages * S * kRegPitch * sizeof(float);
  const auto kernel = sgemm_async_kernel<kTa, kTb, kVec, kSplit, S, P>;
  exec.allow_shared(reinterpret_cast<const void*>(kernel), shared);
  kernel<<<grid, kThreads, shared, exec.cuda_stream()>>>(args, split);
}

// Which kernel a form runs, as measured on the H200 (bench/results/h200/README.md, "The f32
// register tile"): element loads copy asynchronously (1.02-1.10x); with 16-byte runs, N T
// (both operands copied) and T T (B copied) do too (1.04-1.07x), N N with split k (A copied;
// 1.03-1.10x but at 256^3 and 512^3, 0.97x); T N (both through registers) and N N with the
// whole k keep the register kernel (the copied A measured 0.93-1.00x there).
template <bool kTa, bool kTb>
void launch_sgemm_form(const Problem& p, const CudaExec& exec) {
  const std::int64_t tiles = ((p.m + kRegTile - 1) / kRegTile) * ((p.n + kRegTile - 1) / kRegTile);
  Split split = sgemm_split(p, exec.sms());
  const dim3 grid(grid_dim(tiles, kGridX), split.count, grid_dim(p.batch, kGridYZ));
  const bool vec = runs_of_four(p.a, p.rows_a(), p.batch) &&
                   runs_of_four(p.b, p.rows_b(), p.batch) && runs_of_four(p.c, p.m, p.batch);
  const Args<float> args = make_args<float>(p);
  // The chunks' sums live in the workspace from one launch to the next: no other call on this
  // Context may enqueue between them.
  std::unique_lock<std::mutex> hold;
  if (split.count > 1) {
    hold = std::unique_lock<std::mutex>(exec.launch_mutex());
    split.partial = static_cast<float*>(exec.workspace());
  }
  const cudaStream_t stream = exec.cuda_stream();
  if (!vec) {
    split.count > 1 ? launch_async<kTa, kTb, false, true, kDeepSlab, 3>(grid, args, split, exec)
                    : launch_async<kTa, kTb, false, false, kRegSlab, 4>(grid, args, split, exec);
  } else if constexpr (kTa && !kTb) {
    if (split.count > 1) {
      sgemm_kernel<kTa, kTb, true, true><<<grid, kThreads, 0, stream>>>(args, split);
    } else {
      sgemm_kernel<kTa, kTb, true, false><<<grid, kThreads, 0, stream>>>(args, split);
    }
  } else if constexpr (!kTa && !kTb) {
    if (split.count > 1) {
      launch_async<kTa, kTb, true, true, kDeepSlab, 3>(grid, args, split, exec);
    } else {
      sgemm_kernel<kTa, kTb, true, false><<<grid, kThreads, 0, stream>>>(args, split);
    }
  } else if constexpr (!kTa && kTb) {
    split.count > 1 ? launch_async<kTa, kTb, true, true, kDeepSlab, 3>(grid, args, split, exec)
                    : launch_async<kTa, kTb, true, false, kRegSlab, 4>(grid, args, split, exec);
  } else {
    split.count > 1 ? launch_async<kTa, kTb, true, true, kDeepSlab, 3>(grid, args, split, exec)
                    : launch_async<kTa, kTb, true, false, kDeepSlab, 3>(grid, args, split, exec);
  }
  check_launch("sgemm_kernel");
  if (split.count > 1) launch_split_sum(p, args, split, vec, stream);
}

// launch.template operator()<kTa, kTb>() for the call's forms (a real C is T).
template <class Launch>
void by_form(const Problem& p, Launch&& launch) {
  const bool ta = p.ta != Op::N, tb = p.tb != Op::N;
  if (!ta && !tb) return launch.template operator()<false, false>();
  if (!ta && tb) return launch.template operator()<false, true>();
  if (ta && !tb) return launch.template operator()<true, false>();
  launch.template operator()<true, true>();
}

void launch_sgemm(const Problem& p, const CudaExec& exec) {
  by_form(p, [&]<bool kTa, bool kTb>() { launch_sgemm_form<kTa, kTb>(p, exec); });
}

// cuda.reg:m=256:n=128:k=8:t=8x16: every call on the 256 x 128 tile, a block a tile with its
// whole k or a chunk of it (k < 2^31: can_run). Rows past the edge copied (kLastA, kLastB)
// where that measured faster on an H100 (bench/results/h100-ab-2026-12-06/README.md, "Patch
// 30"): for A in N N where A has an edge tile (m off the tile: 1.08-1.11x; 0.95x where it has
// none, as the kernel's schedule changed), both in N T always (1.014x); T T was not faster with
// B's. Where the runs lie along q (B in N, A in T), each operand's where it has an edge tile:
// 1.05-1.17x there, 0.997-1.003x where no tile has an edge
// (bench/results/h100-ab-2026-12-07/README.md).
// 9 kernels of the whole k: N N 4, N T 1, T N 2, T T 2; and 4 of chunks, one a form.
template <bool kTa, bool kTb, bool kLastA, bool kLastB>
void launch_sgemm_big_kernel(const Problem& p, const CudaExec& exec) {
  const auto kernel = sgemm_big_kernel<kTa, kTb, kLastA, kLastB>;
  exec.allow_shared(reinterpret_cast<const void*>(kernel), kBigShared);
  const std::int64_t tiles = ((p.m + kBigM - 1) / kBigM) * ((p.n + kBigN - 1) / kBigN);
  const dim3 grid(grid_dim(tiles, kGridX), 1, grid_dim(p.batch, kGridYZ));
  kernel<<<grid, kThreads, kBigShared, exec.cuda_stream()>>>(make_args<float>(p),
                                                             runs_of_four(p.c, p.m, p.batch));
  check_launch("sgemm_big_kernel");
}

// With split k (sgemm_big_split), one kernel a form: those of a form's calls with no edge (N T's
// only one), then the chunks' sum.
template <bool kTa, bool kTb>
void launch_sgemm_big_form(const Problem& p, const CudaExec& exec) {
  Split split = sgemm_big_split(p, exec.sms());
  if (split.count > 1) {
    // The chunks' sums live in the workspace from one launch to the next: no other call on this
    // Context may enqueue between them.
    const std::lock_guard<std::mutex> hold(exec.launch_mutex());
    split.partial = static_cast<float*>(exec.workspace());
    constexpr bool kLast = !kTa && kTb;
    const auto kernel = sgemm_big_split_kernel<kTa, kTb, kLast>;
    exec.allow_shared(reinterpret_cast<const void*>(kernel), kBigShared);
    const std::int64_t tiles = ((p.m + kBigM - 1) / kBigM) * ((p.n + kBigN - 1) / kBigN);
    const dim3 grid(grid_dim(tiles, kGridX), split.count, grid_dim(p.batch, kGridYZ));
    const Args<float> args = make_args<float>(p);
    kernel<<<grid, kThreads, kBigShared, exec.cuda_stream()>>>(args, split);
    check_launch("sgemm_big_split_kernel");
    launch_split_sum(p, args, split, runs_of_four(p.c, p.m, p.batch), exec.cuda_stream());
    return;
  }
  const bool edge_m = p.m % kBigM != 0, edge_n = p.n % kBigN != 0;
  if constexpr (!kTa && !kTb) {
    if (edge_n) {
      edge_m ? launch_sgemm_big_kernel<kTa, kTb, true, true>(p, exec)
             : launch_sgemm_big_kernel<kTa, kTb, false, true>(p, exec);
    } else {
      edge_m ? launch_sgemm_big_kernel<kTa, kTb, true, false>(p, exec)
             : launch_sgemm_big_kernel<kTa, kTb, false, false>(p, exec);
    }
  } else if constexpr (!kTa && kTb) {
    launch_sgemm_big_kernel<kTa, kTb, true, true>(p, exec);
  } else if constexpr (!kTb) {  // T N
    edge_m || edge_n ? launch_sgemm_big_kernel<kTa, kTb, true, true>(p, exec)
                     : launch_sgemm_big_kernel<kTa, kTb, false, false>(p, exec);
  } else {  // T T
    edge_m ? launch_sgemm_big_kernel<kTa, kTb, true, false>(p, exec)
           : launch_sgemm_big_kernel<kTa, kTb, false, false>(p, exec);
  }
}

void launch_sgemm_big(const Problem& p, const CudaExec& exec) {
  by_form(p, [&]<bool kTa, bool kTb>() { launch_sgemm_big_form<kTa, kTb>(p, exec); });
}

// One family member: its spelling, the scalars it is instantiated for, and its launcher.
class Reg final : public Candidate {
 public:
  using Launcher = void (*)(const Problem&, const CudaExec&);
  using Workspace = std::size_t (*)(const Problem&);
  Reg(std::string spelling, Scalar a, Scalar b, Scalar c, Launcher fa, Launcher fb, Launcher fc,
      Workspace workspace = nullptr, std::int64_t k_below = 0)
      : spelling_(std::move(spelling)),
        scalars_{a, b, c},
        launchers_{fa, fb, fc},
        workspace_(workspace),
        k_below_(k_below) {}
  std::string_view spelling() const override { return spelling_; }
  Provider provider() const override { return Provider::native; }
  Verdict can_run(const Problem& p) const override {
    if (const char* why = uniform_only(p.dtype)) return Verdict::no(why);
    if (!launcher(p.dtype.in)) return Verdict::no("this tile is not instantiated for the scalar");
    if (k_below_ > 0 && p.k >= k_below_) {
      return Verdict::no("k of 2^31 or more: this tile counts its slabs of k in 32 bits");
    }
    return Verdict::yes();
  }
  std::size_t workspace_bytes(const Problem& p) const override {
    return workspace_ && launcher(p.dtype.in) ? workspace_(p) : 0;
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
  Workspace workspace_;
  std::int64_t k_below_;  // k must stay under it (0: any k)
};

}  // namespace

// In an A/B build's patched copy: reg_candidate_ab and wide_candidate_ab, spelled `:ab=1`
// (candidates.hpp).
const Candidate& GEMMROUTE_AB_EXPORT(reg_candidate)() {
  static const Reg instance("cuda.reg:m=128:n=128:k=8:t=8" GEMMROUTE_AB_SPELLING, Scalar::f32,
                            Scalar::f32, Scalar::f32, &launch_sgemm, nullptr, nullptr,
                            &split_workspace<sgemm_split>);
  return instance;
}

const Candidate& GEMMROUTE_AB_EXPORT(reg_big_candidate)() {
  static const Reg instance("cuda.reg:m=256:n=128:k=8:t=8x16" GEMMROUTE_AB_SPELLING, Scalar::f32,
                            Scalar::f32, Scalar::f32, &launch_sgemm_big, nullptr, nullptr,
                            &split_workspace<sgemm_big_split>, std::int64_t{1} << 31);
  return instance;
}

const Candidate& GEMMROUTE_AB_EXPORT(wide_candidate)() {
  static const Reg instance("cuda.wide:m=64:n=64:k=8:t=4" GEMMROUTE_AB_SPELLING, Scalar::f64,
                            Scalar::c32, Scalar::c64, &launch_reg<double, 64, 64, 8, 4>,
                            &launch_reg<Cx<float>, 64, 64, 8, 4>,
                            &launch_reg<Cx<double>, 64, 64, 8, 4>);
  return instance;
}

}  // namespace gemmroute::cuda
