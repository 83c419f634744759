// Stands in for the CUDA runtime's header when src/cuda's kernels are compiled for the host by
// tests/emulate (host.hpp): the qualifiers vanish, the built-in variables are globals the
// emulator sets for each thread it runs, and the barriers and shuffles are its own. Nothing
// here is used by the library.
#pragma once
// src/cuda/kernel.cuh's host path of an asynchronous copy reports a misaligned one.
#define GEMMROUTE_EMULATED 1
#include <algorithm>
#include <cstdint>
#include <type_traits>

#define __host__
#define __device__
#define __global__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __grid_constant__
#define __shared__
#define __align__(n) alignas(n)

struct uint3 {
  unsigned x = 0, y = 0, z = 0;
};
struct dim3 {
  unsigned x = 1, y = 1, z = 1;
};
using cudaStream_t = struct CUstream_st*;
struct alignas(16) float4 {
  float x, y, z, w;
};
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
using std::max;  // the device's overloads of min and max
using std::min;
extern uint3 threadIdx, blockIdx;
extern dim3 blockDim, gridDim;
int __syncthreads_and(int predicate);
void __syncthreads();
// One thread runs at a time: an atomic is a plain update, a fence orders nothing more, and a
// load around the L1 cache is a load.
inline unsigned atomicAdd(unsigned* at, unsigned v) {
  const unsigned old = *at;
  *at = old + v;
  return old;
}
inline void __threadfence() {}
template <class T>
inline T __ldcg(const T* at) {
  return *at;
}
double __shfl_sync(unsigned mask, double v, int source);

// The extracted kernel code's reinterpret_casts become checked_cast (extract_kernels.py): a cast
// to a pointer of 8- or 16-byte alignment at an address that is not so aligned counts as a
// misaligned access (the GPU would fault on it) where `used`: the pointer is dereferenced (always,
// but for the casts of extract_kernels.py's WHEN).
void report_misaligned(const void* at, int line);
template <class P, class X>
inline P checked_cast(int line, bool used, X x) {
  if constexpr (std::is_pointer_v<P> && std::is_pointer_v<X>) {
    using E = std::remove_cv_t<std::remove_pointer_t<P>>;
    if constexpr (!std::is_void_v<E>) {
      if constexpr (alignof(E) >= 8) {
        if (used && reinterpret_cast<std::uintptr_t>(x) % alignof(E) != 0) {
          report_misaligned(x, line);
        }
      }
    }
  }
  return reinterpret_cast<P>(x);
}
