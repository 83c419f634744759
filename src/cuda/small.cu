// cuda.small:s=S:t=T: batches of small matrices, max(m, n, k) <= S, every scalar and form.
// Such batches are memory-bound (a 4 x 4 f32 item is 192 bytes for 128 flops), so the kernel is
// built around moving bytes at full bandwidth, not around the arithmetic:
//
// - A thread block of 256 threads owns as many whole items as its threads cover: each thread
//   computes a T x T register tile of one item's C, so an m x n item takes ceil(m/T) ceil(n/T)
//   threads, and a block takes 256 over that many items (fewer where shared memory runs out).
//   Sizes below S thus pack more items per block instead of idling threads.
// - The block's op(A) and op(B) are staged in shared memory once; every product reads them
//   from there. When an operand is packed (items contiguous, ld == rows), the block's items are
//   one contiguous range of global memory, copied with 16-byte loads (a scalar head up to the
//   first 16-byte boundary, so unaligned and odd-sized ranges are vectorised too). Pointer
//   arrays of items with ld == rows take the same path where the block finds its items back to
//   back (pointer arrays made from a strided batch), or 16-byte vectors item by item where the
//   items all start on 16-byte boundaries; everything else goes element by element, still
//   coalesced along the stored columns, several loads a thread in flight in the grouped
//   kernel. Conjugation is applied while staging.
// - Shared memory holds op(A) as m x k (i fastest) and op(B) as n x k (j fastest), so the
//   compute loop reads both without bank conflicts whatever the form. Where staging transposes
//   (A stored T or C, B stored N), the staged leading dimension is made odd, so the scattered
//   stores do not pile onto one bank either. The grouped launch's f32 kernels stage along k
//   instead (op(A) as k x m, op(B) as k x n), so each k step reads 16-byte runs (products()).
// - With small tiles (T <= 2) each thread fetches its C elements (when beta != 0) before the
//   staging loads, so all of a block's loads are in flight together; C is written straight
//   from registers (consecutive threads hold consecutive rows: coalesced).
//
// Sizes are runtime values up to S; k is a loop count; threads past m or n compute on clamped
// rows and store nothing. Instantiations: one kernel per entry of kConfigs and scalar it lists
// (30 in all); which one runs is the table's business. The grouped launch (cuda.grouped, below)
// adds one kernel per scalar and tile (12).
#include <algorithm>
#include <array>
#include <complex>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/dispatch.hpp"
#include "cuda/candidates.hpp"
#include "cuda/check.hpp"
#include "cuda/exec.hpp"
#include "cuda/kernel.cuh"
#include "cuda/scale.hpp"

