// cuda.stream:t=T, cuda.stream:v=N[:runs=2 or :rows=2], cuda.stream:mma=T and
// cuda.stream:i=N[:cols=2]: packed batches of small matrices (max(m, n, k) <= 64), streamed
// through shared memory. Such batches are bound by the bytes they move, so the kernel is built
// to keep as many bytes in flight as the memory system needs, without a pause for the arithmetic:
//
// - When A, B and C are each one contiguous range (items packed back to back, ld == rows), a
//   group of consecutive items is one range of each. A block copies its group's three ranges
//   into shared memory with asynchronous copies (cp.async: 16 bytes each where the bases allow,
//   4 or 8 otherwise), no layout change, so the copy is a plain byte stream. (One exception: a
//   transposed A is staged with 16 bytes of padding after each row, or each tile's rows, in the
//   t= and v= tiles of f32, f64 and c32, so that a warp reading down a column of op(A) does not
//   meet one bank at every row: staged_a.)
// - Blocks are persistent (as many as fit on the device at once) and double-buffered: while a
//   block computes one group from one buffer, the copies of its next group fill the other.
//   Where two buffers of one item would hold a multiprocessor to one block (over 112 KiB: f64
//   and c32 items from about 49^3, c64 from 35^3), the row and tensor-core tiles of 8- and
//   16-byte scalars have one buffer instead (a kernel of its own, `SINGLE`) and copy a block's
//   next group after computing the current one; two blocks a multiprocessor overlap each other's
//   copies and products, and c64 items up to 64^3 fit.
// - Each thread computes register tiles of C, tiles running over the group's items, so items of
//   any size fill the block. `t=T`: T x T tiles whose rows are `side_i` apart (consecutive
//   threads write consecutive elements of C). `v=N`: 16 bytes of consecutive rows (4 f32, 2 f64
//   or c32, 1 c64) by N columns, so where m is a multiple of those rows a column of op(A) is one
//   16-byte shared load per k step and a column of C one 16-byte load and store: a quarter of
//   the instructions per element for f32, which the t= tiles are bound by. Where op(B) = B
//   and k is a multiple of the run's rows too, that many consecutive k of each tile column of
//   B are one 16-byte load as well. `v=N:runs=2`: two such runs of rows (8 f32, 4 f64 or c32,
//   2 c64), so each load of B feeds twice the multiply-adds (for the larger sizes, where the
//   loads per multiply-add bound the 4-row tiles). `v=N:rows=2` (f32 only): 8 bytes of two
//   rows by N columns, the same paths for m a multiple of 2 that v= takes for a multiple of 4
//   (f32 m = 2, 6, 10, ... otherwise run on the t= tiles). C is read (beta != 0) from the
//   staged copy and written straight from registers; beta == 0 never reads C.
// - `mma=8`, `mma=16` (f64 and c64): each warp computes 8 x 8 or 16 x 16 of an item's C on the
//   f64 tensor cores (mma.m8n8k4.f64, DMMA: twice the CUDA cores' f64 rate on sm_90, and one
//   instruction for 256 multiply-adds), its fragments read from the staged copies; a c64 product
//   is four real ones. Edges are masked (zeros past m, n and k), so any size runs.
// - `i=4`, `i=8` (m and n at most 4 or 8): each thread computes one whole item, so each
//   instruction of a warp serves 32 items; its results are staged and leave as the group's one
//   range of C (compute_group_items). `i=8:cols=2`: all rows of two of an item's columns a thread.
// - Forms are runtime strides into the staged items (N, T; conjugation applied to the values),
//   so one kernel serves all nine.
//
// Anything that is not packed (padding, broadcast operands, pointer arrays) is left to
// cuda.small. Instantiations: t = 1, 2, 4, v = 1, 2, 4 and v = 4:runs=2 for each of the four
// scalars, mma = 8 and 16 for f64 and c64 (32 kernels), i = 4 for each scalar and i = 8 for f32,
// f64 and c32, i = 8:cols=2 for f64 and c32 (9), v = 4:rows=2 and v = 8:rows=2 for f32 (2), and
// the single-buffer kernels of kHasSingle (16: 59 in all).
#include <array>
#include <cstdint>
#include <initializer_list>
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
constexpr int kBound = 64;  // max(m, n, k)
// A group's three ranges aim at this many bytes: enough in flight per block that the blocks
// an SM holds cover the memory latency, small enough that several blocks fit.
constexpr std::size_t kGroupBytes = 16 * 1024;
// Two buffers of a group stay under this, so at least two blocks share a multiprocessor; where
// two buffers of one item would not, the tiles that have a single-buffer kernel take one.
constexpr std::size_t kMaxBlockShared = 112 * 1024;

// One operand's staged items: element (r, c) of op(X) at r * sr + c * sc within an item.
struct Strides {
  std::uint32_t sr, sc;
};

template <class T>
struct StreamArgs {
  Args<T> p;
  std::int64_t groups;
  std::uint32_t items;                 // per group (the last one may have fewer)
  std::uint32_t side_i, side_j;        // threads per item along i and j: ceil(m / T), ceil(n / T)
  Divisor per_item, by_side_i;         // side_i * side_j, side_i
  std::uint32_t ea, eb, ec;            // elements per item: m k, k n, m n
  std::uint32_t ea_s;                  // A's elements per staged item (staged_a below)
  Divisor a_row_units;                 // a transposed A with padded rows: granules between
  std::uint32_t a_row_pad;             // pads (of this many bytes) in its staged copy
  std::uint32_t off_b, off_c, buffer;  // in elements: B's and C's place in a buffer, its size
  Strides sa, sb;                      // op(A)(i, q), op(B)(q, j)
  std::uint32_t granule;               // bytes per asynchronous copy: 16, 8 or 4
  std::uint32_t granule_c;             // item tiles: bytes per store of the group's C range
  bool conj_a, conj_b;
  bool read_c;        // beta != 0
  bool vec_a, vec_c;  // row tiles: A and C columns read as 16-byte vectors
  bool vec_b;         // and B's columns along k (op(B) = B, k whole rows)
  bool runs_k;        // op(A)'s rows (A transposed) and op(B)'s columns (B as stored) read as
                      // runs along k
  bool runs_j;        // row tiles: op(B)'s rows (B transposed) read as runs along j, the tile's
                      // columns consecutive
};

// How move_range moves a range: asynchronous copies into shared memory (the staging), or plain
// stores from shared memory to global memory (the item tiles' C).
enum class Move { kCopyAsync, kStore };

// Moves `units` units of BYTES from src to dst, consecutive threads taking consecutive units.
template <Move M, int BYTES>
__device__ __forceinline__ void move_units(unsigned char* dst, const unsigned char* src,
                                           std::uint32_t units) {
  struct alignas(BYTES) Granule {
    std::uint32_t w[BYTES / 4];
  };
  for (std::uint32_t u = threadIdx.x; u < units; u += kThreads) {
    if constexpr (M == Move::kCopyAsync) {
      copy_async<BYTES>(dst + u * BYTES, src + u * BYTES);
    } else {
      *reinterpret_cast<Granule*>(dst + u * BYTES) =
          *reinterpret_cast<const Granule*>(src + u * BYTES);
    }
  }
}

