// cuda.small:s=S:t=T:nb=NB: batches of small matrices, max(m, n, k) <= S, every scalar and
// form. Such batches are memory-bound (a 4 x 4 f32 item is 192 bytes for 128 flops), so the
// kernel is built around moving bytes at full bandwidth, not around the arithmetic:
//
// - A thread block owns NB whole items. Their op(A) and op(B) are staged in shared memory
//   once and every product reads them from there. When an operand is packed (items contiguous,
//   ld == rows), the block's NB items are one contiguous range of global memory, copied with
//   16-byte loads (shared memory is offset so that both sides share the 16-byte phase, so
//   unaligned and odd-sized ranges are vectorised too); otherwise element by element, still
//   coalesced along the stored columns. Conjugation is applied while staging.
// - Shared memory holds op(A) as m x k with i fastest and op(B) as n x k with j fastest, so the
//   compute loop reads both without bank conflicts whatever the form.
// - Each thread computes a T x T register tile of one item's C (rows i0 + u * S/T, columns
//   j0 + v * S/T), so every shared-memory load feeds T multiply-adds.
// - C is read (only when beta != 0) and written straight from registers: consecutive threads
//   hold consecutive rows, so the accesses are coalesced.
//
// Sizes are runtime values below S (threads past m or n compute on clamped rows and store
// nothing); k is a loop count. Instantiations: the configurations in kConfigs, for each of the
// four scalars (kConfigs.size() x 4 kernels); which one runs is the table's business.
#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "core/dispatch.hpp"
#include "cuda/candidates.hpp"
#include "cuda/check.hpp"
#include "cuda/exec.hpp"
#include "cuda/kernel.cuh"
#include "cuda/scale.hpp"

