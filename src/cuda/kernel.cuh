// What every native CUDA kernel shares: the batch's operands and scalars as plain values
// passed by argument (Args<T>), built once per launch from the validated Problem, and the
// element accessors for the three forms. Included by the kernel files only.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "core/problem.hpp"
#include "cuda/scalar.cuh"

namespace gemmroute::cuda {

// One operand of the batch: item i at base + i * stride, or array[i] (device memory).
template <class T>
struct Matrices {
  T* base;
  T* const* array;
  std::int64_t ld;
  std::int64_t stride;

  __device__ T* item(std::int64_t i) const { return array ? array[i] : base + i * stride; }
};

// A batch as kernels see it. Forms: 0 N, 1 T, 2 C (conjugate transpose; real C is folded).
template <class T>
struct Args {
  std::int64_t m, n, k, batch;
  T alpha, beta;
  bool beta_zero;
  std::int8_t ta, tb;
  Matrices<const T> a, b;
  Matrices<T> c;
};

template <class T>
Args<T> make_args(const Problem& p) {
  auto operand = [](const Operand& o) {
    return Matrices<const T>{static_cast<const T*>(o.base),
                             reinterpret_cast<const T* const*>(o.array), o.ld, o.stride};
  };
  Args<T> a{};
  a.m = p.m;
  a.n = p.n;
  a.k = p.k;
  a.batch = p.batch;
  a.alpha = from_host<T>(p.alpha);
  a.beta = from_host<T>(p.beta);
  a.beta_zero = Ops<T>::is_zero(a.beta);
  a.ta = static_cast<std::int8_t>(p.ta);
  a.tb = static_cast<std::int8_t>(p.tb);
  a.a = operand(p.a);
  a.b = operand(p.b);
  a.c = Matrices<T>{static_cast<T*>(const_cast<void*>(p.c.base)),
                    reinterpret_cast<T* const*>(const_cast<void* const*>(p.c.array)), p.c.ld,
                    p.c.stride};
  return a;
}

// floor(x / d) by a multiply, magic = ceil(2^32 / d) = (2^32 + r) / d with r < d: the error
// x r / (d 2^32) stays below 1/d, so the quotient is exact while x d <= 2^32 (every use keeps
// x d below 2^28: d <= 64 * 64, x under 2^16).
struct Divisor {
  std::uint64_t magic;
  std::uint32_t d;
  __host__ __device__ static Divisor of(std::uint32_t d) {
    return {((std::uint64_t{1} << 32) + d - 1) / d, d};
  }
  __device__ std::uint32_t div(std::uint32_t x) const {
    return static_cast<std::uint32_t>((x * magic) >> 32);
  }
};

// N consecutive elements as one aligned vector of up to 16 bytes (one load or store), and how
// many elements of T make 16 bytes. A run of fewer than 16 bytes (two f32) is aligned to its own
// size, so it is loaded and stored as exactly that many bytes.
constexpr std::size_t run_alignment(std::size_t bytes) {
  return bytes < 16 ? bytes : 16;
}
template <class T, int N>
struct alignas(run_alignment(sizeof(T) * N)) Run {
  T v[N];
};
template <class T>
inline constexpr int kRunLength = static_cast<int>(16 / sizeof(T));

template <class T>
__device__ __forceinline__ T maybe_conj(T v, bool conj) {
  return conj ? Ops<T>::conj(v) : v;
}

// Whether one operand's items form one contiguous range with ld == rows (a single item needs
// only ld == rows). Pointer arrays never do.
inline bool packed(const Operand& o, std::int64_t rows, std::int64_t cols, std::int64_t batch) {
  if (o.array) return false;
  const std::int64_t r = rows < 1 ? 1 : rows;
  return o.ld == r && (batch == 1 || o.stride == r * cols);
}

// op(X)(r, c) of a matrix stored column-major with leading dimension ld.
template <class T>
__device__ __forceinline__ T op_elem(const T* x, std::int64_t ld, int form, std::int64_t r,
                                     std::int64_t c) {
  if (form == 0) return x[r + c * ld];
  const T v = x[c + r * ld];
  return form == 2 ? Ops<T>::conj(v) : v;
}

// alpha * acc + beta * c, reading c only when beta != 0 (the BLAS rule).
template <class T>
__device__ __forceinline__ void update(T* c, T acc, const Args<T>& p) {
  const T ab = Ops<T>::mul(p.alpha, acc);
  *c = p.beta_zero ? ab : Ops<T>::fma(p.beta, *c, ab);
}

// Asynchronous global -> shared copies of 4, 8 or 16 bytes (sm_80 on; plain copies before).
template <int BYTES>
__device__ __forceinline__ void copy_async(void* dst, const void* src) {
#if __CUDA_ARCH__ >= 800
  const auto s = static_cast<std::uint32_t>(__cvta_generic_to_shared(dst));
  if constexpr (BYTES == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(src));
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(s), "l"(src), "n"(BYTES));
  }
#else
  struct alignas(BYTES) Granule {
    unsigned char b[BYTES];
  };
#ifdef GEMMROUTE_EMULATED  // tests/emulate: a copy the GPU would fault on is counted
  if (reinterpret_cast<std::uintptr_t>(dst) % BYTES != 0 ||
      reinterpret_cast<std::uintptr_t>(src) % BYTES != 0) {
    report_misaligned(src, __LINE__);
  }
#endif
  *static_cast<Granule*>(dst) = *static_cast<const Granule*>(src);
#endif
}

__device__ __forceinline__ void commit_copies() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

// Waits until at most N of this thread's committed copy groups are still in flight.
template <int N>
__device__ __forceinline__ void wait_copies() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}

// Programmatic dependent launch (sm_90): a launch made with
// cudaLaunchAttributeProgrammaticStreamSerialization may start once every block of the launch
// before it has called let_the_next_launch_start (or ended), and its blocks must call
// wait_for_the_launch_before before they read what that launch wrote: it returns once the launch
// before has completed and its stores are seen. Both are no-ops in a launch that was not made
// dependent, and before sm_90.
__device__ __forceinline__ void let_the_next_launch_start() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
__device__ __forceinline__ void wait_for_the_launch_before() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// The host side of it: launches `kernel` on `grid` x `block` threads with `shared` bytes of
// dynamic shared memory on `stream`, made a programmatic dependent of the launch before it in
// the stream where `dependent` is set (so its blocks wait before they read); cudaLaunchKernelEx's
// status.
template <class... Params, class... Values>
cudaError_t launch_maybe_dependent(void (*kernel)(Params...), dim3 grid, dim3 block,
                                   std::size_t shared, cudaStream_t stream, bool dependent,
                                   Values&&... values) {
  cudaLaunchAttribute early[1];
  early[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  early[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared;
  config.stream = stream;
  config.attrs = dependent ? early : nullptr;
  config.numAttrs = dependent ? 1 : 0;
  return cudaLaunchKernelEx(&config, kernel, std::forward<Values>(values)...);
}

// Grid extents: CUDA caps y and z at 65535; kernels loop over what a grid does not cover.
inline unsigned grid_dim(std::int64_t want, std::int64_t cap) {
  return static_cast<unsigned>(std::clamp<std::int64_t>(want, 1, cap));
}
inline constexpr std::int64_t kGridYZ = 65535;
inline constexpr std::int64_t kGridX = 2147483647;

}  // namespace gemmroute::cuda