// Moves `bytes` (a multiple of 4) from src to dst, both aligned to `granule`: granules first,
// then the 4-byte tail.
template <Move M>
__device__ __forceinline__ void move_range(void* dst_v, const void* src_v, std::uint32_t bytes,
                                           std::uint32_t granule) {
  auto* dst = static_cast<unsigned char*>(dst_v);
  const auto* src = static_cast<const unsigned char*>(src_v);
  const std::uint32_t body = bytes / granule * granule;
  if (granule == 16) {
    move_units<M, 16>(dst, src, body / 16);
  } else if (granule == 8) {
    move_units<M, 8>(dst, src, body / 8);
  } else {
    move_units<M, 4>(dst, src, body / 4);
  }
  move_units<M, 4>(dst + body, src + body, (bytes - body) / 4);
}

// Stages `bytes` from global memory at src into shared memory at dst, as move_range.
__device__ __forceinline__ void copy_range(void* dst, const void* src, std::uint32_t bytes,
                                           std::uint32_t granule) {
  move_range<Move::kCopyAsync>(dst, src, bytes, granule);
}

// Stores `bytes` of shared memory at src to global memory at dst, as move_range.
__device__ __forceinline__ void store_range(void* dst, const void* src, std::uint32_t bytes,
                                            std::uint32_t granule) {
  move_range<Move::kStore>(dst, src, bytes, granule);
}

// The items of the group that starts at item0: s.items, fewer in the batch's last group.
template <class T>
__device__ __forceinline__ std::uint32_t group_items(const StreamArgs<T>& s, std::int64_t item0) {
  const std::int64_t left = s.p.batch - item0;
  return static_cast<std::uint32_t>(left < s.items ? left : s.items);
}

// Copies `bytes` from src to dst as rows of a_row_units granules each, every row in dst
// `row_pad` bytes further than the one before it: a transposed A staged with padded rows
// (staged_a; a "row" here is one or TM rows of op(A)). Rows are whole granules (k a multiple
// of the 16-byte run).
template <int BYTES>
__device__ __forceinline__ void copy_row_units(unsigned char* dst, const unsigned char* src,
                                               std::uint32_t units, Divisor per_row,
                                               std::uint32_t row_pad) {
  for (std::uint32_t u = threadIdx.x; u < units; u += kThreads) {
    copy_async<BYTES>(dst + u * BYTES + per_row.div(u) * row_pad, src + u * BYTES);
  }
}

__device__ __forceinline__ void copy_padded_rows(void* dst_v, const void* src_v,
                                                 std::uint32_t bytes, std::uint32_t granule,
                                                 Divisor per_row, std::uint32_t row_pad) {
  auto* dst = static_cast<unsigned char*>(dst_v);
  const auto* src = static_cast<const unsigned char*>(src_v);
  if (granule == 16) {
    copy_row_units<16>(dst, src, bytes / 16, per_row, row_pad);
  } else if (granule == 8) {
    copy_row_units<8>(dst, src, bytes / 8, per_row, row_pad);
  } else {
    copy_row_units<4>(dst, src, bytes / 4, per_row, row_pad);
  }
}

// Starts the copies of group g into `buf` (one commit group per call, empty past the end).
template <class T>
__device__ __forceinline__ void issue_group(const StreamArgs<T>& s, std::int64_t g, T* buf) {
  if (g < s.groups) {
    const std::int64_t item0 = g * s.items;
    const std::uint32_t items = group_items(s, item0);
    constexpr std::uint32_t z = sizeof(T);
    if (s.a_row_pad == 0) {
      copy_range(buf, s.p.a.base + item0 * s.ea, items * s.ea * z, s.granule);
    } else {
      copy_padded_rows(buf, s.p.a.base + item0 * s.ea, items * s.ea * z, s.granule, s.a_row_units,
                       s.a_row_pad);
    }
    copy_range(buf + s.off_b, s.p.b.base + item0 * s.eb, items * s.eb * z, s.granule);
    if (s.read_c) copy_range(buf + s.off_c, s.p.c.base + item0 * s.ec, items * s.ec * z, s.granule);
  }
  commit_copies();
}

// A thread's fixed place in every group: its first tile within an item and the items it takes.
// Where an item has at most kThreads tiles, the block covers kThreads / tiles items at once and
// a thread keeps one tile of each (decoded once per group, not per item); otherwise every
// thread takes tiles kThreads apart of one item at a time.
struct Lane {
  std::uint32_t tile0, slot0, slot_step;
  bool idle;  // past the last whole item the block covers at once
};

template <class T>
__device__ __forceinline__ Lane lane_of(const StreamArgs<T>& s) {
  const std::uint32_t per = s.per_item.d;
  if (per > kThreads) return {threadIdx.x, 0, 1, false};
  const std::uint32_t slot = s.per_item.div(threadIdx.x);
  const std::uint32_t step = kThreads / per;
  return {threadIdx.x - slot * per, slot, step, slot >= step};
}

// A thread's tile: TM rows by TN columns of one item's C. Rows are `side_i` apart (consecutive
// threads hold consecutive rows: each store instruction is coalesced) or, where ROWS, TM
// consecutive rows of 16 bytes in all, or 8 (two f32 rows: consecutive threads hold consecutive
// runs of a column), so a column of op(A) and of C moves as one vector where the layout allows
// (vec_a, vec_c). Columns are `side_j` apart either way.
template <int TM, int TN, bool ROWS>
struct Tile {
  static constexpr int tm = TM, tn = TN;
  static constexpr bool rows = ROWS;
  static constexpr bool mma = false;
  static constexpr bool item = false;
};

// A warp's tile on the f64 tensor cores: W x W blocks of 8 x 8 (tm and tn count elements, as
// for Tile; side_i and side_j count these warp tiles).
template <int W>
struct MmaTile {
  static constexpr int tm = 8 * W, tn = 8 * W;
  static constexpr bool rows = false;
  static constexpr bool mma = true;
  static constexpr bool item = false;
};

// One whole item a thread (`i=N`): m and n at most N, C's N x N accumulators in registers
// (compute_group_items); or (`i=N:cols=J`, J < N) all of an item's rows by J of its columns, the
// item's ceil(n / J) threads side by side.
template <int N, int J = N>
struct ItemTile {
  static constexpr int tm = N, tn = J;
  static constexpr bool rows = false;
  static constexpr bool mma = false;
  static constexpr bool item = true;
};

// TM consecutive elements at a 16-byte aligned address, TM a whole number of 16-byte runs, moved
// run by run. compute_group takes these for tiles of several runs and keeps its Run<T, TM>
// accesses for one run (and for the t= tiles, which never take the vector paths): the one-run
// kernels compile to exactly what they were measured as before several runs existed.
template <class T, int TM>
__device__ __forceinline__ void load_runs(const T* at, T (&x)[TM]) {
  constexpr int R = kRunLength<T>;
  static_assert(TM % R == 0);
#pragma unroll
  for (int r = 0; r < TM / R; ++r) {
    const Run<T, R> v = *reinterpret_cast<const Run<T, R>*>(at + r * R);
#pragma unroll
    for (int u = 0; u < R; ++u) x[r * R + u] = v.v[u];
  }
}

template <class T, int TM>
__device__ __forceinline__ void store_runs(const T (&x)[TM], T* at) {
  constexpr int R = kRunLength<T>;
  static_assert(TM % R == 0);
#pragma unroll
  for (int r = 0; r < TM / R; ++r) {
    Run<T, R> v;
#pragma unroll
    for (int u = 0; u < R; ++u) v.v[u] = x[r * R + u];
    *reinterpret_cast<Run<T, R>*>(at + r * R) = v;
  }
}

// The tiles that read op(A)'s rows and op(B)'s columns as runs along k where the form allows
// (compute_group): square tiles of 4 and row tiles of 16 or more elements. The smaller ones
// spilled with it (f32 t=1, t=2; f32 v=1 60 bytes, v=2 36, f64 v=2 8).
__host__ __device__ constexpr bool reads_runs_along_k(bool rows, bool mma, int tm, int tn,
                                                      int run) {
  return !mma && run >= 2 && (rows ? tm * tn >= 16 : tm >= 4);
}