namespace gemmroute::cuda {
namespace {

// One configuration: the bound on max(m, n, k), the register tile, and items per block.
struct SmallConfig {
  int s, t, nb;
  int threads_per_item() const { return (s / t) * (s / t); }
  int threads() const { return nb * threads_per_item(); }
};

// Each size class with the item counts that give blocks of 128 to 512 threads.
constexpr std::array<SmallConfig, 11> kConfigs = {{
    {2, 1, 64},
    {2, 1, 128},
    {4, 2, 64},
    {4, 2, 128},
    {8, 2, 16},
    {8, 2, 32},
    {16, 2, 4},
    {16, 4, 16},
    {32, 4, 2},
    {32, 4, 4},
    {64, 4, 1},
}};

template <class T>
constexpr std::size_t shared_bytes(const SmallConfig& c) {
  return 2 * static_cast<std::size_t>(c.nb) * c.s * c.s * sizeof(T);
}

// floor(x / d) by a multiply, magic = ceil(2^32 / d) = (2^32 + r) / d with r < d: the error
// x r / (d 2^32) stays below 1/d, so the quotient is exact for x < 2^32 / d (here x, d < 2^17).
struct Divisor {
  std::uint64_t magic;
  std::uint32_t d;
  __host__ __device__ static Divisor of(std::uint32_t d) { return {((std::uint64_t{1} << 32) + d - 1) / d, d}; }
  __device__ std::uint32_t div(std::uint32_t x) const {
    return static_cast<std::uint32_t>((x * magic) >> 32);
  }
};

template <class T>
__device__ __forceinline__ T maybe_conj(T v, bool conj) {
  return conj ? Ops<T>::conj(v) : v;
}

// 16 bytes of T, for vector loads.
template <class T>
struct alignas(16) Vec {
  T v[16 / sizeof(T)];
};

// One operand's staging for a block: op(X) of the block's items goes into shared memory in the
// compute layout, op(A) as m x k (i + q * m) and op(B) as n x k (j + q * n). Element (r, c) of
// an item as stored (rows x cols) lands at r + c * rows, or at c + r * cols where the stored
// matrix is the transpose of that layout (`to_op`).
template <class T>
struct Staging {
  const T* base;           // first item of the block (strided) or null (pointer arrays)
  const T* const* array;   // pointer arrays, or null
  std::int64_t ld, stride;
  std::uint32_t rows, cols;  // as stored
  Divisor per_item, by_rows;  // rows * cols, rows
  bool packed;               // items contiguous with ld == rows: one range per block
  bool conj;
  bool to_op;                // stored (r, c) -> dst index c + r * cols (transpose) or r + c * rows
};

template <class T>
__device__ __forceinline__ void store_staged(T* dst, const Staging<T>& s, std::uint32_t e,
                                             const Divisor& per_item, const Divisor& rows, T v) {
  // e indexes the block's range as stored: item, then column-major within the item.
  if (!s.to_op) {
    dst[e] = maybe_conj(v, s.conj);
    return;
  }
  const std::uint32_t item = per_item.div(e);
  const std::uint32_t local = e - item * per_item.d;
  const std::uint32_t c = rows.div(local);
  const std::uint32_t r = local - c * rows.d;
  dst[item * per_item.d + c + r * s.cols] = maybe_conj(v, s.conj);
}

// Copies the block's `items` items of one operand into shared memory.
template <class T>
__device__ void stage(T* dst, const Staging<T>& s, std::int64_t item0, int items) {
  const std::uint32_t per = s.rows * s.cols;
  const std::uint32_t total = per * static_cast<std::uint32_t>(items);
  const Divisor& per_item = s.per_item;
  const Divisor& rows = s.by_rows;
  const int tid = threadIdx.x, nt = blockDim.x;
  if (s.packed) {
    const T* src = s.base + item0 * s.stride;
    constexpr int V = 16 / sizeof(T);
    const auto addr = reinterpret_cast<std::uintptr_t>(src);
    // A head of scalars up to the first 16-byte boundary, 16-byte vectors, a tail of scalars.
    // Starts that are not a whole number of elements past a boundary (c64 at 8 bytes) take
    // the element path below.
    if ((addr % 16) % sizeof(T) == 0) {
      const auto phase = static_cast<std::uint32_t>((addr % 16) / sizeof(T));
      const std::uint32_t head = (V - phase) % V;
      const std::uint32_t h = head < total ? head : total;
      for (std::uint32_t e = tid; e < h; e += nt) store_staged(dst, s, e, per_item, rows, src[e]);
      const std::uint32_t vecs = (total - h) / V;
      const Vec<T>* vsrc = reinterpret_cast<const Vec<T>*>(src + h);
      for (std::uint32_t w = tid; w < vecs; w += nt) {
        const Vec<T> x = vsrc[w];
#pragma unroll
        for (int l = 0; l < V; ++l) store_staged(dst, s, h + w * V + l, per_item, rows, x.v[l]);
      }
      for (std::uint32_t e = h + vecs * V + tid; e < total; e += nt) {
        store_staged(dst, s, e, per_item, rows, src[e]);
      }
      return;
    }
  }
  // Element by element: item, then column-major within the item; coalesced along columns.
  for (std::uint32_t e = tid; e < total; e += nt) {
    const std::uint32_t item = per_item.div(e);
    const std::uint32_t local = e - item * per;
    const std::uint32_t c = rows.div(local);
    const std::uint32_t r = local - c * s.rows;
    const T* x = s.array ? s.array[item0 + item] : s.base + (item0 + item) * s.stride;
    store_staged(dst, s, e, per_item, rows, x[r + static_cast<std::int64_t>(c) * s.ld]);
  }
}

template <class T>
struct SmallArgs {
  Args<T> p;
  Staging<T> a, b;
};

template <class T, int S, int TILE, int NB>
__global__ void __launch_bounds__(NB*(S / TILE) * (S / TILE))
    small_kernel(SmallArgs<T> args) {
  constexpr int kSide = S / TILE;         // threads per item along i (and along j)
  constexpr int kPer = kSide * kSide;     // threads per item
  extern __shared__ unsigned char smem_raw[];
  T* const as = reinterpret_cast<T*>(smem_raw);
  T* const bs = as + NB * S * S;
  const Args<T>& p = args.p;
  const int m = static_cast<int>(p.m), n = static_cast<int>(p.n), k = static_cast<int>(p.k);

  const Staging<T>& sa = args.a;
  const Staging<T>& sb = args.b;

  const int slot = threadIdx.x / kPer;          // which of the block's items
  const int ti = (threadIdx.x % kPer) % kSide;  // row and column of the thread's tile
  const int tj = (threadIdx.x % kPer) / kSide;
  const std::int64_t groups = (p.batch + NB - 1) / NB;
  for (std::int64_t g = blockIdx.x; g < groups; g += gridDim.x) {
    const std::int64_t item0 = g * NB;
    const int items = static_cast<int>(p.batch - item0 < NB ? p.batch - item0 : NB);
    stage(as, sa, item0, items);
    stage(bs, sb, item0, items);
    __syncthreads();
    if (slot < items) {
      const T* a = as + slot * m * k;
      const T* b = bs + slot * n * k;
      int ia[TILE], jb[TILE];
#pragma unroll
      for (int u = 0; u < TILE; ++u) {
        const int i = ti + u * kSide, j = tj + u * kSide;
        ia[u] = i < m ? i : m - 1;  // clamped: reads stay inside the item
        jb[u] = j < n ? j : n - 1;
      }
      T acc[TILE][TILE];
#pragma unroll
      for (int u = 0; u < TILE; ++u)
#pragma unroll
        for (int v = 0; v < TILE; ++v) acc[u][v] = Ops<T>::zero();
#pragma unroll 4
      for (int q = 0; q < k; ++q) {
        T x[TILE], y[TILE];
#pragma unroll
        for (int u = 0; u < TILE; ++u) x[u] = a[ia[u] + q * m];
#pragma unroll
        for (int v = 0; v < TILE; ++v) y[v] = b[jb[v] + q * n];
#pragma unroll
        for (int u = 0; u < TILE; ++u)
#pragma unroll
          for (int v = 0; v < TILE; ++v) acc[u][v] = Ops<T>::fma(x[u], y[v], acc[u][v]);
      }
      T* c = p.c.item(item0 + slot);
#pragma unroll
      for (int v = 0; v < TILE; ++v) {
        const int j = tj + v * kSide;
        if (j >= n) continue;
#pragma unroll
        for (int u = 0; u < TILE; ++u) {
          const int i = ti + u * kSide;
          if (i < m) update(c + i + static_cast<std::int64_t>(j) * p.c.ld, acc[u][v], p);
        }
      }
    }
    __syncthreads();  // the next group overwrites the staged operands
  }
}

// Whether one operand's items form one contiguous range with ld == rows (16-byte alignment is
// not needed: staging handles any element-aligned start).
bool packed(const Operand& o, std::int64_t rows, std::int64_t cols, std::int64_t batch) {
  if (o.array) return false;
  const std::int64_t r = rows < 1 ? 1 : rows;
  return o.ld == r && (batch == 1 || o.stride == r * cols);
}

// op(A) is m x k, staged as i + q * m: stored N (m x k) as is, stored T or C (k x m)
// transposed. op(B) is staged as j + q * n: stored N (k x n) transposed, stored T or C (n x k)
// as is.
template <class T>
Staging<T> staging(const Operand& o, std::int64_t rows, std::int64_t cols, Op op,
                   bool transpose, std::int64_t batch) {
  const auto r = static_cast<std::uint32_t>(rows), c = static_cast<std::uint32_t>(cols);
  return Staging<T>{static_cast<const T*>(o.base),
                    reinterpret_cast<const T* const*>(o.array),
                    o.ld,
                    o.stride,
                    r,
                    c,
                    Divisor::of(r * c),
                    Divisor::of(r),
                    packed(o, rows, cols, batch),
                    op == Op::C,
                    transpose};
}

template <class T, int S, int TILE, int NB>
void launch_small(const Problem& p, const CudaExec& exec) {
  constexpr SmallConfig c{S, TILE, NB};
  SmallArgs<T> args{make_args<T>(p),
                    staging<T>(p.a, p.rows_a(), p.cols_a(), p.ta, p.ta != Op::N, p.batch),
                    staging<T>(p.b, p.rows_b(), p.cols_b(), p.tb, p.tb == Op::N, p.batch)};
  const std::size_t smem = shared_bytes<T>(c);
  auto kernel = small_kernel<T, S, TILE, NB>;
  if (smem > 48 * 1024) {
    // Raising the limit is per kernel and process; it is idempotent, so no flag is kept.
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(smem)),
          "cudaFuncSetAttribute(small_kernel)");
  }
  const std::int64_t groups = (p.batch + NB - 1) / NB;
  kernel<<<grid_dim(groups, kGridX), c.threads(), smem, exec.cuda_stream()>>>(args);
  check_launch("small_kernel");
}

