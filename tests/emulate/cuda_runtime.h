// Stands in for the CUDA runtime's header when src/cuda's kernels are compiled for the host by
// tests/emulate (host.hpp): the qualifiers vanish, the built-in variables are globals the
// emulator sets for each thread it runs, and the barriers and shuffles are its own. Nothing
// here is used by the library.
#pragma once
// src/cuda/kernel.cuh's host path of an asynchronous copy reports a misaligned one.
#define GEMMROUTE_EMULATED 1
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

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

// A launch with attributes (a thread-block cluster's dimensions; a launch made dependent on the
// one before, which the emulator runs after it as it runs every launch): the emulator runs
// `body` as every block of the config's grid, a cluster's blocks together (emulate_launch_ex,
// defined by the program that launches: reg_emulated.cpp, whose check_clusters uses it).
enum cudaLaunchAttributeID {
  cudaLaunchAttributeClusterDimension = 4,
  cudaLaunchAttributeProgrammaticStreamSerialization = 6,
};
struct cudaLaunchAttributeValue {
  struct {
    unsigned x, y, z;
  } clusterDim;
  int programmaticStreamSerializationAllowed;
};
struct cudaLaunchAttribute {
  cudaLaunchAttributeID id;
  cudaLaunchAttributeValue val;
};
struct cudaLaunchConfig_t {
  dim3 gridDim, blockDim;
  std::size_t dynamicSmemBytes = 0;
  cudaStream_t stream = nullptr;
  cudaLaunchAttribute* attrs = nullptr;
  unsigned numAttrs = 0;
};
void emulate_launch_ex(const cudaLaunchConfig_t& config, const std::function<void()>& body);
enum cudaError_t { cudaSuccess = 0 };
template <class... P, class... A>
cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t* config, void (*kernel)(P...),
                               A&&... args) {
  std::tuple<P...> held(std::forward<A>(args)...);
  emulate_launch_ex(*config, [&] { std::apply(kernel, held); });
  return cudaSuccess;
}

// The cluster of the block running: its barrier, its blocks' ranks and their shared memory
// (host.hpp).
namespace cooperative_groups {
struct cluster_group {
  void sync() const;
  unsigned block_rank() const;
  unsigned num_blocks() const;
  template <class T>
  T* map_shared_rank(T* at, unsigned rank) const {
    return static_cast<T*>(map_shared(const_cast<std::remove_cv_t<T>*>(at), rank));
  }
  static void* map_shared(void* at, unsigned rank);
};
inline cluster_group this_cluster() { return {}; }
}  // namespace cooperative_groups