// The row tiles whose TN columns are a whole number of 16-byte runs (f32 v=4 and v=4:runs=2, f64
// and c32 v=2, v=4 and v=4:runs=2): where A is as stored and B transposed (op(B)(q, j) = B(j,
// q), j consecutive in the staged item) and n is a multiple of TN, they take TN consecutive
// columns, so a k step reads the tile's part of op(B)'s row as TN * sizeof(T) / 16 vector loads
// instead of TN scalar ones (compute_group).
__host__ __device__ constexpr bool reads_runs_along_j(bool rows, int tn, int size) {
  return rows && size < 16 && tn * size % 16 == 0;
}

template <class T, class TL>
__device__ __forceinline__ void compute_group(const StreamArgs<T>& s, const Lane& lane,
                                              std::int64_t g, const T* buf) {
  constexpr int TM = TL::tm, TN = TL::tn;
  const Args<T>& p = s.p;
  const std::int64_t item0 = g * s.items;
  const std::uint32_t items = group_items(s, item0);
  const int m = static_cast<int>(p.m), n = static_cast<int>(p.n), k = static_cast<int>(p.k);
  T* const cg = p.c.base + item0 * s.ec;
  for (std::uint32_t tile = lane.tile0; tile < s.per_item.d; tile += kThreads) {
    const std::uint32_t tj = s.by_side_i.div(tile);
    const std::uint32_t ti = tile - tj * s.side_i;
    int row[TM], col[TN];
    std::uint32_t ra[TM], cb[TN];
#pragma unroll
    for (int u = 0; u < TM; ++u) {
      row[u] = static_cast<int>(TL::rows ? ti * TM + u : ti + u * s.side_i);
      ra[u] = static_cast<std::uint32_t>(row[u] < m ? row[u] : m - 1) * s.sa.sr;  // clamped
      // Row tiles reading runs along k: one pad after each tile's TM rows (staged_a; m is a
      // multiple of TM wherever a row tile runs, so row / TM is ti).
      if constexpr (TL::rows && reads_runs_along_k(true, false, TM, TN, kRunLength<T>)) {
        if (s.runs_k) ra[u] += ti * (s.a_row_pad / static_cast<std::uint32_t>(sizeof(T)));
      }
    }
    constexpr bool kRunsJ = reads_runs_along_j(TL::rows, TN, static_cast<int>(sizeof(T)));
#pragma unroll
    for (int v = 0; v < TN; ++v) {
      // Columns side_j apart (consecutive threads' stores meet in one range of C), or, reading
      // runs along j, TN consecutive ones (n a multiple of TN: every column exists).
      col[v] = static_cast<int>(kRunsJ && s.runs_j ? tj * TN + v : tj + v * s.side_j);
      cb[v] = static_cast<std::uint32_t>(col[v] < n ? col[v] : n - 1) * s.sb.sc;
    }
    for (std::uint32_t slot = lane.slot0; slot < items; slot += lane.slot_step) {
      const T* a = buf + slot * s.ea_s;
      const T* b = buf + s.off_b + slot * s.eb;
      T acc[TM][TN];
#pragma unroll
      for (int u = 0; u < TM; ++u)
#pragma unroll
        for (int v = 0; v < TN; ++v) acc[u][v] = Ops<T>::zero();
      // Row tiles of 16-byte runs (f32, f64, c32; c64's one-row runs gain nothing).
      constexpr int R = kRunLength<T>;
      constexpr bool kVecB = TL::rows && R >= 2;
      // A column of the tile is one Run<T, TM> (t= tiles: never read as vectors).
      constexpr bool kOneRun = !TL::rows || TM <= R || TM % R != 0;
      // Where op(A) = A^T (or A^H) and op(B) = B, k a multiple of R: both operands' rows and
      // columns run along k in the staged items, so R consecutive k of each of the tile's rows
      // of op(A) and columns of op(B) are one 16-byte load, TM + TN loads for R k steps instead
      // of R (TM + TN). The rows are padded (staged_a) so that a warp's loads meet no bank
      // twice: square tiles' lanes read consecutive rows, an odd number of runs apart; row
      // tiles' lanes read rows TM apart, TM rows and one run apart.
      constexpr bool kRunsK = reads_runs_along_k(TL::rows, TL::mma, TM, TN, R);
      if (kRunsK && s.runs_k) {
        for (int q = 0; q < k; q += R) {
          Run<T, R> x[TM];
#pragma unroll
          for (int u = 0; u < TM; ++u) x[u] = *reinterpret_cast<const Run<T, R>*>(a + ra[u] + q);
#pragma unroll
          for (int v = 0; v < TN; ++v) {
            const Run<T, R> y = *reinterpret_cast<const Run<T, R>*>(b + cb[v] + q);
#pragma unroll
            for (int w = 0; w < R; ++w)
#pragma unroll
              for (int u = 0; u < TM; ++u)
                acc[u][v] = Ops<T>::fma(maybe_conj(x[u].v[w], s.conj_a), y.v[w], acc[u][v]);
          }
        }
      } else if (kVecB && s.vec_a && s.vec_b) {
        // op(A) = A and op(B) = B with k a multiple of R: a column of A is TM / R 16-byte
        // vectors and R consecutive k of each of the tile's columns of B one, so R k steps take
        // R TM / R + TN loads instead of R (TM / R + TN).
        for (int q = 0; q < k; q += R) {
          Run<T, R> yb[TN];
#pragma unroll
          for (int v = 0; v < TN; ++v) yb[v] = *reinterpret_cast<const Run<T, R>*>(b + cb[v] + q);
#pragma unroll
          for (int w = 0; w < R; ++w) {
            if constexpr (kOneRun) {
              const Run<T, TM> x = *reinterpret_cast<const Run<T, TM>*>(a + ra[0] + (q + w) * m);
#pragma unroll
              for (int u = 0; u < TM; ++u)
#pragma unroll
                for (int v = 0; v < TN; ++v) acc[u][v] = Ops<T>::fma(x.v[u], yb[v].v[w], acc[u][v]);
            } else {
              T x[TM];
              load_runs<T, TM>(a + ra[0] + (q + w) * m, x);
#pragma unroll
              for (int u = 0; u < TM; ++u)
#pragma unroll
                for (int v = 0; v < TN; ++v) acc[u][v] = Ops<T>::fma(x[u], yb[v].v[w], acc[u][v]);
            }
          }
        }
      } else if (kRunsJ && s.runs_j) {
        if constexpr (kRunsJ) {
          // op(B) = B^T (or B^H): the tile's TN columns of op(B)'s row q are consecutive in
          // the staged item (from cb[0], 16-byte aligned: n and TN whole runs), one or two
          // 16-byte loads a k step instead of TN; op(A) = A (runs_j comes with vec_a) as in the
          // loop below.
#pragma unroll 4
          for (int q = 0; q < k; ++q) {
            T x[TM], y[TN];
            if constexpr (kOneRun) {
              const Run<T, TM> r = *reinterpret_cast<const Run<T, TM>*>(a + ra[0]);
#pragma unroll
              for (int u = 0; u < TM; ++u) x[u] = r.v[u];
            } else {
              load_runs<T, TM>(a + ra[0], x);
            }
            load_runs<T, TN>(b + cb[0], y);
#pragma unroll
            for (int v = 0; v < TN; ++v) y[v] = maybe_conj(y[v], s.conj_b);
            a += s.sa.sc;
            b += s.sb.sr;
#pragma unroll
            for (int u = 0; u < TM; ++u)
#pragma unroll
              for (int v = 0; v < TN; ++v) acc[u][v] = Ops<T>::fma(x[u], y[v], acc[u][v]);
          }
        }
      } else {
#pragma unroll 4
        for (int q = 0; q < k; ++q) {
          T x[TM], y[TN];
          if (TL::rows && s.vec_a) {  // op(A) = A, m a multiple of TM: ra[0] is a run's aligned
            if constexpr (kOneRun) {
              const Run<T, TM> r = *reinterpret_cast<const Run<T, TM>*>(a + ra[0]);
#pragma unroll
              for (int u = 0; u < TM; ++u) x[u] = r.v[u];
            } else {
              load_runs<T, TM>(a + ra[0], x);
            }
          } else {
#pragma unroll
            for (int u = 0; u < TM; ++u) x[u] = maybe_conj(a[ra[u]], s.conj_a);
          }
#pragma unroll
          for (int v = 0; v < TN; ++v) y[v] = maybe_conj(b[cb[v]], s.conj_b);
          a += s.sa.sc;
          b += s.sb.sr;
#pragma unroll
          for (int u = 0; u < TM; ++u)
#pragma unroll
            for (int v = 0; v < TN; ++v) acc[u][v] = Ops<T>::fma(x[u], y[v], acc[u][v]);
        }
      }
      T* const c = cg + slot * s.ec;
      const T* const c0 = buf + s.off_c + slot * s.ec;
#pragma unroll
      for (int v = 0; v < TN; ++v) {
        const int j = col[v];
        if (j >= n) continue;
        if (TL::rows && s.vec_c) {  // the TM rows are whole and aligned as a run in C and in c0
          const int at = row[0] + j * m;
          if constexpr (kOneRun) {
            Run<T, TM> out;
            Run<T, TM> prev;
            if (s.read_c) prev = *reinterpret_cast<const Run<T, TM>*>(c0 + at);
#pragma unroll
            for (int u = 0; u < TM; ++u) {
              const T ab = Ops<T>::mul(p.alpha, acc[u][v]);
              out.v[u] = s.read_c ? Ops<T>::fma(p.beta, prev.v[u], ab) : ab;
            }
            *reinterpret_cast<Run<T, TM>*>(c + at) = out;
          } else {
            T out[TM];
            T prev[TM];
            if (s.read_c) load_runs<T, TM>(c0 + at, prev);
#pragma unroll
            for (int u = 0; u < TM; ++u) {
              const T ab = Ops<T>::mul(p.alpha, acc[u][v]);
              out[u] = s.read_c ? Ops<T>::fma(p.beta, prev[u], ab) : ab;
            }
            store_runs<T, TM>(out, c + at);
          }
          continue;
        }
#pragma unroll
        for (int u = 0; u < TM; ++u) {
          const int i = row[u];
          if (i >= m) continue;
          const T ab = Ops<T>::mul(p.alpha, acc[u][v]);
          c[i + j * m] = s.read_c ? Ops<T>::fma(p.beta, c0[i + j * m], ab) : ab;
        }
      }
    }
  }
}

