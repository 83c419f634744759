// What the host emulation of src/cuda's kernels shares (small_emulated.cpp, stream_emulated.cpp,
// reg_emulated.cpp): a block's threads as fibers with the barriers and shuffles of a GPU,
// operands whose unowned elements are NaN, a shared-memory buffer with a guard past its end, and
// an exact check of each product against a reference. Each program includes this once, then its
// kernels' extracted code (extract_kernels.py).
//
// What it cannot see: races between threads within one phase (fibers run one at a time between
// barriers, and asynchronous copies complete at once), timing, and anything the CUDA compiler
// does differently from the host compiler.
#pragma once

#include <setjmp.h>
#include <ucontext.h>

#include <algorithm>
#include <array>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuda/kernel.cuh"

uint3 threadIdx, blockIdx;
dim3 blockDim, gridDim;
unsigned char* g_shared;

namespace emulate {

long misaligned = 0;
long shared_overruns = 0;
long failures = 0;
long runs = 0;

// Fibers: each thread of a block runs until it reaches a barrier (of its warp, of the block or
// of the block's cluster) or ends. A warp's barrier opens when every lane of the warp that has
// not ended waits at one; the block's, when every thread that has not ended waits at it; the
// cluster's, when every thread of every block of the cluster that has not ended does. A barrier
// some threads never reach (they ended) is counted: on a GPU it would hang or be undefined.
//
// A cluster's blocks run one at a time from one of its barriers to the next, in an order
// shuffled at each (a GPU promises none): a block's static __shared__ arrays, function statics
// here, are then its own while it runs, as long as none is used across a cluster barrier.
namespace fibers {

constexpr int kMax = 2048;  // threads of a cluster: 8 blocks of 256
constexpr std::size_t kStack = 256 * 1024;
enum class State { runnable, at_warp, at_block, at_cluster, done };

ucontext_t context[kMax];
jmp_buf scheduler, resume[kMax];
char* stacks[kMax];
State state[kMax];
int predicate[kMax], result[kMax];
bool started[kMax];
int current;
long barriers_after_exit = 0;
std::function<void()>* body;
inline std::mt19937 cluster_order(2027);

inline void entry() {
  (*body)();
  state[current] = State::done;
  _longjmp(scheduler, 1);
}

inline int wait(State at, int p) {
  predicate[current] = p;
  state[current] = at;
  if (!_setjmp(resume[current])) _longjmp(scheduler, 1);
  return result[current];
}

// Opens every warp of fibers [begin, end) whose live lanes all wait at a warp barrier; true if
// one opened.
inline bool open_warps(int begin, int end) {
  bool opened = false;
  for (int w = begin; w < end; w += 32) {
    const int last = std::min(w + 32, end);
    int waiting = 0, live = 0;
    for (int i = w; i < last; ++i) {
      if (state[i] != State::done) ++live;
      if (state[i] == State::at_warp) ++waiting;
    }
    if (waiting == 0 || waiting != live) continue;
    if (live != last - w) ++barriers_after_exit;
    for (int i = w; i < last; ++i) {
      if (state[i] == State::at_warp) state[i] = State::runnable;
    }
    opened = true;
  }
  return opened;
}

// Runs the block of fibers [begin, end) until each of them has ended or waits at the cluster's
// barrier.
inline void run_phase(int begin, int end) {
  for (;;) {
    for (int i = begin; i < end; ++i) {
      if (state[i] != State::runnable) continue;
      current = i;
      threadIdx.x = static_cast<unsigned>(i - begin);
      if (_setjmp(scheduler)) continue;
      if (started[i]) _longjmp(resume[i], 1);
      started[i] = true;
      getcontext(&context[i]);
      context[i].uc_stack.ss_sp = stacks[i];
      context[i].uc_stack.ss_size = kStack;
      context[i].uc_link = nullptr;
      makecontext(&context[i], entry, 0);
      setcontext(&context[i]);
    }
    if (open_warps(begin, end)) continue;
    int at_block = 0, at_cluster = 0, done = 0, all = 1;
    for (int i = begin; i < end; ++i) {
      if (state[i] == State::at_block) {
        ++at_block;
        all &= predicate[i] != 0;
      }
      if (state[i] == State::at_cluster) ++at_cluster;
      if (state[i] == State::done) ++done;
    }
    if (at_block == 0 && at_cluster + done == end - begin) return;
    if (at_block + done != end - begin) {
      std::fprintf(stderr, "deadlock: threads wait at different barriers\n");
      std::exit(1);
    }
    if (done > 0) ++barriers_after_exit;
    for (int i = begin; i < end; ++i) {
      if (state[i] == State::at_block) {
        state[i] = State::runnable;
        result[i] = all;
      }
    }
  }
}

// A cluster of `blocks` blocks of `threads` each: enter(b) makes block b the one running
// (blockIdx, its shared memory) before each of its phases, and leave(b) follows the phase in
// which its last thread ended (a GPU frees its shared memory then: the cluster's other blocks
// must not read it after).
inline void run_cluster(int blocks, int threads, const std::function<void(int)>& enter,
                        const std::function<void(int)>& leave, std::function<void()> f) {
  body = &f;
  const int all = blocks * threads;
  if (all > kMax) {
    std::fprintf(stderr, "a cluster of %d threads: the emulator holds %d\n", all, kMax);
    std::exit(1);
  }
  for (int i = 0; i < all; ++i) {
    if (!stacks[i]) stacks[i] = static_cast<char*>(std::malloc(kStack));
    state[i] = State::runnable;
    started[i] = false;
  }
  std::vector<int> order(blocks);
  std::vector<bool> left(blocks, false);
  for (int b = 0; b < blocks; ++b) order[b] = b;
  for (;;) {
    std::shuffle(order.begin(), order.end(), cluster_order);
    for (const int b : order) {
      if (left[b]) continue;
      enter(b);
      run_phase(b * threads, (b + 1) * threads);
      left[b] = std::all_of(state + b * threads, state + (b + 1) * threads,
                            [](State s) { return s == State::done; });
      if (left[b]) leave(b);
    }
    int waiting = 0, done = 0;
    for (int i = 0; i < all; ++i) {
      if (state[i] == State::at_cluster) ++waiting;
      if (state[i] == State::done) ++done;
    }
    if (done == all) return;
    if (done > 0) ++barriers_after_exit;
    for (int i = 0; i < all; ++i) {
      if (state[i] == State::at_cluster) state[i] = State::runnable;
    }
  }
}

inline void run_block(int threads, std::function<void()> f) {
  run_cluster(1, threads, [](int) {}, [](int) {}, std::move(f));
}

// What a warp's lanes pass through a shuffle.
inline std::array<unsigned char, 16> lanes[kMax];

}  // namespace fibers

inline void report_misaligned(const void* at, int line) {
  if (misaligned++ < 5)
    std::fprintf(stderr, "misaligned vector access at line %d, %p\n", line, at);
}

}  // namespace emulate

