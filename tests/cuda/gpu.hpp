// GPU test support: whether a CUDA device is here (tests skip with the reason when not),
// device mirrors of the host test buffers of tests/support.hpp, and the CUDA backend with one
// set of execution resources shared by a test binary.
#pragma once

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "support.hpp"

namespace gemmroute::test {

// Empty when a CUDA device can be used; else why not (printed by GTEST_SKIP).
inline const std::string& gpu_missing() {
  static const std::string why = [] {
    // Without a driver the runtime takes a while to say so; the library's absence is quick.
    if (void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
      dlclose(driver);
    } else {
      return std::string("no CUDA device: the driver (libcuda.so.1) is not installed");
    }
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
      cudaGetLastError();
      return std::string("no CUDA device: cudaGetDeviceCount: ") + cudaGetErrorName(status);
    }
    return count > 0 ? std::string() : std::string("no CUDA device visible");
  }();
  return why;
}

#define GEMMROUTE_REQUIRE_GPU()                                        \
  do {                                                                 \
    if (!::gemmroute::test::gpu_missing().empty())                     \
      GTEST_SKIP() << "skipped: " << ::gemmroute::test::gpu_missing(); \
  } while (0)

inline void cuda_ok(cudaError_t status, const char* what) {
  ASSERT_EQ(status, cudaSuccess) << what << ": " << cudaGetErrorString(status);
}

// One allocation of device memory.
struct DeviceMemory {
  void* ptr = nullptr;
  std::size_t bytes = 0;
  explicit DeviceMemory(std::size_t n = 0) : bytes(n) {
    if (n) cuda_ok(cudaMalloc(&ptr, n), "cudaMalloc");
  }
  ~DeviceMemory() {
    if (ptr) cudaFree(ptr);
  }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  DeviceMemory(DeviceMemory&& o) noexcept : ptr(o.ptr), bytes(o.bytes) { o.ptr = nullptr; }
  DeviceMemory& operator=(DeviceMemory&& o) noexcept {
    std::swap(ptr, o.ptr);
    std::swap(bytes, o.bytes);
    return *this;
  }
};

// A device copy of a host Buffer: the same elements, sentinels included, `shift` elements into
// its allocation (shift 1 makes a base that is only element-aligned), and for pointer storage
// a device array of item pointers.
template <class T>
struct Mirror {
  DeviceMemory data;
  DeviceMemory pointers;
  std::int64_t shift = 0;
  const Buffer<T>* host = nullptr;

  Mirror(const Buffer<T>& h, std::int64_t element_shift = 0)
      : data((h.data.size() + element_shift) * sizeof(T)), shift(element_shift), host(&h) {
    cuda_ok(cudaMemcpy(base(), h.data.data(), h.data.size() * sizeof(T), cudaMemcpyHostToDevice),
            "upload");
    std::vector<const void*> ptrs;
    for (const void* p : h.pointers) {
      ptrs.push_back(base() + (static_cast<const T*>(p) - h.data.data()));
    }
    if (!ptrs.empty()) {
      pointers = DeviceMemory(ptrs.size() * sizeof(void*));
      cuda_ok(cudaMemcpy(pointers.ptr, ptrs.data(), ptrs.size() * sizeof(void*),
                         cudaMemcpyHostToDevice),
              "upload pointers");
    }
    // A pageable cudaMemcpy may return before its copy lands; launches on another stream
    // must not overtake it.
    cuda_ok(cudaDeviceSynchronize(), "upload");
  }
  T* base() const { return static_cast<T*>(data.ptr) + shift; }
  Operand operand(Storage s) const {
    if (test::pointer_storage(s)) {
      return Operand{nullptr, static_cast<const void* const*>(pointers.ptr), host->ld, 0};
    }
    return Operand{base(), nullptr, host->ld, host->stride};
  }
  std::vector<T> download() const {
    std::vector<T> out(host->data.size());
    cuda_ok(cudaMemcpy(out.data(), base(), out.size() * sizeof(T), cudaMemcpyDeviceToHost),
            "download");
    return out;
  }
};

// The CUDA backend of cuda:0 and one Exec for the whole test binary.
struct Gpu {
  std::unique_ptr<Backend> backend;
  std::unique_ptr<Exec> exec;
  static Gpu& get() {
    static Gpu g = [] {
      Gpu x;
      x.backend = make_backend(Device::cuda(0));
      x.exec = x.backend->make_exec(nullptr);
      return x;
    }();
    return g;
  }
  void sync() const {
    cuda_ok(cudaStreamSynchronize(static_cast<cudaStream_t>(exec->stream())), "synchronize");
  }
};

// Fewer shapes when set (the compute-sanitizer runs of scripts/gpu-check use it).
inline bool quick_suite() {
  const char* v = std::getenv("GEMMROUTE_GPU_TEST_QUICK");
  return v && std::strcmp(v, "1") == 0;
}

}  // namespace gemmroute::test