// d += a b for one 8 x 8 x 4 block: A row-major 8 x 4 (a lane holds row lane / 4, column
// lane % 4), B column-major 4 x 8 (row lane % 4, column lane / 4), D 8 x 8 (row lane / 4, columns
// 2 (lane % 4) and the next). Every lane of the warp takes part.
__device__ __forceinline__ void mma_8x8x4(double (&d)[2], double a, double b) {
#if __CUDA_ARCH__ >= 800
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
               : "+d"(d[0]), "+d"(d[1])
               : "d"(a), "d"(b));
#else  // the same products from the lanes that hold them
  const int lane = static_cast<int>(threadIdx.x % 32), row = lane / 4, col = 2 * (lane % 4);
  for (int t = 0; t < 4; ++t) {
    const double x = __shfl_sync(0xffffffffu, a, row * 4 + t);
    d[0] = ::fma(x, __shfl_sync(0xffffffffu, b, col * 4 + t), d[0]);
    d[1] = ::fma(x, __shfl_sync(0xffffffffu, b, (col + 1) * 4 + t), d[1]);
  }
#endif
}

// The mma= tiles: warp w of the block takes warp tiles w, w + 8, ... of the group's items (item
// by item, then tile). A lane reads its element of op(A) and of op(B) for each 8 x 8 x 4 block
// (rows, columns and k past the item's edge read a clamped element and use zero), so one code
// serves every size and form; C is written element by element from the D fragments.
template <class T, class TL>
__device__ __forceinline__ void compute_group_mma(const StreamArgs<T>& s, std::int64_t g,
                                                  const T* buf) {
  constexpr int W = TL::tm / 8;
  constexpr int kParts = Ops<T>::complex ? 2 : 1;  // real, imaginary
  const Args<T>& p = s.p;
  const std::int64_t item0 = g * s.items;
  const std::uint32_t items = group_items(s, item0);
  const int m = static_cast<int>(p.m), n = static_cast<int>(p.n), k = static_cast<int>(p.k);
  const int lane = static_cast<int>(threadIdx.x % 32), lr = lane / 4, lc = lane % 4;
  T* const cg = p.c.base + item0 * s.ec;
  const std::uint32_t work = items * s.per_item.d;
  for (std::uint32_t w = threadIdx.x / 32; w < work; w += kThreads / 32) {
    const std::uint32_t slot = s.per_item.div(w);
    const std::uint32_t tile = w - slot * s.per_item.d;
    const std::uint32_t tj = s.by_side_i.div(tile);
    const std::uint32_t ti = tile - tj * s.side_i;
    const T* const a = buf + slot * s.ea_s;
    const T* const b = buf + s.off_b + slot * s.eb;
    std::uint32_t ra[W], cb[W];
    bool va[W], vb[W];
#pragma unroll
    for (int u = 0; u < W; ++u) {
      const int i = static_cast<int>(ti) * TL::tm + 8 * u + lr;
      va[u] = i < m;
      ra[u] = static_cast<std::uint32_t>(va[u] ? i : m - 1) * s.sa.sr;
      const int j = static_cast<int>(tj) * TL::tn + 8 * u + lr;
      vb[u] = j < n;
      cb[u] = static_cast<std::uint32_t>(vb[u] ? j : n - 1) * s.sb.sc;
    }
    double acc[kParts][W][W][2];
#pragma unroll
    for (int r = 0; r < kParts; ++r)
#pragma unroll
      for (int u = 0; u < W; ++u)
#pragma unroll
        for (int v = 0; v < W; ++v) acc[r][u][v][0] = acc[r][u][v][1] = 0.0;
    for (int q0 = 0; q0 < k; q0 += 4) {
      const int q = q0 + lc;
      const bool vq = q < k;
      const std::uint32_t qa = static_cast<std::uint32_t>(vq ? q : k - 1) * s.sa.sc;
      const std::uint32_t qb = static_cast<std::uint32_t>(vq ? q : k - 1) * s.sb.sr;
      T x[W], y[W];
#pragma unroll
      for (int u = 0; u < W; ++u) {
        x[u] = va[u] && vq ? maybe_conj(a[ra[u] + qa], s.conj_a) : Ops<T>::zero();
        y[u] = vb[u] && vq ? maybe_conj(b[qb + cb[u]], s.conj_b) : Ops<T>::zero();
      }
#pragma unroll
      for (int u = 0; u < W; ++u)
#pragma unroll
        for (int v = 0; v < W; ++v) {
          if constexpr (Ops<T>::complex) {  // (xr + i xi)(yr + i yi): four real products
            mma_8x8x4(acc[0][u][v], x[u].re, y[v].re);
            mma_8x8x4(acc[0][u][v], -x[u].im, y[v].im);
            mma_8x8x4(acc[1][u][v], x[u].re, y[v].im);
            mma_8x8x4(acc[1][u][v], x[u].im, y[v].re);
          } else {
            mma_8x8x4(acc[0][u][v], x[u], y[v]);
          }
        }
    }
    T* const c = cg + slot * s.ec;
    const T* const c0 = buf + s.off_c + slot * s.ec;
#pragma unroll
    for (int u = 0; u < W; ++u) {
      const int i = static_cast<int>(ti) * TL::tm + 8 * u + lr;
      if (i >= m) continue;
#pragma unroll
      for (int v = 0; v < W; ++v)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int j = static_cast<int>(tj) * TL::tn + 8 * v + 2 * lc + e;
          if (j >= n) continue;
          T r;
          if constexpr (Ops<T>::complex) {
            r = {acc[0][u][v][e], acc[1][u][v][e]};
          } else {
            r = acc[0][u][v][e];
          }
          const T ab = Ops<T>::mul(p.alpha, r);
          c[i + j * m] = s.read_c ? Ops<T>::fma(p.beta, c0[i + j * m], ab) : ab;
        }
    }
  }
}