void report_misaligned(const void* at, int line) {
  emulate::report_misaligned(at, line);
}
int __syncthreads_and(int predicate) {
  return emulate::fibers::wait(emulate::fibers::State::at_block, predicate);
}
void __syncthreads() {
  emulate::fibers::wait(emulate::fibers::State::at_block, 1);
}
double __shfl_sync(unsigned /*mask*/, double v, int source) {
  namespace f = emulate::fibers;
  const int me = f::current;
  std::memcpy(f::lanes[me].data(), &v, sizeof v);
  f::wait(f::State::at_warp, 1);  // every lane's value is in
  double r;
  std::memcpy(&r, f::lanes[(me & ~31) + source].data(), sizeof r);
  f::wait(f::State::at_warp, 1);  // every lane has read before any writes again
  return r;
}

namespace emulate {

using gemmroute::DType;
using gemmroute::Op;
using gemmroute::Operand;
using gemmroute::Problem;
using gemmroute::Scalar;
using gemmroute::cuda::Cx;
using cd = std::complex<double>;

template <class T>
constexpr bool kComplex = !std::is_same_v<T, float> && !std::is_same_v<T, double>;

template <class T>
Scalar scalar_of() {
  if constexpr (std::is_same_v<T, float>) return Scalar::f32;
  if constexpr (std::is_same_v<T, double>) return Scalar::f64;
  if constexpr (std::is_same_v<T, Cx<float>>) return Scalar::c32;
  if constexpr (std::is_same_v<T, Cx<double>>) return Scalar::c64;
}
template <class T>
cd to_cd(const T& v) {
  if constexpr (kComplex<T>) {
    return {v.re, v.im};
  } else {
    return {v, 0};
  }
}
template <class T>
T from_cd(cd v) {
  if constexpr (kComplex<T>) {
    using R = decltype(T{}.re);
    return T{static_cast<R>(v.real()), static_cast<R>(v.imag())};
  } else {
    return static_cast<T>(v.real());
  }
}
template <class T>
T nan_of() {
  constexpr double q = std::numeric_limits<double>::quiet_NaN();
  return from_cd<T>(cd(q, q));
}
template <class T>
bool is_nan(const T& v) {
  const cd c = to_cd(v);
  return std::isnan(c.real()) || std::isnan(c.imag());
}

template <class T>
std::vector<Op> forms() {
  if constexpr (kComplex<T>) {
    return {Op::N, Op::T, Op::C};
  } else {
    return {Op::N, Op::T};
  }
}

template <class F>
void each_scalar(F&& f) {
  f.template operator()<float>();
  f.template operator()<double>();
  f.template operator()<Cx<float>>();
  f.template operator()<Cx<double>>();
}

// How an operand's items are stored.
enum class Storage {
  packed,            // back to back from a 128-byte boundary
  packed_offset,     // back to back from one element (at most 8 bytes) past it
  strided,           // ld = rows + 3, items 5 elements further apart than they need
  array_contiguous,  // a pointer array to packed items
  array_aligned,     // a pointer array to separate items, each at a 16-byte boundary
  array_misaligned,  // ... each one element (at most 8 bytes) past one
  array_strided,     // a pointer array, ld = rows + 3
};
constexpr int kStorages = 7;
inline bool strided(Storage l) {
  return l == Storage::strided || l == Storage::array_strided;
}
inline bool separate(Storage l) {
  return l == Storage::array_aligned || l == Storage::array_misaligned;
}
inline bool array(Storage l) {
  return l >= Storage::array_contiguous;
}

inline std::mt19937 values(12345);

// One operand: its storage (every element no item owns is NaN) and each item's values.
template <class T>
struct Store {
  std::vector<unsigned char> raw;
  std::vector<T*> items;
  std::vector<const void*> pointers;
  Operand operand;
  std::int64_t ld = 0;
  std::vector<std::vector<cd>> value;  // per item, column-major rows x cols
};

// poison: the items' elements are NaN too (C where beta == 0: never read).
template <class T>
void make_store(Store<T>& s, Storage layout, std::int64_t rows, std::int64_t cols,
                std::int64_t batch, bool poison) {
  const std::int64_t z = sizeof(T);
  s.ld = std::max<std::int64_t>(rows, 1) + (strided(layout) ? 3 : 0);
  const std::int64_t per = s.ld * cols + (layout == Storage::strided ? 5 : 0);
  const std::int64_t gap = separate(layout) ? 7 : 0;
  std::int64_t offset = 0;
  if (layout == Storage::packed_offset || layout == Storage::array_misaligned) {
    offset = std::min<std::int64_t>(z, 8);
  }
  const std::int64_t elems = batch * (per + gap + 4 + 48 / z + 2) + 64;
  s.raw.assign(static_cast<std::size_t>(elems * z + 256), 0);
  const std::uintptr_t origin =
      (reinterpret_cast<std::uintptr_t>(s.raw.data()) + 127) / 128 * 128 + 64;
  T* const all = reinterpret_cast<T*>(origin + offset);
  const T nan = nan_of<T>();
  for (std::int64_t e = 0; e < elems - 8; ++e) std::memcpy(all + e, &nan, sizeof(T));
  s.items.resize(batch);
  s.pointers.resize(batch);
  s.value.resize(batch);
  std::uniform_int_distribution<int> d(-2, 2);
  for (std::int64_t i = 0; i < batch; ++i) {
    T* item = all + i * per;
    if (separate(layout)) {
      std::uintptr_t at = origin + i * ((per + gap) * z + 32);
      at = (at + 15) / 16 * 16 + offset;
      item = reinterpret_cast<T*>(at);
    }
    s.items[i] = item;
    s.pointers[i] = item;
    s.value[i].assign(rows * cols, cd(0, 0));
    for (std::int64_t c = 0; c < cols; ++c) {
      for (std::int64_t r = 0; r < rows; ++r) {
        const cd v = kComplex<T> ? cd(d(values), d(values)) : cd(d(values), 0);
        const T x = poison ? nan : from_cd<T>(v);
        std::memcpy(item + r + c * s.ld, &x, sizeof(T));
        if (!poison) s.value[i][r + c * rows] = v;
      }
    }
  }
  s.operand.ld = s.ld;
  if (array(layout)) {
    s.operand.array = s.pointers.data();
    s.operand.base = nullptr;
    s.operand.stride = 0;
  } else {
    s.operand.base = all;
    s.operand.array = nullptr;
    s.operand.stride = per;
  }
}

inline std::vector<unsigned char> shared_buffer;
constexpr std::size_t kGuard = 2048;

// A block's epoch: a kernel's static __shared__ arrays, function statics here, are made NaN
// again at the first thread of each block (each new epoch) that reaches them.
inline std::uint64_t block_epoch = 0;
inline std::uint64_t epochs_made = 0;

inline unsigned char* nan_buffer(std::vector<unsigned char>& buffer, std::size_t bytes) {
  buffer.assign(bytes + kGuard + 1024, 0xFF);
  return reinterpret_cast<unsigned char*>(
      (reinterpret_cast<std::uintptr_t>(buffer.data()) + 1023) / 1024 * 1024);
}

// A block's dynamic shared memory: `bytes` of NaN (0xFF in every scalar), then a guard.
inline void prepare_shared(std::size_t bytes) {
  g_shared = nan_buffer(shared_buffer, bytes);
  block_epoch = ++epochs_made;
}

// A cluster's blocks, by rank: each one's dynamic shared memory as prepare_shared makes it, and
// its epoch. enter_cluster_block(b) makes block b's the running block's.
inline dim3 cluster_dim;
inline std::vector<std::vector<unsigned char>> cluster_buffers;
inline std::vector<unsigned char*> cluster_shared;
inline std::vector<std::uint64_t> cluster_epochs;
inline void prepare_cluster(int blocks, std::size_t bytes) {
  cluster_buffers.resize(blocks);
  cluster_shared.resize(blocks);
  cluster_epochs.resize(blocks);
  for (int b = 0; b < blocks; ++b) {
    cluster_shared[b] = nan_buffer(cluster_buffers[b], bytes);
    cluster_epochs[b] = ++epochs_made;
  }
}
inline void enter_cluster_block(int b) {
  g_shared = cluster_shared[b];
  block_epoch = cluster_epochs[b];
}

// Where a kernel declares a static __shared__ array (extract_kernels.py puts the call after the
// declaration): its bytes are NaN the first time a block's thread passes, as the dynamic buffer's
// are, so a read of an element no thread of the block wrote fails the exact comparison instead of
// finding the block before's value. Threads run as fibers one at a time, and a kernel declares
// its arrays before using them, so the first thread's poisoning comes before any write.
inline void poison_static(void* at, std::size_t bytes) {
  static std::map<void*, std::uint64_t> seen;
  std::uint64_t& epoch = seen[at];
  if (epoch == block_epoch) return;
  epoch = block_epoch;
  std::memset(at, 0xFF, bytes);
}

inline void check_guard(std::size_t bytes, const char* what) {
  for (std::size_t i = bytes; i < bytes + kGuard; ++i) {
    if (g_shared[i] != 0xFF) {
      if (shared_overruns++ < 5) {
        std::fprintf(stderr, "%s wrote byte %zu of %zu shared bytes\n", what, i, bytes);
      }
      return;
    }
  }
}

struct Case {
  std::string kernel;  // as reported
  std::int64_t m, n, k, batch;
  Op ta, tb;
  Storage la, lb, lc;
  cd alpha, beta;
};

// Random storage, beta (0 or not) and batch (1..40, or 300..349 a quarter of the time: several
// blocks and a partial last one). `layouts` below kStorages limits A's and B's storage to the
// first ones, and C takes A's (cuda.stream runs only where all three are packed).
template <class T>
void randomize(Case& c, std::mt19937& r, int layouts = kStorages) {
  c.la = static_cast<Storage>(r() % layouts);
  c.lb = static_cast<Storage>(r() % layouts);
  const Storage outs[] = {Storage::packed, Storage::strided, Storage::array_aligned};
  c.lc = layouts == kStorages ? outs[r() % 3] : c.la;
  c.alpha = kComplex<T> ? cd(2, 1) : cd(2, 0);
  c.beta = r() % 2 ? cd(0, 0) : (kComplex<T> ? cd(1, -1) : cd(-1, 0));
  c.batch = r() % 4 == 0 ? 300 + r() % 50 : 1 + r() % 40;
}

inline void describe(const Case& c, const char* scalar) {
  std::fprintf(stderr,
               "  %s %s m=%lld n=%lld k=%lld batch=%lld %c %c storage %d %d %d beta=(%g,%g)\n",
               c.kernel.c_str(), scalar, static_cast<long long>(c.m), static_cast<long long>(c.n),
               static_cast<long long>(c.k), static_cast<long long>(c.batch),
               "NTC"[static_cast<int>(c.ta)], "NTC"[static_cast<int>(c.tb)], static_cast<int>(c.la),
               static_cast<int>(c.lb), static_cast<int>(c.lc), c.beta.real(), c.beta.imag());
}

// A case's operands, the problem that names them, and C's values before the call.
template <class T>
struct Operands {
  Problem p;
  Store<T> a, b, out;
  std::vector<std::vector<cd>> before;
};

template <class T>
void prepare(const Case& c, Operands<T>& o) {
  Problem& p = o.p;
  p.dtype = DType(scalar_of<T>());
  p.ta = c.ta;
  p.tb = c.tb;
  p.m = c.m;
  p.n = c.n;
  p.k = c.k;
  p.batch = c.batch;
  p.alpha = c.alpha;
  p.beta = c.beta;
  make_store(o.a, c.la, p.rows_a(), p.cols_a(), c.batch, false);
  make_store(o.b, c.lb, p.rows_b(), p.cols_b(), c.batch, false);
  make_store(o.out, c.lc, c.m, c.n, c.batch, c.beta == cd(0, 0));
  o.before = o.out.value;
  p.a = o.a.operand;
  p.b = o.b.operand;
  p.c = o.out.operand;
}

// Every element of C exactly (the inputs are small integers), and C's rows past m keep their NaN.
// `clean`: no misaligned access or shared overrun while it ran. Counts the run.
template <class T>
void check(const Case& c, const Operands<T>& o, bool clean) {
  ++runs;
  const bool beta_zero = c.beta == cd(0, 0);
  bool ok = clean;
  for (std::int64_t i = 0; i < c.batch && ok; ++i) {
    const std::vector<cd>& a = o.a.value[i];
    const std::vector<cd>& b = o.b.value[i];
    const T* const got_c = o.out.items[i];
    for (std::int64_t j = 0; j < c.n && ok; ++j) {
      for (std::int64_t r = 0; r < c.m && ok; ++r) {
        cd sum = 0;
        for (std::int64_t q = 0; q < c.k; ++q) {
          cd x = c.ta == Op::N ? a[r + q * c.m] : a[q + r * c.k];
          cd y = c.tb == Op::N ? b[q + j * c.k] : b[j + q * c.n];
          if (c.ta == Op::C) x = std::conj(x);
          if (c.tb == Op::C) y = std::conj(y);
          sum += x * y;
        }
        const cd want = c.alpha * sum + (beta_zero ? cd(0, 0) : c.beta * o.before[i][r + j * c.m]);
        const cd got = to_cd(got_c[r + j * o.out.ld]);
        if (got != want) {
          std::fprintf(stderr, "  item %lld C(%lld, %lld) = (%g, %g), not (%g, %g)\n",
                       static_cast<long long>(i), static_cast<long long>(r),
                       static_cast<long long>(j), got.real(), got.imag(), want.real(), want.imag());
          ok = false;
        }
      }
    }
    for (std::int64_t j = 0; j < c.n && ok; ++j) {
      for (std::int64_t r = c.m; r < o.out.ld; ++r) {
        if (!is_nan(got_c[r + j * o.out.ld])) {
          std::fprintf(stderr, "  item %lld: C(%lld, %lld), past m, written\n",
                       static_cast<long long>(i), static_cast<long long>(r),
                       static_cast<long long>(j));
          ok = false;
          break;
        }
      }
    }
  }
  if (!ok && failures++ < 20) {
    const char* names[] = {"f32", "f64", "c32", "c64"};
    describe(c, names[static_cast<int>(scalar_of<T>())]);
  }
}

// Builds the case's operands, runs `run(problem)` and checks C. A `run` that returns false (the
// kernel refuses the case) is not counted or checked, and run_case returns false.
template <class T, class Run>
bool run_case(const Case& c, Run&& run) {
  Operands<T> o;
  prepare(c, o);
  const long misaligned_before = misaligned, overruns_before = shared_overruns;
  if constexpr (std::is_same_v<decltype(run(o.p)), bool>) {
    if (!run(o.p)) return false;
  } else {
    run(o.p);
  }
  check(c, o, misaligned == misaligned_before && shared_overruns == overruns_before);
  return true;
}

// The summary line, and the exit status: 0 where nothing was wrong.
inline int finish(const std::string& what, const char* file) {
  std::printf(
      "%s: %ld runs, %ld wrong, %ld misaligned, %ld shared overruns, %ld barriers after an exit\n",
      what.c_str(), runs, failures, misaligned, shared_overruns, fibers::barriers_after_exit);
  const bool clean =
      failures == 0 && misaligned == 0 && shared_overruns == 0 && fibers::barriers_after_exit == 0;
  if (clean) std::printf("ok: %s emulated\n", file);
  return clean ? 0 : 1;
}

}  // namespace emulate

// The cluster of the block running (cuda_runtime.h's cooperative_groups): ranks along x, then y,
// then z, as a GPU numbers them.
void cooperative_groups::cluster_group::sync() const {
  emulate::fibers::wait(emulate::fibers::State::at_cluster, 1);
}
unsigned cooperative_groups::cluster_group::block_rank() const {
  const dim3 d = emulate::cluster_dim;
  return blockIdx.x % d.x + d.x * (blockIdx.y % d.y + d.y * (blockIdx.z % d.z));
}
unsigned cooperative_groups::cluster_group::num_blocks() const {
  const dim3 d = emulate::cluster_dim;
  return d.x * d.y * d.z;
}
void* cooperative_groups::cluster_group::map_shared(void* at, unsigned rank) {
  const auto offset = static_cast<unsigned char*>(at) - g_shared;
  const auto& buffer = emulate::cluster_buffers.at(rank);
  if (offset < 0 || static_cast<std::size_t>(offset) >= buffer.size()) {
    std::fprintf(stderr, "map_shared_rank: not the block's dynamic shared memory\n");
    std::exit(1);
  }
  return emulate::cluster_shared.at(rank) + offset;
}