namespace gemmroute::cuda {
namespace {

constexpr int kThreads = 256;

// Scalars a configuration is instantiated for (an 8 x 8 tile of c64 would not fit registers).
enum ScalarMask : unsigned { kF32 = 1, kF64 = 2, kC32 = 4, kC64 = 8, kAll = 15 };

// One configuration: the bound on max(m, n, k) and the register tile.
struct SmallConfig {
  int s, t;
  unsigned scalars;
};

constexpr std::array<SmallConfig, 8> kConfigs = {{
    {4, 1, kAll},
    {4, 2, kAll},
    {8, 2, kAll},
    {16, 2, kAll},
    {16, 4, kAll},
    {32, 4, kAll},
    {64, 4, kAll},
    {64, 8, kF32 | kF64},
}};

constexpr unsigned mask_of(Scalar s) {
  return s == Scalar::f32 ? kF32 : s == Scalar::f64 ? kF64 : s == Scalar::c32 ? kC32 : kC64;
}

// Shared memory a block may take for its items; one item may take more, up to the device's
// limit (checked in can_run).
constexpr std::size_t kBlockSharedBytes = 96 * 1024;

// 16 bytes of T, for vector loads.
template <class T>
using Vec = Run<T, kRunLength<T>>;

// One operand's staging: op(X) of the block's items goes into shared memory in the compute
// layout. Element (r, c) of an item as stored (rows x cols) lands at r + c * rows, or, where the
// stored matrix is the transpose of the compute layout (`to_op`), at c + r * ld_s (ld_s odd).
template <class T>
struct Staging {
  const T* base;          // strided items, or null (pointer arrays)
  const T* const* array;  // pointer arrays, or null
  std::int64_t ld, stride;
  std::uint32_t rows, cols;   // as stored
  std::uint32_t ld_s;         // staged leading dimension (op rows, odd where transposing)
  std::uint32_t region;       // staged elements per item: ld_s * k
  Divisor per_item, by_rows;  // rows * cols, rows
  Divisor vecs;               // 16-byte vectors per item, where vec_items
  bool packed;                // items contiguous with ld == rows: one range per block
  bool item_runs;             // pointer arrays of items with ld == rows
  bool vec_items;             // ... a whole number of 16-byte vectors each
  bool conj;
  bool to_op;
  bool dense;       // staged as stored, ld_s == rows: element e of the range at e
  bool by_element;  // never from 16-byte vectors (see staging())
};

// Where stored element (r, c) of an item lands within the item's staged region.
template <class T>
__device__ __forceinline__ std::uint32_t staged_at(const Staging<T>& s, std::uint32_t r,
                                                   std::uint32_t c) {
  return s.to_op ? c + r * s.ld_s : r + c * s.ld_s;
}

// Where element e of the block's range as stored lies: its item, then its column and row there.
struct Position {
  std::uint32_t item, c, r;
};

template <class T>
__device__ __forceinline__ Position position(const Staging<T>& s, std::uint32_t e) {
  const std::uint32_t item = s.per_item.div(e);
  const std::uint32_t local = e - item * s.per_item.d;
  const std::uint32_t c = s.by_rows.div(local);
  return {item, c, local - c * s.by_rows.d};
}

template <class T>
__device__ __forceinline__ void store_staged(T* dst, const Staging<T>& s, std::uint32_t e, T v) {
  // e indexes the block's range as stored: item, then column-major within the item.
  if (s.dense) {
    dst[e] = maybe_conj(v, s.conj);  // region == rows * cols: the layouts agree
    return;
  }
  const Position at = position(s, e);
  dst[at.item * s.region + staged_at(s, at.r, at.c)] = maybe_conj(v, s.conj);
}

// N consecutive stored elements from e on (one 16-byte vector as loaded): the position is
// decoded once and stepped, row by row, into the next column and the next item.
template <class T, int N>
__device__ __forceinline__ void store_staged_run(T* dst, const Staging<T>& s, std::uint32_t e,
                                                 const Run<T, N>& x) {
  if (s.dense) {
#pragma unroll
    for (int l = 0; l < N; ++l) dst[e + l] = maybe_conj(x.v[l], s.conj);
    return;
  }
  auto [item, c, r] = position(s, e);
  std::uint32_t base = item * s.region;
#pragma unroll
  for (int l = 0; l < N; ++l) {
    dst[base + staged_at(s, r, c)] = maybe_conj(x.v[l], s.conj);
    if (++r == s.rows) {
      r = 0;
      if (++c == s.cols) {
        c = 0;
        base += s.region;
      }
    }
  }
}

// How staging and the write of C are done (small_block):
// - kLean: a 16-byte vector's position decoded once and stepped (store_staged_run), a contiguous
//   range that stage_range does not take copied element by element with stepped positions
//   (stage_range_by_element), C written column by column, each column's address formed once.
// - kPerElement: every element's position decoded on its own, C's address formed per element.
// Both give the same bits. kLean issues fewer instructions, and measured faster in the grouped
// launch (f32 and f64, bench --grouped) and in the batch kernel's tiles up to 2 x 2 (f32
// 1.03-1.06x geomean, f64 1.00-1.02x, c32 0.98-1.00x), but
// slower in the batch kernel's 4 x 4 tile at n = 10..24 (f64 16^3: 0.81x; cuda-small shapes,
// 2026-12-04), so the batch kernel keeps kPerElement there and for 8 x 8 (not measured).
enum class Paths { kLean, kPerElement };

template <class T, Paths P, int N>
__device__ __forceinline__ void store_vector(T* dst, const Staging<T>& s, std::uint32_t e,
                                             const Run<T, N>& x) {
  if constexpr (P == Paths::kLean) {
    store_staged_run(dst, s, e, x);
  } else {
#pragma unroll
    for (int l = 0; l < N; ++l) store_staged(dst, s, e + l, x.v[l]);
  }
}

// Copies `total` elements from one contiguous range (the block's items back to back) into shared
// memory: a head of scalars up to the first 16-byte boundary, 16-byte vectors (four a thread in
// flight), a tail of scalars. A start that is not a whole number of elements past a boundary
// (c64 at 8 bytes) copies nothing and returns false.
template <class T, Paths P>
__device__ bool stage_range(T* dst, const Staging<T>& s, const T* src, std::uint32_t total) {
  const std::uint32_t tid = threadIdx.x, nt = blockDim.x;
  constexpr std::uint32_t V = 16 / sizeof(T);
  const auto addr = reinterpret_cast<std::uintptr_t>(src);
  if ((addr % 16) % sizeof(T) != 0) return false;
  const auto phase = static_cast<std::uint32_t>((addr % 16) / sizeof(T));
  const std::uint32_t head = (V - phase) % V;
  const std::uint32_t h = head < total ? head : total;
  for (std::uint32_t e = tid; e < h; e += nt) store_staged(dst, s, e, src[e]);
  const std::uint32_t vecs = (total - h) / V;
  const Vec<T>* vsrc = reinterpret_cast<const Vec<T>*>(src + h);
  for (std::uint32_t w0 = tid; w0 < vecs; w0 += 4 * nt) {
    Vec<T> x[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      if (w0 + u * nt < vecs) x[u] = vsrc[w0 + u * nt];
    }
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const std::uint32_t w = w0 + u * nt;
      if (w >= vecs) break;
      store_vector<T, P>(dst, s, h + w * V, x[u]);
    }
  }
  for (std::uint32_t e = h + vecs * V + tid; e < total; e += nt) store_staged(dst, s, e, src[e]);
  return true;
}

// Copies `total` elements from one contiguous range (the block's items back to back) element by
// element: thread t takes elements t, t + nt, ... (each load coalesced across the warp), IN_FLIGHT
// loads a thread in flight. Each thread's position (item, column, row) is decoded once and then
// stepped by nt with carries, not divided again per element.
template <class T, int IN_FLIGHT>
__device__ void stage_range_by_element(T* dst, const Staging<T>& s, const T* src,
                                       std::uint32_t total) {
  const std::uint32_t tid = threadIdx.x, nt = blockDim.x;
  const std::uint32_t rows = s.rows, cols = s.cols;
  auto [item, c, r] = position(s, tid);
  const Position step = position(s, nt);
  for (std::uint32_t e0 = tid; e0 < total; e0 += IN_FLIGHT * nt) {
    T v[IN_FLIGHT];
    std::uint32_t at[IN_FLIGHT];
#pragma unroll
    for (int u = 0; u < IN_FLIGHT; ++u) {
      const std::uint32_t e = e0 + u * nt;
      if (e >= total) break;
      v[u] = src[e];
      at[u] = s.dense ? e : item * s.region + staged_at(s, r, c);
      r += step.r;
      c += step.c;
      item += step.item;
      if (r >= rows) {
        r -= rows;
        ++c;
      }
      if (c >= cols) {
        c -= cols;
        ++item;
      }
    }
#pragma unroll
    for (int u = 0; u < IN_FLIGHT; ++u) {
      if (e0 + u * nt >= total) break;
      dst[at[u]] = maybe_conj(v[u], s.conj);
    }
  }
}

// What one thread finds of a pointer-array operand's items before the block decides how to copy
// them (plan()): whether its item's successor starts right after it, and whether its item starts
// on a 16-byte boundary. Each thread checks one item (items <= threads).
struct Peek {
  bool next = true, aligned = true;
};

template <class T>
__device__ __forceinline__ Peek peek(const Staging<T>& s, std::int64_t item0, int items) {
  Peek k;
  const std::uint32_t tid = threadIdx.x;
  if (!s.item_runs || tid >= static_cast<std::uint32_t>(items)) return k;
  const T* const* ptrs = s.array + item0;
  const T* const mine = ptrs[tid];
  k.aligned = reinterpret_cast<std::uintptr_t>(mine) % 16 == 0;
  if (tid + 1 < static_cast<std::uint32_t>(items)) k.next = ptrs[tid + 1] == mine + s.per_item.d;
  return k;
}

// How the block copies one operand's items (stage()): from one contiguous range where the items
// are back to back (packed batches, and pointer arrays of items with ld == rows whose pointers
// the block finds one item apart, as pointer arrays made from a strided batch are); else in
// 16-byte vectors item by item (pointer arrays of such items that are a whole number of vectors
// each and all start on 16-byte boundaries: separately allocated items); else element by
// element. The block decides together (barriers), so every branch is taken by the whole block.
template <class T>
struct Plan {
  const T* range;
  bool vectors;
};

template <class T>
__device__ __forceinline__ Plan<T> plan(const Staging<T>& s, const Peek& k, std::int64_t item0) {
  Plan<T> out{s.packed ? s.base + item0 * s.stride : nullptr, false};
  if (s.item_runs) {
    if (__syncthreads_and(k.next)) {
      out.range = s.array[item0];
    } else if (!s.by_element) {
      out.vectors = __syncthreads_and(k.aligned && s.vec_items) != 0;
    }
  }
  return out;
}

// Asks L2 for the lines of a range the block copies later, so that they travel while the block
// copies the other operand. Each address asked is one of the range's own (the first line by
// the range's start), never a byte before it. (Nothing to ask where tests/emulate runs this on
// the host.)
template <class T>
__device__ __forceinline__ void prefetch_range(const T* range, std::uint32_t total) {
#ifdef __CUDA_ARCH__
  const auto start = reinterpret_cast<std::uintptr_t>(range);
  const auto first = start / 128;
  const auto last = (reinterpret_cast<std::uintptr_t>(range + total) - 1) / 128;
  for (std::uintptr_t line = first + threadIdx.x; line <= last; line += blockDim.x) {
    const std::uintptr_t at = line == first ? start : line * 128;
    asm volatile("prefetch.global.L2 [%0];" ::"l"(at));
  }
#else
  (void)range;
  (void)total;
#endif
}

// Copies the block's `items` items of one operand into shared memory as `how` says (plan()); a
// range stage_range does not take (c64 at 8 bytes past a boundary, or `by_element`) goes
// element by element.
template <class T, int IN_FLIGHT, Paths P>
__device__ void stage(T* dst, const Staging<T>& s, const Plan<T>& how, std::int64_t item0,
                      int items) {
  const std::uint32_t per = s.per_item.d;
  const std::uint32_t total = per * static_cast<std::uint32_t>(items);
  const std::uint32_t tid = threadIdx.x, nt = blockDim.x;
  const T* const range = how.range;
  if constexpr (P == Paths::kLean) {
    if (range) {
      if (!s.by_element && stage_range<T, P>(dst, s, range, total)) return;
      stage_range_by_element<T, IN_FLIGHT>(dst, s, range, total);
      return;
    }
  } else {
    if (range && stage_range<T, P>(dst, s, range, total)) return;
  }
  if (how.vectors) {
    const T* const* ptrs = s.array + item0;
    constexpr std::uint32_t V = 16 / sizeof(T);
    const std::uint32_t vecs = s.vecs.d * static_cast<std::uint32_t>(items);
    for (std::uint32_t w0 = tid; w0 < vecs; w0 += IN_FLIGHT * nt) {
      Vec<T> x[IN_FLIGHT];
      std::uint32_t at[IN_FLIGHT];
#pragma unroll
      for (int u = 0; u < IN_FLIGHT; ++u) {
        const std::uint32_t w = w0 + u * nt;
        if (w >= vecs) break;
        const std::uint32_t item = s.vecs.div(w);
        const std::uint32_t local = w - item * s.vecs.d;
        x[u] = reinterpret_cast<const Vec<T>*>(ptrs[item])[local];
        at[u] = item * per + local * V;
      }
#pragma unroll
      for (int u = 0; u < IN_FLIGHT; ++u) {
        if (w0 + u * nt >= vecs) break;
        store_vector<T, P>(dst, s, at[u], x[u]);
      }
    }
    return;
  }
  // Element by element: item, then column-major within the item; coalesced along columns. The
  // position is decoded once, for the load and the store. IN_FLIGHT elements a thread are
  // loaded before any is stored (their item pointers, then the elements), so that each thread
  // has that many loads in flight. The grouped kernel, whose items are mostly pointer arrays,
  // takes 4; the batch kernel 1, since more registers for this path would cost the packed
  // batches it mostly runs their occupancy (64 -> 108 registers for f32 s=16:t=2).
  for (std::uint32_t e0 = tid; e0 < total; e0 += IN_FLIGHT * nt) {
    T v[IN_FLIGHT];
    std::uint32_t at[IN_FLIGHT];
#pragma unroll
    for (int u = 0; u < IN_FLIGHT; ++u) {
      const std::uint32_t e = e0 + u * nt;
      if (e >= total) break;
      const auto [item, c, r] = position(s, e);
      const T* x = s.array ? s.array[item0 + item] : s.base + (item0 + item) * s.stride;
      v[u] = x[r + static_cast<std::int64_t>(c) * s.ld];
      at[u] = s.dense ? e : item * s.region + staged_at(s, r, c);
    }
#pragma unroll
    for (int u = 0; u < IN_FLIGHT; ++u) {
      if (e0 + u * nt >= total) break;
      dst[at[u]] = maybe_conj(v[u], s.conj);
    }
  }
}

template <class T>
struct SmallArgs {
  Args<T> p;
  Staging<T> a, b;
  int items;           // per block
  int side_i, side_j;  // threads per item along i and j: ceil(m / T), ceil(n / T)
};

// Two blocks per multiprocessor at least (128 registers a thread) where the tile allows it;
// up to 2 x 2 tiles, four for f32 (64 registers) and three for c32 (85), the occupancy these
// kernels had before pointer arrays got their own staging paths (none spills).
template <class T, int TILE>
constexpr int kMinBlocks = TILE <= 2 && std::is_same_v<T, float>       ? 4
                           : TILE <= 2 && std::is_same_v<T, Cx<float>> ? 3
                           : TILE <= 4 && sizeof(T) <= 8               ? 2
                                                                       : 1;

// How the staged operands are laid out (products()): by rows of op(A) and columns of op(B)
// (kByRows, the batch kernel), or along k (kAlongK, the grouped launch).
enum class Layout { kByRows, kAlongK };

// One thread's T x T products over k, the staged operands read in the layout L names:
// - kByRows: op(A) as i + q * lda_s, op(B) as j + q * ldb_s. Each k step reads 2T scalars
//   whose addresses each advance by a runtime stride (an address add per load).
// - kAlongK: op(A) as q + i * lda_s, op(B) as q + j * ldb_s, k consecutive. V consecutive k
//   of a row of op(A) (lda_s a multiple of V) are one 16-byte load, and of a column of op(B)
//   where ldb_s is a multiple of V too (else V scalar loads at fixed offsets); a k step costs
//   2T / V loads and no address arithmetic of its own.
// Either way each element of C is the same multiply-adds in the same order (q ascending).
template <class T, int TILE, Layout L>
__device__ __forceinline__ void products(const T* a, const T* b, const int (&ia)[TILE],
                                         const int (&jb)[TILE], int lda_s, int ldb_s, int k,
                                         T (&acc)[TILE][TILE]) {
  if constexpr (L == Layout::kByRows) {
#pragma unroll 4
    for (int q = 0; q < k; ++q) {
      T x[TILE], y[TILE];
#pragma unroll
      for (int u = 0; u < TILE; ++u) x[u] = a[ia[u] + q * lda_s];
#pragma unroll
      for (int v = 0; v < TILE; ++v) y[v] = b[jb[v] + q * ldb_s];
#pragma unroll
      for (int u = 0; u < TILE; ++u)
#pragma unroll
        for (int v = 0; v < TILE; ++v) acc[u][v] = Ops<T>::fma(x[u], y[v], acc[u][v]);
    }
  } else {
    constexpr int V = kRunLength<T>;
    // Each row's and column's next k: the pointers step along k themselves, so a k step's loads
    // take their addresses as they are, no index added per load (f32's 4 x 4 loop: 93 -> 84
    // instructions per 64 multiply-adds where ldb_s is a multiple of V). A's V k steps are held,
    // B's a column at a time (registers).
    const T* pa[TILE];
    const T* pb[TILE];
#pragma unroll
    for (int u = 0; u < TILE; ++u) {
      pa[u] = a + ia[u] * lda_s;
      pb[u] = b + jb[u] * ldb_s;
    }
    int left = k;
    if (ldb_s % V == 0) {
      for (; left >= V; left -= V) {
        Run<T, V> x[TILE];
#pragma unroll
        for (int u = 0; u < TILE; ++u) {
          x[u] = *reinterpret_cast<const Run<T, V>*>(pa[u]);
          pa[u] += V;
        }
#pragma unroll
        for (int v = 0; v < TILE; ++v) {
          const Run<T, V> y = *reinterpret_cast<const Run<T, V>*>(pb[v]);
          pb[v] += V;
#pragma unroll
          for (int w = 0; w < V; ++w)
#pragma unroll
            for (int u = 0; u < TILE; ++u) acc[u][v] = Ops<T>::fma(x[u].v[w], y.v[w], acc[u][v]);
        }
      }
    } else {
      for (; left >= V; left -= V) {
        Run<T, V> x[TILE];
#pragma unroll
        for (int u = 0; u < TILE; ++u) {
          x[u] = *reinterpret_cast<const Run<T, V>*>(pa[u]);
          pa[u] += V;
        }
#pragma unroll
        for (int v = 0; v < TILE; ++v) {
#pragma unroll
          for (int w = 0; w < V; ++w) {
            const T y = pb[v][w];
#pragma unroll
            for (int u = 0; u < TILE; ++u) acc[u][v] = Ops<T>::fma(x[u].v[w], y, acc[u][v]);
          }
        }
#pragma unroll
        for (int v = 0; v < TILE; ++v) pb[v] += V;
      }
    }
    for (; left > 0; --left) {
#pragma unroll
      for (int u = 0; u < TILE; ++u)
#pragma unroll
        for (int v = 0; v < TILE; ++v) acc[u][v] = Ops<T>::fma(*pa[u], *pb[v], acc[u][v]);
#pragma unroll
      for (int u = 0; u < TILE; ++u) {
        ++pa[u];
        ++pb[u];
      }
    }
  }
}

// One block's work: the `items` items from item0 on (fewer at the batch's end), staged, multiplied
// and written. Shared by the batch kernel and the grouped one, so both give the same bits.
// OVERLAP: both operands' item pointers are read before either is copied and B's range is asked
// of L2 while A is copied (the batch kernel: 1.01-1.09x on an H100); the grouped launch copies
// one operand after the other (with the overlap its f64 calls of 10^4 items were 2-3.5% slower).
template <class T, int TILE, int IN_FLIGHT, Layout L, Paths P, bool OVERLAP>
__device__ __forceinline__ void small_block(const SmallArgs<T>& args, T* const as,
                                            std::int64_t item0) {
  const Args<T>& p = args.p;
  const Staging<T>& sa = args.a;
  const Staging<T>& sb = args.b;
  T* const bs = as + static_cast<std::size_t>(args.items) * sa.region;
  const int m = static_cast<int>(p.m), n = static_cast<int>(p.n), k = static_cast<int>(p.k);
  const int per = args.side_i * args.side_j;  // threads per item
  const int slot = static_cast<int>(threadIdx.x) / per;
  const int ti = (static_cast<int>(threadIdx.x) % per) % args.side_i;
  const int tj = (static_cast<int>(threadIdx.x) % per) / args.side_i;
  constexpr bool kPrefetchC = TILE <= 2;

  const int items = static_cast<int>(p.batch - item0 < args.items ? p.batch - item0 : args.items);
  const bool mine = slot < items;
  T* const c = mine ? p.c.item(item0 + slot) : nullptr;
  T cprev[TILE][TILE];
  if constexpr (kPrefetchC) {
    if (mine && !p.beta_zero) {
#pragma unroll
      for (int v = 0; v < TILE; ++v) {
#pragma unroll
        for (int u = 0; u < TILE; ++u) {
          const int i = ti + u * args.side_i, j = tj + v * args.side_j;
          cprev[u][v] =
              (i < m && j < n) ? c[i + static_cast<std::int64_t>(j) * p.c.ld] : Ops<T>::zero();
        }
      }
    }
  }
  if constexpr (OVERLAP) {
    // Both operands' pointers are read before either is copied, and B's range is asked of L2
    // while A is copied, so a block waits for one chain of loads, not for A's then B's.
    const Peek peek_a = peek(sa, item0, items);
    const Peek peek_b = peek(sb, item0, items);
    const Plan<T> plan_a = plan(sa, peek_a, item0);
    const Plan<T> plan_b = plan(sb, peek_b, item0);
    if (plan_b.range) {
      prefetch_range(plan_b.range, sb.per_item.d * static_cast<std::uint32_t>(items));
    }
    stage<T, IN_FLIGHT, P>(as, sa, plan_a, item0, items);
    stage<T, IN_FLIGHT, P>(bs, sb, plan_b, item0, items);
  } else {
    stage<T, IN_FLIGHT, P>(as, sa, plan(sa, peek(sa, item0, items), item0), item0, items);
    stage<T, IN_FLIGHT, P>(bs, sb, plan(sb, peek(sb, item0, items), item0), item0, items);
  }
  __syncthreads();
  if (!mine) return;
  int ia[TILE], jb[TILE];
#pragma unroll
  for (int u = 0; u < TILE; ++u) {
    const int i = ti + u * args.side_i, j = tj + u * args.side_j;
    ia[u] = i < m ? i : m - 1;  // clamped: reads stay inside the item
    jb[u] = j < n ? j : n - 1;
  }
  T acc[TILE][TILE];
#pragma unroll
  for (int u = 0; u < TILE; ++u)
#pragma unroll
    for (int v = 0; v < TILE; ++v) acc[u][v] = Ops<T>::zero();
  products<T, TILE, L>(as + slot * sa.region, bs + slot * sb.region, ia, jb,
                       static_cast<int>(sa.ld_s), static_cast<int>(sb.ld_s), k, acc);
  if constexpr (P == Paths::kPerElement) {
#pragma unroll
    for (int v = 0; v < TILE; ++v) {
      const int j = tj + v * args.side_j;
      if (j >= n) continue;
#pragma unroll
      for (int u = 0; u < TILE; ++u) {
        const int i = ti + u * args.side_i;
        if (i >= m) continue;
        T* out = c + i + static_cast<std::int64_t>(j) * p.c.ld;
        const T ab = Ops<T>::mul(p.alpha, acc[u][v]);
        if (p.beta_zero) {
          *out = ab;
        } else if constexpr (kPrefetchC) {
          *out = Ops<T>::fma(p.beta, cprev[u][v], ab);
        } else {
          *out = Ops<T>::fma(p.beta, *out, ab);
        }
      }
    }
    return;
  }
  // The tile's rows and columns of C that exist; a column's address is formed once.
  const T alpha = p.alpha;
  const std::int64_t ldc = p.c.ld;
  bool row[TILE];
#pragma unroll
  for (int u = 0; u < TILE; ++u) row[u] = ti + u * args.side_i < m;
  if (p.beta_zero) {
#pragma unroll
    for (int v = 0; v < TILE; ++v) {
      const int j = tj + v * args.side_j;
      if (j >= n) break;
      T* const col = c + j * ldc + ti;
#pragma unroll
      for (int u = 0; u < TILE; ++u) {
        if (row[u]) col[u * args.side_i] = Ops<T>::mul(alpha, acc[u][v]);
      }
    }
    return;
  }
  const T beta = p.beta;
#pragma unroll
  for (int v = 0; v < TILE; ++v) {
    const int j = tj + v * args.side_j;
    if (j >= n) break;
    T* const col = c + j * ldc + ti;
#pragma unroll
    for (int u = 0; u < TILE; ++u) {
      if (!row[u]) continue;
      T* const out = col + u * args.side_i;
      const T ab = Ops<T>::mul(alpha, acc[u][v]);
      if constexpr (kPrefetchC) {
        *out = Ops<T>::fma(beta, cprev[u][v], ab);
      } else {
        *out = Ops<T>::fma(beta, *out, ab);
      }
    }
  }
}

template <class T, int S, int TILE>
__global__ void __launch_bounds__(kThreads, kMinBlocks<T, TILE>) small_kernel(SmallArgs<T> args) {
  extern __shared__ unsigned char smem_raw[];
  T* const as = reinterpret_cast<T*>(smem_raw);
  const std::int64_t groups = (args.p.batch + args.items - 1) / args.items;
  constexpr Paths kPaths = TILE <= 2 ? Paths::kLean : Paths::kPerElement;
  for (std::int64_t g = blockIdx.x; g < groups; g += gridDim.x) {
    small_block<T, TILE, 1, Layout::kByRows, kPaths, true>(args, as, g * args.items);
    __syncthreads();  // the next group overwrites the staged operands
  }
}

// The least multiple of V whose quotient by V is odd, at least k: rows of that many elements
// start on 16-byte boundaries, and eight consecutive rows' 16-byte loads meet no bank twice.
inline std::uint32_t along_k_ld(std::int64_t k, std::uint32_t v) {
  const auto units = static_cast<std::uint32_t>((k + v - 1) / v);
  return v * (units | 1);
}

// One operand's staged shape: whether staging transposes it, its staged leading dimension and
// its elements per item (as staging() below). No divisions: packing() asks for it per group and
// call.
struct StagedShape {
  bool transpose;
  std::uint32_t ld_s, region;
};

template <class T>
StagedShape staged_shape(bool op_first, std::int64_t op_rows, std::int64_t k, Layout layout,
                         bool is_a) {
  constexpr std::uint32_t V = 16 / sizeof(T);
  StagedShape out{};
  if (layout == Layout::kAlongK) {
    out.transpose = op_first;
    out.ld_s = out.transpose || is_a ? along_k_ld(k, V) : static_cast<std::uint32_t>(k);
    out.region = out.ld_s * static_cast<std::uint32_t>(op_rows);
  } else {
    out.transpose = !op_first;
    out.ld_s = static_cast<std::uint32_t>(out.transpose ? op_rows | 1 : op_rows);
    out.region = out.ld_s * static_cast<std::uint32_t>(k);
  }
  return out;
}

// One operand's staging. op_rows is m for A, n for B; `op_first`: the operand's stored rows
// run along op_rows (A stored N, B stored T or C).
// - kByRows: op(X) staged as r + q * ld_s (r along op_rows): as stored where op_first (ld_s =
//   op_rows), else transposed with an odd ld_s, so the scattered stores do not pile onto one bank.
// - kAlongK: op(X) staged as q + r * ld_s: as stored where !op_first, with ld_s = k for B (its
//   loads are mostly broadcasts) and along_k_ld for A (rows read side by side), else
//   transposed with along_k_ld. Transposing stores from 16-byte vectors meet 16-way bank
//   conflicts at that ld_s (a thread's four elements are four rows, all on one bank group);
//   `by_element` stages a transposed operand element by element instead (4-way, as kByRows's
//   vectors), where the launch finds that cheaper (launch_fused_tile).
template <class T>
Staging<T> staging(const Operand& o, std::int64_t rows, std::int64_t cols, Op op, bool op_first,
                   std::int64_t op_rows, std::int64_t k, std::int64_t batch, Layout layout,
                   bool is_a, bool by_element) {
  const auto r = static_cast<std::uint32_t>(rows), c = static_cast<std::uint32_t>(cols);
  constexpr std::uint32_t V = 16 / sizeof(T);
  const auto [transpose, ld_s, region] = staged_shape<T>(op_first, op_rows, k, layout, is_a);
  const bool item_runs = o.array && o.ld == rows;
  const bool vec_items = item_runs && (r * c) % V == 0;
  return Staging<T>{static_cast<const T*>(o.base),
                    reinterpret_cast<const T* const*>(o.array),
                    o.ld,
                    o.stride,
                    r,
                    c,
                    ld_s,
                    region,
                    Divisor::of(r * c),
                    Divisor::of(r),
                    Divisor::of(vec_items ? r * c / V : 1),
                    packed(o, rows, cols, batch),  // any element-aligned start: staged as read
                    item_runs,
                    vec_items,
                    op == Op::C,
                    transpose,
                    !transpose && ld_s == r,
                    by_element && transpose};
}

template <class T>
Staging<T> staging_a(const Problem& p, Layout layout, bool by_element = false) {
  return staging<T>(p.a, p.rows_a(), p.cols_a(), p.ta, p.ta == Op::N, p.m, p.k, p.batch, layout,
                    true, by_element);
}

template <class T>
Staging<T> staging_b(const Problem& p, Layout layout, bool by_element = false) {
  return staging<T>(p.b, p.rows_b(), p.cols_b(), p.tb, p.tb != Op::N, p.n, p.k, p.batch, layout,
                    false, by_element);
}

// How a launch packs items: threads per item along each side, items per block, shared bytes.
struct Packing {
  int side_i, side_j, items;
  std::size_t shared;
};

template <class T>
Packing packing(const Problem& p, int tile, Layout layout) {
  Packing k{};
  k.side_i = static_cast<int>((p.m + tile - 1) / tile);
  k.side_j = static_cast<int>((p.n + tile - 1) / tile);
  // kByRows reserves odd leading dimensions for both operands, whichever is transposed.
  const std::size_t region =
      (layout == Layout::kByRows
           ? (static_cast<std::size_t>(p.m | 1) + (p.n | 1)) * p.k
           : static_cast<std::size_t>(
                 staged_shape<T>(p.ta == Op::N, p.m, p.k, layout, true).region) +
                 staged_shape<T>(p.tb != Op::N, p.n, p.k, layout, false).region) *
      sizeof(T);
  std::size_t items = kThreads / (k.side_i * k.side_j);
  const std::size_t fit = region ? kBlockSharedBytes / region : items;
  if (items > fit) items = fit > 0 ? fit : 1;
  if (items > static_cast<std::size_t>(p.batch)) items = static_cast<std::size_t>(p.batch);
  k.items = static_cast<int>(items);
  k.shared = items * region;
  return k;
}

// The kernels' arguments for p packed as pk, staged in `layout` (the batch kernel's: by rows;
// tests/emulate runs the kernels with them on the host).
template <class T>
SmallArgs<T> small_args(const Problem& p, const Packing& pk, Layout layout = Layout::kByRows,
                        bool by_element = false) {
  return {make_args<T>(p),
          staging_a<T>(p, layout, by_element),
          staging_b<T>(p, layout, by_element),
          pk.items,
          pk.side_i,
          pk.side_j};
}

template <class T, int S, int TILE>
void launch_small(const Problem& p, const CudaExec& exec) {
  const Packing pk = packing<T>(p, TILE, Layout::kByRows);
  const SmallArgs<T> args = small_args<T>(p, pk);
  auto kernel = small_kernel<T, S, TILE>;
  exec.allow_shared(reinterpret_cast<const void*>(kernel), pk.shared);
  const std::int64_t groups = (p.batch + pk.items - 1) / pk.items;
  kernel<<<grid_dim(groups, kGridX), kThreads, pk.shared, exec.cuda_stream()>>>(args);
  check_launch("small_kernel");
}

// cuda.grouped: the small groups of a grouped call in few launches. The groups' arguments travel
// as kernel parameters (a table of up to kFusedGroups groups, so nothing is copied or allocated
// for them); each block finds its group by the first block of every group and runs that
// group's items exactly as small_kernel would: results are bit for bit those of the cuda.small
// family, whatever the tile. Groups are split by size class, one kernel per register tile, so a
// launch of 1 x 1 tiles is not held to the registers (and occupancy) of the 4 x 4 one; a call's
// launches are chained (let_the_next_launch_start, kernel.cuh). One kernel per scalar and tile (12).
constexpr int kFusedGroups = 64;

// How the grouped launch stages its operands (staging()): along k for f32, so its k steps
// read 16-byte runs (bench/results/h200/README.md, "Grouped batches": 88 M -> 75 M instructions
// for the f32 uniform mix's 4 x 4 launch at 10^4 items). f64 stays by rows: its 4 x 4 tile
// spills in the loop at three blocks a multiprocessor with A's runs in registers. c32 and c64
// stay by rows until a complex grouped workload measures the change (bench --grouped has none).
template <class T>
constexpr Layout kGroupedLayout = std::is_same_v<T, float> ? Layout::kAlongK : Layout::kByRows;

template <class T>
struct FusedTable {
  SmallArgs<T> group[kFusedGroups];
  std::uint32_t first_block[kFusedGroups];  // ascending; group g owns blocks up to the next
  int count;
};

// Blocks a multiprocessor holds at least: for the real scalars four (64 registers a thread), but
// three (80) for f64's 4 x 4 tile; the complex ones as the batch kernel (c32 spills at four).
// The grouped launch's staging waits on loads (ncu: L1TEX the first stall reason, 1.5 eligible
// warps a scheduler), so more warps hide more of it. None spills in its loop (f32's 2 x 2 tile
// keeps two registers in local memory across its loops); f32's 4 x 4 at three blocks (80
// registers, its k steps' loads all issued ahead) measured 8% slower, 2026-12-04.
template <class T, int TILE>
constexpr int kGroupedMinBlocks = std::is_same_v<T, float> ||
                                          (std::is_same_v<T, double> && TILE <= 2)
                                      ? 4
                                  : std::is_same_v<T, double> ? 3
                                                              : kMinBlocks<T, TILE>;

// Kernel parameters may take 32,764 bytes on sm_70 and later.
constexpr std::size_t kMaxParameterBytes = 32764;

// The launches of one grouped call are chained by programmatic dependent launch (sm_90): each
// block lets the call's next launch start at once, so that launch's blocks fill the
// multiprocessors this one's last wave leaves idle (their groups are other groups: nothing one
// launch writes is read by another). One block of each launch, its last, waits after its work
// for the launch before its own to complete and flush: a launch cannot complete before that
// block does, so it completes only after every launch before it, and whatever follows in the
// stream sees all of the call's C. The other blocks exit as soon as their items are written,
// so a launch's early blocks do not hold the multiprocessors its later blocks need while the
// launch before runs its last wave (every block waiting: f32 small80 at 10^4 items 48.5-59.7 us
// a call; one: 45.9-46.8 us). Both (kernel.cuh) are no-ops in a launch that was not made
// dependent (the call's first).

template <class T, int TILE>
__global__ void __launch_bounds__(kThreads, kGroupedMinBlocks<T, TILE>)
    grouped_kernel(const __grid_constant__ FusedTable<T> table) {
  let_the_next_launch_start();
  extern __shared__ unsigned char smem_raw[];
  T* const as = reinterpret_cast<T*>(smem_raw);
  const std::uint32_t block = blockIdx.x;
  int lo = 0, hi = table.count - 1;  // the last group whose first block is at or before this one
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (table.first_block[mid] <= block) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  const SmallArgs<T>& args = table.group[lo];
  const std::int64_t item0 = static_cast<std::int64_t>(block - table.first_block[lo]) * args.items;
  small_block<T, TILE, 4, kGroupedLayout<T>, Paths::kLean, false>(args, as, item0);
  if (block == gridDim.x - 1) wait_for_the_launch_before();
}

// The register tile a group runs with in the grouped launch, by its size class: one element of
// C a thread up to 4, 2 x 2 up to 16, 4 x 4 beyond.
int fused_tile(const Problem& p) {
  const std::int64_t s = std::max(p.m, p.n);
  return s <= 4 ? 1 : s <= 16 ? 2 : 4;
}

// One grouped launch: its table of groups, its blocks and its shared bytes a block.
template <class T>
struct FusedLaunch {
  FusedTable<T> table;
  std::int64_t blocks;
  std::size_t shared;
};

// The launches of one tile's groups, each handed to `launch_one` as it is built (one table on the
// stack, as the call path had it): one per kFusedGroups groups (or fewer, where a launch's blocks
// would pass the grid's limit). Groups go largest block first, so the blocks that take longest
// start first and the launch ends with small ones. (tests/emulate runs grouped_kernel with these
// on the host.)
template <class T, int TILE, class Launch>
void fused_launches(std::vector<const Problem*> groups, Launch&& launch_one) {
  // Each group's work a block, computed once (not at every comparison of the sort).
  std::vector<std::pair<double, const Problem*>> by_work;
  by_work.reserve(groups.size());
  for (const Problem* p : groups) {
    const Packing pk = packing<T>(*p, TILE, kGroupedLayout<T>);
    by_work.emplace_back(static_cast<double>(pk.items) * static_cast<double>(p->m * p->n * p->k),
                         p);
  }
  std::stable_sort(by_work.begin(), by_work.end(),
                   [](const auto& x, const auto& y) { return x.first > y.first; });
  for (std::size_t i = 0; i < groups.size(); ++i) groups[i] = by_work[i].second;
  // Along k, a transposed operand is staged element by element below 4 x 4 tiles, whose items
  // are mostly staging; 4 x 4 tiles' items are mostly products, and there its 16-byte loads with
  // 16-way conflicted stores measured 5% faster (f32 uniform mix, 10^4 items, 125.4 -> 119.0 us).
  constexpr bool by_element = kGroupedLayout<T> == Layout::kAlongK && TILE < 4;
  std::size_t g = 0;
  while (g < groups.size()) {
    FusedLaunch<T> launch{};
    FusedTable<T>& table = launch.table;
    while (g < groups.size() && table.count < kFusedGroups) {
      const Problem& p = *groups[g];
      const Packing pk = packing<T>(p, TILE, kGroupedLayout<T>);
      const std::int64_t mine = (p.batch + pk.items - 1) / pk.items;
      if (table.count > 0 && launch.blocks + mine > kGridX) break;
      table.group[table.count] = small_args<T>(p, pk, kGroupedLayout<T>, by_element);
      table.first_block[table.count] = static_cast<std::uint32_t>(launch.blocks);
      ++table.count;
      launch.blocks += mine;
      launch.shared = std::max(launch.shared, pk.shared);
      ++g;
    }
    launch_one(launch);
  }
}

// `chained`: a launch of this call came before, so this one is made dependent on it
// (let_the_next_launch_start, kernel.cuh); set once this one is launched.
template <class T, int TILE>
void launch_fused_tile(std::vector<const Problem*> groups, const CudaExec& exec, bool& chained) {
  static_assert(sizeof(FusedTable<T>) <= kMaxParameterBytes);
  auto kernel = grouped_kernel<T, TILE>;
  fused_launches<T, TILE>(std::move(groups), [&](const FusedLaunch<T>& launch) {
    exec.allow_shared(reinterpret_cast<const void*>(kernel), launch.shared);
    check(launch_maybe_dependent(kernel, dim3(grid_dim(launch.blocks, kGridX)), dim3(kThreads),
                                 launch.shared, exec.cuda_stream(), chained, launch.table),
          "cudaLaunchKernelEx(grouped_kernel)");
    chained = true;
  });
}

// One scalar's groups: the largest tile's launches first, so their long blocks are not a tail.
template <class T>
void launch_fused(const std::vector<const Problem*>& groups, const CudaExec& exec, bool& chained) {
  std::vector<const Problem*> by_tile[3];
  for (const Problem* p : groups) {
    const int tile = fused_tile(*p);
    by_tile[tile == 1 ? 0 : tile == 2 ? 1 : 2].push_back(p);
  }
  if (!by_tile[2].empty()) launch_fused_tile<T, 4>(std::move(by_tile[2]), exec, chained);
  if (!by_tile[1].empty()) launch_fused_tile<T, 2>(std::move(by_tile[1]), exec, chained);
  if (!by_tile[0].empty()) launch_fused_tile<T, 1>(std::move(by_tile[0]), exec, chained);
}

using Launcher = void (*)(const Problem&, const CudaExec&);

template <std::size_t I>
void launch_config(const Problem& p, const CudaExec& exec) {
  dispatch(p.dtype, [&]<class H>() {
    if constexpr ((kConfigs[I].scalars & mask_of(scalar_of_v<H>)) != 0) {
      launch_small<device_t<H>, kConfigs[I].s, kConfigs[I].t>(p, exec);
    }
  });
}

template <std::size_t I>
constexpr Launcher launcher_of() {
  return &launch_config<I>;
}

template <std::size_t... I>
constexpr std::array<Launcher, kConfigs.size()> launchers(std::index_sequence<I...>) {
  return {launcher_of<I>()...};
}

constexpr auto kLaunchers = launchers(std::make_index_sequence<kConfigs.size()>());

class Small final : public Candidate {
 public:
  explicit Small(std::size_t index)
      : config_(kConfigs[index]),
        launch_(kLaunchers[index]),
        spelling_("cuda.small:s=" + std::to_string(config_.s) + ":t=" + std::to_string(config_.t) +
                  GEMMROUTE_AB_SPELLING) {}
  std::string_view spelling() const override { return spelling_; }
  Provider provider() const override { return Provider::native; }
  Verdict can_run(const Problem& p) const override {
    if (const char* why = uniform_only(p.dtype)) return Verdict::no(why);
    if ((config_.scalars & mask_of(p.dtype.in)) == 0) {
      return Verdict::no("this configuration is not instantiated for the scalar");
    }
    if (p.m > config_.s || p.n > config_.s || p.k > config_.s) {
      return Verdict::no("max(m, n, k) is over this configuration's size bound s");
    }
    const std::size_t shared = dispatch(p.dtype, [&]<class H>() {
      return packing<device_t<H>>(p, config_.t, Layout::kByRows).shared;
    });
    if (shared > kMaxShared) return Verdict::no("needs more shared memory than a block can have");
    return Verdict::yes();
  }
  void launch(const Problem& p, const Exec& e) const override {
    require_runnable(*this, p, e);
    const CudaExec& exec = cuda_exec(e);
    if (quick_path(p, exec)) return;
    launch_(p, exec);
  }