// The item tiles (`i=N`, m and n at most N): thread t computes item t of the group (and t + 256,
// ...) whole, so a k step is N loads of op(A)'s column, N of op(B)'s row and N^2 multiply-adds,
// each instruction of a warp serving 32 items, where the t= tiles spend a tile's loads, index
// arithmetic and edge tests on a few elements (at f32 6^3, t=2 issues some 137 warp instructions
// an item). Rows and columns past m and n read the last one (clamped) and are never written.
// Items lie ea elements apart in the buffer: the warp's loads are free of bank conflicts where
// that is odd, 4-way at f32 2^3 and 6^3. C cannot leave from registers as the other tiles' does
// (a warp's store would touch 32 items), so the results go into the staged C (which holds C
// where beta != 0, and is staged for these tiles whatever beta) and, after a barrier, leave as
// the group's one contiguous range of C, a granule a thread: every thread of the block calls
// this.
//
// With `cols=J` (J < N) a thread takes all rows of J consecutive columns, so an item's sums are
// spread over ceil(n / J) threads (per_item), whose loads of op(A)'s column meet at one address
// (a broadcast): fewer registers a thread where N x N sums of 8-byte scalars would hold a
// multiprocessor to one block. Shipped as i=8:cols=2 for f64 and c32: cols=4, and c64 by either,
// were not faster than the tiles they would replace (docs/decisions.md).
template <class T, class TL>
__device__ __forceinline__ void compute_group_items(const StreamArgs<T>& s, std::int64_t g,
                                                    T* buf) {
  constexpr int N = TL::tm, J = TL::tn;
  const Args<T>& p = s.p;
  const std::int64_t item0 = g * s.items;
  const std::uint32_t items = group_items(s, item0);
  const int m = static_cast<int>(p.m), n = static_cast<int>(p.n), k = static_cast<int>(p.k);
  std::uint32_t ra[N];
#pragma unroll
  for (int u = 0; u < N; ++u) ra[u] = static_cast<std::uint32_t>(u < m ? u : m - 1) * s.sa.sr;
  T* const cs = buf + s.off_c;
  const std::uint32_t work = J == N ? items : items * s.per_item.d;
  for (std::uint32_t w = threadIdx.x; w < work; w += kThreads) {
    const std::uint32_t slot = J == N ? w : s.per_item.div(w);
    const int j0 = J == N ? 0 : static_cast<int>(w - slot * s.per_item.d) * J;
    std::uint32_t cb[J];
#pragma unroll
    for (int v = 0; v < J; ++v) {
      cb[v] = static_cast<std::uint32_t>(j0 + v < n ? j0 + v : n - 1) * s.sb.sc;
    }
    const T* a = buf + slot * s.ea;
    const T* b = buf + s.off_b + slot * s.eb;
    T acc[N][J];
#pragma unroll
    for (int u = 0; u < N; ++u)
#pragma unroll
      for (int v = 0; v < J; ++v) acc[u][v] = Ops<T>::zero();
    for (int q = 0; q < k; ++q) {
      T x[N], y[J];
#pragma unroll
      for (int u = 0; u < N; ++u) x[u] = maybe_conj(a[ra[u]], s.conj_a);
#pragma unroll
      for (int v = 0; v < J; ++v) y[v] = maybe_conj(b[cb[v]], s.conj_b);
      a += s.sa.sc;
      b += s.sb.sr;
#pragma unroll
      for (int u = 0; u < N; ++u)
#pragma unroll
        for (int v = 0; v < J; ++v) acc[u][v] = Ops<T>::fma(x[u], y[v], acc[u][v]);
    }
    T* const c = cs + slot * s.ec + j0 * m;
#pragma unroll
    for (int v = 0; v < J; ++v) {
      if (j0 + v >= n) break;
#pragma unroll
      for (int u = 0; u < N; ++u) {
        if (u >= m) break;
        const T ab = Ops<T>::mul(p.alpha, acc[u][v]);
        c[u + v * m] = s.read_c ? Ops<T>::fma(p.beta, c[u + v * m], ab) : ab;
      }
    }
  }
  __syncthreads();  // every item's C is staged
  store_range(p.c.base + item0 * s.ec, cs, items * s.ec * static_cast<std::uint32_t>(sizeof(T)),
              s.granule_c);
}

// Blocks per multiprocessor the registers must allow: small tiles are latency-bound, so as many
// as shared memory admits (7 or 8 at the 16 KiB groups), short of spilling registers. The f64
// and c32 row tiles of 2 and 4 columns hold B's k pairs too: one block fewer (64 and 80
// registers) than their element count would give; measured on the H200, up to 1.3x faster (f64
// and c32 at n >= 10) than at 5 and 4 blocks with the spills (40-96 bytes) those leave. Tiles
// of two runs of rows hold twice the accumulators: two blocks (128 registers), which two buffers
// of the larger items they are for leave anyway.
// The item tiles hold N^2 sums: ptxas gives i=4 64 (f32), 72-76 (c32, f64) and 122 (c64)
// registers, i=8 109 (f32), 189 (f64) and 254 (c32), none spilled; i=8:cols=2 (f64, c32) up to
// 128 at two blocks (the rule below: two where J x N sums are 256 bytes or less, else one).
template <class T, class TL>
constexpr int kItemMinBlocks = TL::tn < TL::tm ? (sizeof(T) * TL::tm * TL::tn > 256 ? 1 : 2)
                               : TL::tm == 4   ? (sizeof(T) == 4   ? 4
                                                  : sizeof(T) == 8 ? 3
                                                                   : 2)
                                               : (sizeof(T) == 4 ? 2 : 1);
template <class T, class TL>
constexpr int kMinBlocks = TL::item                                   ? kItemMinBlocks<T, TL>
                           : TL::mma                                  ? 3
                           : TL::rows&& TL::tm * sizeof(T) > 16       ? 2
                           : TL::rows && sizeof(T) == 8 && TL::tn > 1 ? (TL::tn == 2 ? 4 : 3)
                           : TL::tm* TL::tn == 1                      ? (sizeof(T) == 4   ? 8
                                                                         : sizeof(T) == 8 ? 7
                                                                                          : 6)
                           : TL::tm* TL::tn <= 4                      ? (sizeof(T) == 16 ? 4 : 5)
                           : TL::tm* TL::tn <= 8                      ? (sizeof(T) == 16 ? 2 : 4)
                                                                      : (sizeof(T) == 16 ? 1 : 2);