template <int S, int TILE, int NB>
void launch_config(const Problem& p, const CudaExec& exec) {
  dispatch(p.dtype, [&]<class H>() { launch_small<device_t<H>, S, TILE, NB>(p, exec); });
}

using Launcher = void (*)(const Problem&, const CudaExec&);

template <std::size_t I>
constexpr Launcher launcher_of() {
  constexpr SmallConfig c = kConfigs[I];
  return &launch_config<c.s, c.t, c.nb>;
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
        spelling_("cuda.small:s=" + std::to_string(config_.s) + ":t=" +
                  std::to_string(config_.t) + ":nb=" + std::to_string(config_.nb)) {}
  std::string_view spelling() const override { return spelling_; }
  Provider provider() const override { return Provider::native; }
  Verdict can_run(const Problem& p) const override {
    if (p.m > config_.s || p.n > config_.s || p.k > config_.s) {
      return Verdict::no("max(m, n, k) is over this configuration's size bound s");
    }
    const std::size_t smem = dispatch(
        p.dtype, [&]<class H>() { return shared_bytes<device_t<H>>(config_); });
    if (smem > kMaxShared) return Verdict::no("needs more shared memory than a block can have");
    return Verdict::yes();
  }
  void launch(const Problem& p, const Exec& e) const override {
    require_runnable(*this, p, e);
    const CudaExec& exec = cuda_exec(e);
    if (quick_path(p, exec)) return;
    launch_(p, exec);
  }

 private:
  // Hopper's opt-in limit per block (227 KiB); every configuration here fits for f32..c32.
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

std::span<const Candidate* const> small_candidates() {
  static const auto all = make_all(std::make_index_sequence<kConfigs.size()>());
  static const auto pointers = [] {
    std::array<const Candidate*, kConfigs.size()> out{};
    for (std::size_t i = 0; i < all.size(); ++i) out[i] = &all[i];
    return out;
  }();
  return pointers;
}

}  // namespace gemmroute::cuda