 private:
  // Hopper's opt-in limit per block (227 KiB).
  static constexpr std::size_t kMaxShared = 227 * 1024;
  SmallConfig config_;
  Launcher launch_;
  std::string spelling_;
};

template <std::size_t... I>
std::array<Small, kConfigs.size()> make_all(std::index_sequence<I...>) {
  return {Small(I)...};
}

}  // namespace

// In an A/B build's patched copy these three end in `_ab` (candidates.hpp): the batch kernel's
// configurations spelled `:ab=1`, and the grouped launch run where a thread has set core's A/B
// switch (bench --grouped's `auto-ab` arm).
std::span<const Candidate* const> GEMMROUTE_AB_EXPORT(small_candidates)() {
  static const auto all = make_all(std::make_index_sequence<kConfigs.size()>());
  static const auto pointers = [] {
    std::array<const Candidate*, kConfigs.size()> out{};
    for (std::size_t i = 0; i < all.size(); ++i) out[i] = &all[i];
    return out;
  }();
  return pointers;
}

bool GEMMROUTE_AB_EXPORT(fusable)(const GroupLaunch& g) {
  const Problem& p = *g.problem;
  if (!g.may_fuse || uniform_only(p.dtype) != nullptr || p.m > kFusedSizeBound ||
      p.n > kFusedSizeBound || p.k > kFusedSizeBound || p.k == 0 || p.batch <= 0 ||
      p.alpha == std::complex<double>(0.0, 0.0)) {
    return false;
  }
  return operand_bytes(p) <= fused_group_bytes(p);
}

void GEMMROUTE_AB_EXPORT(launch_fused_groups)(std::span<const GroupLaunch* const> groups,
                                              const CudaExec& exec) {
  bool chained = false;  // the call's first launch waits for the stream as any launch does
  for (const Scalar s : {Scalar::f32, Scalar::f64, Scalar::c32, Scalar::c64}) {
    std::vector<const Problem*> mine;
    for (const GroupLaunch* g : groups) {
      if (g->problem->dtype == s) mine.push_back(g->problem);
    }
    if (mine.empty()) continue;
    dispatch(DType(s), [&]<class H>() { launch_fused<device_t<H>>(mine, exec, chained); });
  }
}

}  // namespace gemmroute::cuda