// Kernels of one buffer exist for the row and tensor-core tiles of 8- and 16-byte scalars, the
// tiles that run the items too large for two (16 kernels). Stream::can_run asks it at run time.
constexpr bool has_single(std::size_t scalar_bytes, bool row_or_mma_tile) {
  return scalar_bytes >= 8 && row_or_mma_tile;
}
template <class T, class TL>
constexpr bool kHasSingle = has_single(sizeof(T), TL::rows || TL::mma);

template <class T, class TL, bool SINGLE>
__global__ void __launch_bounds__(kThreads, kMinBlocks<T, TL>) stream_kernel(StreamArgs<T> s) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* const first = reinterpret_cast<T*>(smem_raw);
  const Lane lane = lane_of(s);
  std::int64_t g = blockIdx.x;
  if constexpr (SINGLE) {  // one buffer: each group's copies, then its products
    for (; g < s.groups; g += gridDim.x) {
      issue_group(s, g, first);
      wait_copies<0>();
      __syncthreads();
      if constexpr (TL::mma) {
        compute_group_mma<T, TL>(s, g, first);
      } else if constexpr (TL::item) {
        compute_group_items<T, TL>(s, g, first);
      } else if (!lane.idle) {
        compute_group<T, TL>(s, lane, g, first);
      }
      __syncthreads();  // the buffer is refilled next iteration
    }
    return;
  }
  issue_group(s, g, first);
  for (std::uint32_t b = 0; g < s.groups; g += gridDim.x, b ^= 1) {
    T* const buf = first + b * s.buffer;
    T* const other = first + (b ^ 1) * s.buffer;
    issue_group(s, g + gridDim.x, other);  // the next group, while this one computes
    wait_copies<1>();                      // this thread's copies of group g are done
    __syncthreads();                       // and every other thread's
    if constexpr (TL::mma) {
      compute_group_mma<T, TL>(s, g, buf);
    } else if constexpr (TL::item) {
      compute_group_items<T, TL>(s, g, buf);
    } else if (!lane.idle) {
      compute_group<T, TL>(s, lane, g, buf);
    }
    __syncthreads();  // buf is refilled by the copies issued next iteration
  }
  wait_copies<0>();  // nothing in flight when the block ends
}

// The largest of 16, 8, 4 dividing every address a copy starts at: the three bases and the
// distance between consecutive groups.
std::uint32_t granule_of(std::initializer_list<std::uintptr_t> offsets) {
  std::uintptr_t all = 0;
  for (std::uintptr_t o : offsets) all |= o;
  return all % 16 == 0 ? 16 : all % 8 == 0 ? 8 : 4;
}

// How a launch packs items: items per group, the shared bytes of its buffers, and whether it
// has one buffer (where two of one item pass kMaxBlockShared and the tile has such a kernel).
struct Plan {
  std::uint32_t items;
  std::size_t shared;
  bool single;
};

// How a transposed A (ta T or C: stored k x m, op(A)'s rows its stored columns, k elements each)
// is staged: `rows` rows of op(A), then `pad` elements of padding, and again.
// The tiles read op(A) down a column. A square tile's lanes read consecutive rows: where k is an
// even number of 16-byte runs those rows all start in one bank group (f32 k = 64: 32-way
// conflicts), so each row is padded by one run (an odd number of runs then): 32 rows meet four
// to a bank (f32 t=1 at m >= 32), 16 rows two (t=4 at m = 64). A row tile's lanes read rows TM
// apart, and where it reads them as runs along k (B as stored, k whole runs; m is a multiple of
// TM wherever a row tile runs) one run after each tile's TM rows puts a warp's loads in eight
// bank groups whatever k. Elsewhere, and for A as stored (lanes reading consecutive elements),
// nothing is padded. Only the tiles measured padded on the H200 (t= and v=, f32 f64 c32:
// bench/results/h200/README.md, "Transposed forms") pad: the tensor-core tiles (`lanes` 32) and
// c64 (16-byte elements, at 0.99 of N N's fraction unpadded) stage A as stored.
struct StagedA {
  std::uint32_t rows, pad;
};
template <class T>
StagedA staged_a(const Problem& p, int tm, int tn, int lanes, bool row_tile, bool item) {
  constexpr int V = kRunLength<T>;
  if (p.ta == Op::N || lanes != 1 || item || sizeof(T) == 16) return {1, 0};
  if (row_tile && reads_runs_along_k(true, false, tm, tn, V) && p.tb == Op::N && p.k % V == 0 &&
      p.m % tm == 0) {
    return {static_cast<std::uint32_t>(tm), static_cast<std::uint32_t>(V)};
  }
  return {1, p.k % (2 * V) == 0 ? static_cast<std::uint32_t>(V) : 0};
}

// tm x tn: a thread's tile, or (lanes 32) a warp's; `item`: the item tiles, which stage C
// whatever beta (compute_group_items).
template <class T>
Plan plan(const Problem& p, int tm, int tn, int lanes, bool row_tile, bool may_single, bool item) {
  if (p.m == 0 || p.n == 0 || p.k == 0 || p.batch == 0) return {1, 0, false};  // nothing staged
  const StagedA sa = staged_a<T>(p, tm, tn, lanes, row_tile, item);
  const std::int64_t a_elems = p.m * p.k + p.m / sa.rows * sa.pad;
  const bool staged_c = item || p.beta != 0.0;
  const std::size_t per_item =
      static_cast<std::size_t>(a_elems + p.k * p.n + (staged_c ? p.m * p.n : 0)) * sizeof(T);
  const std::size_t tiles = static_cast<std::size_t>(((p.m + tm - 1) / tm) * ((p.n + tn - 1) / tn));
  std::size_t items = kGroupBytes / per_item;
  const std::size_t workers = kThreads / static_cast<std::size_t>(lanes);
  const std::size_t fill = (workers + tiles - 1) / tiles;  // items that give each a tile
  if (items < fill) items = fill;
  const std::size_t fit = kMaxBlockShared / (2 * (per_item + 48));
  if (items > fit) items = fit;
  if (items >= 4) items -= items % 4;  // f32 groups a whole number of 16-byte granules
  if (items < 1) items = 1;
  if (items > static_cast<std::size_t>(p.batch)) items = static_cast<std::size_t>(p.batch);
  // Each of the three ranges padded to 16 bytes within a buffer.
  auto pad = [](std::size_t elems) { return (elems * sizeof(T) + 15) / 16 * 16 / sizeof(T); };
  const std::size_t buffer =
      pad(items * a_elems) + pad(items * p.k * p.n) + (staged_c ? pad(items * p.m * p.n) : 0);
  const bool single = may_single && 2 * buffer * sizeof(T) > kMaxBlockShared;
  return {static_cast<std::uint32_t>(items), (single ? 1 : 2) * buffer * sizeof(T), single};
}

// A launch's arguments, and how it packs items (tests/emulate runs the kernel with these on the
// host).
template <class T>
struct Setup {
  StreamArgs<T> s;
  Plan pl;
};

