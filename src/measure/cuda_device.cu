// The CUDA measuring device: CUDA events recorded on the stream the candidates launch on,
// device memory from cudaMalloc, the L2 as the cache operand rotation must defeat, and the
// clocks and power NVML reports (read through dlopen, when the driver has it). The GPU is kept
// busy for half a second before the first sample, so clocks have ramped up.
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cstdio>
#include <string>

#include "gemmroute/error.hpp"
#include "measure/device.hpp"

namespace gemmroute::measure {
namespace {

void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) {
    throw Error(Errc::internal, "cuda",
                std::string(call) + " failed: " + cudaGetErrorName(status) + ": " +
                    cudaGetErrorString(status));
  }
}

// Spins for about `cycles` clock cycles on every multiprocessor.
__global__ void busy_kernel(long long cycles, int* sink) {
  const long long start = clock64();
  int x = threadIdx.x;
  while (clock64() - start < cycles) x = x * 1664525 + 1013904223;
  if (x == 42) *sink = x;  // never, but the loop is not dead code
}

struct DeviceBuffer final : Buffer {
  void* p = nullptr;
  std::size_t n = 0;
  explicit DeviceBuffer(std::size_t bytes) : n(bytes) {
    check(cudaMalloc(&p, bytes == 0 ? 64 : bytes), "cudaMalloc(operands)");
  }
  ~DeviceBuffer() override { cudaFree(p); }
  void* data() override { return p; }
  std::size_t size() const override { return n; }
};

// The few NVML calls used, by dlopen, so nothing links against the driver's library.
class Nvml {
 public:
  Nvml() {
    handle_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle_) return;
    init_ = reinterpret_cast<int (*)()>(dlsym(handle_, "nvmlInit_v2"));
    by_bus_ = reinterpret_cast<int (*)(const char*, void**)>(
        dlsym(handle_, "nvmlDeviceGetHandleByPciBusId_v2"));
    clock_ =
        reinterpret_cast<int (*)(void*, int, unsigned*)>(dlsym(handle_, "nvmlDeviceGetClockInfo"));
    power_ = reinterpret_cast<int (*)(void*, unsigned*)>(dlsym(handle_, "nvmlDeviceGetPowerUsage"));
    driver_ =
        reinterpret_cast<int (*)(char*, unsigned)>(dlsym(handle_, "nvmlSystemGetDriverVersion"));
    ok_ = init_ && by_bus_ && clock_ && init_() == 0;
  }
  // "sm 1980 MHz, memory 3201 MHz, power 612 W, driver 580.159.04", or empty.
  std::string describe(const char* bus_id) const {
    if (!ok_) return {};
    void* dev = nullptr;
    if (by_bus_(bus_id, &dev) != 0) return {};
    unsigned sm = 0, mem = 0, mw = 0;
    std::string out;
    if (clock_(dev, 1, &sm) == 0) out += "sm " + std::to_string(sm) + " MHz";  // NVML_CLOCK_SM
    if (clock_(dev, 2, &mem) == 0) out += ", memory " + std::to_string(mem) + " MHz";
    if (power_ && power_(dev, &mw) == 0) out += ", power " + std::to_string(mw / 1000) + " W";
    char version[96] = {};
    if (driver_ && driver_(version, sizeof version) == 0) out += ", driver " + std::string(version);
    return out;
  }

 private:
  void* handle_ = nullptr;
  int (*init_)() = nullptr;
  int (*by_bus_)(const char*, void**) = nullptr;
  int (*clock_)(void*, int, unsigned*) = nullptr;
  int (*power_)(void*, unsigned*) = nullptr;
  int (*driver_)(char*, unsigned) = nullptr;
  bool ok_ = false;
};

class CudaDevice final : public MeasureDevice {
 public:
  explicit CudaDevice(cudaStream_t stream) : stream_(stream) {
    check(cudaStreamGetDevice(stream_, &device_), "cudaStreamGetDevice");
    check(cudaSetDevice(device_), "cudaSetDevice");
    int l2 = 0;
    check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device_),
          "cudaDeviceGetAttribute(L2CacheSize)");
    l2_ = l2;
    check(cudaDeviceGetPCIBusId(bus_id_, sizeof bus_id_, device_), "cudaDeviceGetPCIBusId");
    check(cudaEventCreate(&start_), "cudaEventCreate");
    check(cudaEventCreate(&stop_), "cudaEventCreate");
    warm();
  }
  ~CudaDevice() override {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  double elapsed_us(const std::function<void()>& work) override {
    check(cudaEventRecord(start_, stream_), "cudaEventRecord");
    work();
    check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
    check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return static_cast<double>(ms) * 1000.0;
  }
  std::string clock_name() const override {
    return "CUDA events around the launches on the Context's stream (cudaEventElapsedTime)";
  }
  std::int64_t cache_bytes() const override { return l2_; }
  std::string cache_source() const override { return "cudaDevAttrL2CacheSize"; }
  std::string clocks() const override { return nvml_.describe(bus_id_); }
  std::unique_ptr<Buffer> allocate(std::size_t bytes) override {
    return std::make_unique<DeviceBuffer>(bytes);
  }
  void upload(void* dst, const void* src, std::size_t bytes) override {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync");
    synchronize();
  }
  void download(void* dst, const void* src, std::size_t bytes) override {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_), "cudaMemcpyAsync");
    synchronize();
  }
  void synchronize() override {
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    check(cudaGetLastError(), "a kernel launched on the stream");
  }

 private:
  // Half a second of every multiprocessor spinning, so the first sample does not see the
  // clocks ramping up from idle.
  void warm() {
    int rate_khz = 0;
    check(cudaDeviceGetAttribute(&rate_khz, cudaDevAttrClockRate, device_),
          "cudaDeviceGetAttribute(ClockRate)");
    int sms = 0;
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device_),
          "cudaDeviceGetAttribute(MultiProcessorCount)");
    int* sink = nullptr;
    check(cudaMalloc(&sink, sizeof(int)), "cudaMalloc");
    const long long cycles = static_cast<long long>(rate_khz) * 500;  // 0.5 s at the base rate
    busy_kernel<<<sms * 4, 128, 0, stream_>>>(cycles, sink);
    check(cudaGetLastError(), "busy_kernel");
    synchronize();
    cudaFree(sink);
  }

  cudaStream_t stream_;
  int device_ = 0;
  std::int64_t l2_ = 0;
  char bus_id_[32] = {};
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  Nvml nvml_;
};

}  // namespace

std::unique_ptr<MeasureDevice> make_cuda_measure_device(void* stream) {
  return std::make_unique<CudaDevice>(static_cast<cudaStream_t>(stream));
}

}  // namespace gemmroute::measure