template <class T, class TL>
Setup<T> setup(const Problem& p) {
  const int lanes = TL::mma ? 32 : 1;
  const Plan pl = plan<T>(p, TL::tm, TL::tn, lanes, TL::rows, kHasSingle<T, TL>, TL::item);
  StreamArgs<T> s{};
  s.p = make_args<T>(p);
  s.items = pl.items;
  s.groups = (p.batch + pl.items - 1) / pl.items;
  s.side_i = static_cast<std::uint32_t>((p.m + TL::tm - 1) / TL::tm);
  s.side_j = static_cast<std::uint32_t>((p.n + TL::tn - 1) / TL::tn);
  s.per_item = Divisor::of(s.side_i * s.side_j);
  s.by_side_i = Divisor::of(s.side_i);
  s.ea = static_cast<std::uint32_t>(p.m * p.k);
  const StagedA sa = staged_a<T>(p, TL::tm, TL::tn, lanes, TL::rows, TL::item);
  s.ea_s = s.ea + static_cast<std::uint32_t>(p.m) / sa.rows * sa.pad;
  s.eb = static_cast<std::uint32_t>(p.k * p.n);
  s.ec = static_cast<std::uint32_t>(p.m * p.n);
  auto pad = [](std::size_t elems) {
    return static_cast<std::uint32_t>((elems * sizeof(T) + 15) / 16 * 16 / sizeof(T));
  };
  s.off_b = pad(std::size_t{pl.items} * s.ea_s);
  s.off_c = s.off_b + pad(std::size_t{pl.items} * s.eb);
  s.buffer = static_cast<std::uint32_t>(pl.shared / (pl.single ? 1 : 2) / sizeof(T));
  const auto m = static_cast<std::uint32_t>(p.m), n = static_cast<std::uint32_t>(p.n),
             k = static_cast<std::uint32_t>(p.k);
  // Stored m x k, or k x m: its rows padded one by one, or a row tile's TM at a time (where it
  // reads runs along k: runs_k, and compute_group adds the pads).
  s.sa = p.ta == Op::N ? Strides{1, m} : Strides{sa.rows == 1 ? k + sa.pad : k, 1};
  s.sb = p.tb == Op::N ? Strides{1, k} : Strides{n, 1};  // stored k x n, or n x k
  s.conj_a = p.ta == Op::C;
  s.conj_b = p.tb == Op::C;
  s.read_c = !s.p.beta_zero;
  // Row tiles read a column of A and of C as one vector when its TM rows are whole and every
  // item starts a whole number of runs (16 bytes, or 8 for two f32 rows) apart (m a multiple
  // of TM), C's base is aligned, and A is not transposed (conjugation only comes with a
  // transpose).
  const bool whole = TL::rows && p.m % TL::tm == 0;
  s.vec_a = whole && p.ta == Op::N;
  s.vec_c = whole && reinterpret_cast<std::uintptr_t>(p.c.base) % 16 == 0;
  // B's items and columns start 16 bytes apart in the buffer when k is a whole number of
  // 16-byte runs.
  s.vec_b = s.vec_a && p.tb == Op::N && p.k % kRunLength<T> == 0;
  // Runs along k for both operands: A transposed with its staged rows whole runs apart (and
  // any padding whole runs), B as stored (its columns k apart, items k n apart: whole runs
  // where k is).
  // (A row tile's pads come after its TM rows: compute_group adds them where runs_k is set.)
  s.runs_k = p.ta != Op::N && p.tb == Op::N && p.k % kRunLength<T> == 0 &&
             s.sa.sr % kRunLength<T> == 0 && sa.pad % kRunLength<T> == 0 &&
             (TL::rows ? sa.rows == static_cast<std::uint32_t>(TL::tm) : sa.rows == 1);
  // Runs along j: B transposed (stored n x k, op(B)'s row q at q n) with n a multiple of TN,
  // so every item, row and tile's first column starts on a 16-byte boundary of the buffer.
  // Only with op(A) = A read as vectors (N T, N C): with A transposed too, the k loop would hold
  // both ways of reading A.
  s.runs_j = reads_runs_along_j(TL::rows, TL::tn, static_cast<int>(sizeof(T))) && s.vec_a &&
             p.tb != Op::N && p.n % TL::tn == 0;
  const std::uintptr_t z = sizeof(T);
  s.granule = granule_of(
      {reinterpret_cast<std::uintptr_t>(p.a.base), reinterpret_cast<std::uintptr_t>(p.b.base),
       s.read_c ? reinterpret_cast<std::uintptr_t>(p.c.base) : 0, pl.items * s.ea * z,
       pl.items * s.eb * z, s.read_c ? pl.items * s.ec * z : 0});
  // The item tiles store the group's C range from the staged copy.
  s.granule_c = granule_of({reinterpret_cast<std::uintptr_t>(p.c.base), pl.items * s.ec * z});
  if (s.ea_s != s.ea) {  // padded: a stored column of A is k * sizeof(T) bytes
    s.a_row_units = Divisor::of(sa.rows * k * static_cast<std::uint32_t>(z) / s.granule);
    s.a_row_pad = sa.pad * static_cast<std::uint32_t>(z);
  }
  return {s, pl};
}

template <class T, class TL>
void launch_stream(const Problem& p, const CudaExec& exec) {
  const auto [s, pl] = setup<T, TL>(p);
  auto kernel = stream_kernel<T, TL, false>;
  if constexpr (kHasSingle<T, TL>) {
    if (pl.single) kernel = stream_kernel<T, TL, true>;
  }
  const int per_sm = exec.blocks_per_sm(reinterpret_cast<const void*>(kernel), kThreads, pl.shared);
  const std::int64_t resident = std::int64_t{exec.sms()} * (per_sm > 0 ? per_sm : 1);
  kernel<<<grid_dim(s.groups < resident ? s.groups : resident, kGridX), kThreads, pl.shared,
           exec.cuda_stream()>>>(s);
  check_launch("stream_kernel");
}

// Square tiles with rows side_i apart (`t=`), or 16 bytes of rows by TN columns (`v=`).
template <int TILE>
void launch_square(const Problem& p, const CudaExec& exec) {
  dispatch(p.dtype, [&]<class H>() {
    using T = device_t<H>;
    launch_stream<T, Tile<TILE, TILE, false>>(p, exec);
  });
}

template <int TN, int RUNS>
void launch_rows(const Problem& p, const CudaExec& exec) {
  dispatch(p.dtype, [&]<class H>() {
    using T = device_t<H>;
    launch_stream<T, Tile<RUNS * kRunLength<T>, TN, true>>(p, exec);
  });
}

// Two f32 rows (8 bytes) by TN columns: the row tiles' paths where m is even but not a multiple
// of 4 (f32 only: can_run).
template <int TN>
void launch_two_rows(const Problem& p, const CudaExec& exec) {
  dispatch(p.dtype, [&]<class H>() {
    using T = device_t<H>;
    if constexpr (std::is_same_v<T, float>) launch_stream<T, Tile<2, TN, true>>(p, exec);
  });
}

// One item a thread, m and n at most N (c64 at N = 4 only: can_run); with J < N, J columns of one
// a thread (f64 and c32 only: can_run).
template <int N, int J = N>
void launch_items(const Problem& p, const CudaExec& exec) {
  dispatch(p.dtype, [&]<class H>() {
    using T = device_t<H>;
    if constexpr (J < N ? sizeof(T) == 8 : N == 4 || sizeof(T) < 16) {
      launch_stream<T, ItemTile<N, J>>(p, exec);
    }
  });
}

// Warp tiles of W x W blocks of 8 x 8 on the f64 tensor cores (f64 and c64 only: can_run).
template <int W>
void launch_mma(const Problem& p, const CudaExec& exec) {
  dispatch(p.dtype, [&]<class H>() {
    using T = device_t<H>;
    if constexpr (std::is_same_v<T, double> || std::is_same_v<T, Cx<double>>) {
      launch_stream<T, MmaTile<W>>(p, exec);
    }
  });
}

class Stream final : public Candidate {
 public:
  // t=T: T x T tiles (runs 0); v=TN: `runs` 16-byte runs of rows by TN columns; mma=T (runs
  // kMma): a warp's T x T on the f64 tensor cores; i=T (runs kItem): an item of at most T x T a
  // thread, or with `cols` J of its columns; v=TN:rows=2 (runs kTwoRows): two f32 rows by TN.
  static constexpr int kMma = -1, kItem = -2, kTwoRows = -3;
  Stream(int tile, int runs, void (*launch)(const Problem&, const CudaExec&), int cols = 0)
      : tile_(tile),
        runs_(runs),
        cols_(cols),
        launch_(launch),
        spelling_(spell(tile, runs, cols) + GEMMROUTE_AB_SPELLING) {}
  std::string_view spelling() const override { return spelling_; }
  Provider provider() const override { return Provider::native; }
  Verdict can_run(const Problem& p) const override {
    if (const char* why = uniform_only(p.dtype)) return Verdict::no(why);
    if (runs_ == kMma && p.dtype != DType(Scalar::f64) && p.dtype != DType(Scalar::c64)) {
      return Verdict::no("the f64 tensor cores (mma.m8n8k4.f64) take f64 and c64 only");
    }
    if (runs_ == kTwoRows && p.dtype != DType(Scalar::f32)) {
      return Verdict::no("two rows are 8 bytes of f32 only (f64's and c32's v= tiles take two)");
    }
    if (p.m > kBound || p.n > kBound || p.k > kBound) {
      return Verdict::no("max(m, n, k) is over 64");
    }
    if (runs_ == kItem) {
      if (p.m > tile_ || p.n > tile_) return Verdict::no(kItemTooLarge[tile_]);
      if (tile_ > 4 && cols_ == 0 && p.dtype == DType(Scalar::c64)) {
        return Verdict::no("a c64 item of 8 x 8 a thread would hold 256 registers of sums");
      }
      if (cols_ != 0 && p.dtype == DType(Scalar::f32)) {
        return Verdict::no("f32 takes its items whole (i=8: 109 registers, no spill)");
      }
      if (cols_ != 0 && p.dtype == DType(Scalar::c64)) {
        return Verdict::no("c64 by columns was not faster than the v= tiles (H100, 2026-12-05)");
      }
    }
    if (!packed(p.a, p.rows_a(), p.cols_a(), p.batch) ||
        !packed(p.b, p.rows_b(), p.cols_b(), p.batch) || !packed(p.c, p.m, p.n, p.batch)) {
      return Verdict::no("A, B and C must each be packed (items back to back, ld == rows)");
    }
    const bool rows = runs_ > 0 || runs_ == kTwoRows;
    const int tm = runs_ == kTwoRows ? 2 : dispatch(p.dtype, [&]<class H>() {
      return runs_ > 0 ? runs_ * kRunLength<device_t<H>> : tile_;
    });
    const int lanes = runs_ == kMma ? 32 : 1;
    // Where m is not a multiple of a row tile's rows, a column of op(A) and C is not one vector
    // and the tile is a slower t= tile (measured on the H200: 0.8x to 1.0x of the best t=), so
    // it is not offered.
    if (rows && p.m % tm != 0) {
      return Verdict::no(runs_ == kTwoRows ? "m is odd (two f32 rows a run)" : kNotWhole[tm]);
    }
    const std::size_t shared = dispatch(p.dtype, [&]<class H>() {
      using T = device_t<H>;
      return plan<T>(p, tm, cols_ != 0 ? cols_ : tile_, lanes, rows,
                     has_single(sizeof(T), rows || runs_ == kMma), runs_ == kItem)
          .shared;
    });
    if (shared > kMaxShared) return Verdict::no("the buffers of one item exceed shared memory");
    return Verdict::yes();
  }
  void launch(const Problem& p, const Exec& e) const override {
    require_runnable(*this, p, e);
    const CudaExec& exec = cuda_exec(e);
    if (quick_path(p, exec)) return;
    if (p.m == 0 || p.n == 0 || p.batch == 0) return;
    launch_(p, exec);
  }

 private:
  static std::string spell(int tile, int runs, int cols) {
    if (runs == kMma) return "cuda.stream:mma=" + std::to_string(tile);
    if (runs == kItem && cols != 0) {
      return "cuda.stream:i=" + std::to_string(tile) + ":cols=" + std::to_string(cols);
    }
    if (runs == kItem) return "cuda.stream:i=" + std::to_string(tile);
    if (runs == 0) return "cuda.stream:t=" + std::to_string(tile);
    const std::string v = "cuda.stream:v=" + std::to_string(tile);
    if (runs == kTwoRows) return v + ":rows=2";
    return runs == 1 ? v : v + ":runs=" + std::to_string(runs);
  }
  // Why a row tile of that many rows is not offered (a c64 run is one row: always whole).
  static constexpr const char* kNotWhole[9] = {
      nullptr,
      nullptr,
      "m is not a multiple of 2 (16-byte row tiles of f64 and c32, 32-byte ones of c64)",
      nullptr,
      "m is not a multiple of 4 (16-byte row tiles of f32, 32-byte ones of f64 and c32)",
      nullptr,
      nullptr,
      nullptr,
      "m is not a multiple of 8 (32-byte row tiles of f32)"};
  // Why an item tile refuses m or n over its side.
  static constexpr const char* kItemTooLarge[9] = {
      nullptr,
      nullptr,
      nullptr,
      nullptr,
      "m or n is over 4 (one item of at most 4 x 4 a thread)",
      nullptr,
      nullptr,
      nullptr,
      "m or n is over 8 (one item of at most 8 x 8 a thread)"};
  static constexpr std::size_t kMaxShared = 227 * 1024;  // Hopper's opt-in limit per block
  int tile_;                                             // t=: T x T; v=: the columns TN
  int runs_;  // v=: 16-byte runs of rows (1 or 2); 0 for t=, kMma, kItem, kTwoRows
  int cols_;  // i=: the columns a thread takes, 0 for all of them
  void (*launch_)(const Problem&, const CudaExec&);
  std::string spelling_;
};

}  // namespace

// In an A/B build's patched copy: stream_candidates_ab, spelled `:ab=1` (candidates.hpp).
std::span<const Candidate* const> GEMMROUTE_AB_EXPORT(stream_candidates)() {
  static const Stream t1(1, 0, &launch_square<1>), t2(2, 0, &launch_square<2>),
      t4(4, 0, &launch_square<4>), v1(1, 1, &launch_rows<1, 1>), v2(2, 1, &launch_rows<2, 1>),
      v4(4, 1, &launch_rows<4, 1>), v4r2(4, 2, &launch_rows<4, 2>), mma8(8, -1, &launch_mma<1>),
      mma16(16, -1, &launch_mma<2>), i4(4, -2, &launch_items<4>), i8(8, -2, &launch_items<8>),
      i8c2(8, -2, &launch_items<8, 2>, 2), v4h(4, -3, &launch_two_rows<4>),
      v8h(8, -3, &launch_two_rows<8>);
  static const std::array<const Candidate*, 14> all = {&t1,   &t2,    &t4, &v1, &v2,   &v4,  &v4r2,
                                                       &mma8, &mma16, &i4, &i8, &i8c2, &v4h, &v8h};
  return all;
}

}  // namespace gemmroute::cuda
