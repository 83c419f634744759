// The CPU measuring device: steady_clock, 64-byte-aligned host memory, the last-level cache.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "core/backend.hpp"
#include "core/exec.hpp"
#include "gemmroute/error.hpp"
#include "measure/device.hpp"

namespace gemmroute::measure {
namespace {

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// "8192K", "32M", "1048576" -> bytes; 0 when unreadable.
std::int64_t parse_cache_size(const std::string& text) {
  if (text.empty()) return 0;
  char* end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (v <= 0 || end == text.c_str()) return 0;
  switch (*end) {
    case 'K': return v * 1024;
    case 'M': return v * 1024 * 1024;
    case 'G': return v * 1024 * 1024 * 1024;
    default: return v;
  }
}

struct HostBuffer final : Buffer {
  struct Free {
    void operator()(void* p) const noexcept { std::free(p); }
  };
  std::unique_ptr<void, Free> bytes;
  std::size_t n = 0;
  explicit HostBuffer(std::size_t size) : n(size) {
    const std::size_t rounded = (size + 63) / 64 * 64;
    bytes.reset(std::aligned_alloc(64, rounded == 0 ? 64 : rounded));
    if (!bytes) throw Error(Errc::invalid_argument, "memory", "cannot allocate operand memory");
  }
  void* data() override { return bytes.get(); }
  std::size_t size() const override { return n; }
};

class CpuDevice final : public MeasureDevice {
 public:
  CpuDevice() : cache_(cpu_last_level_cache()) {}
  double elapsed_us(const std::function<void()>& work) override {
    const auto t0 = std::chrono::steady_clock::now();
    work();
    const auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::micro>(t1 - t0).count();
  }
  std::string clock_name() const override { return "cpu wall clock (std::chrono::steady_clock)"; }
  std::int64_t cache_bytes() const override { return cache_.bytes; }
  std::string cache_source() const override { return cache_.source; }
  std::string clocks() const override {
    std::string gov = read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
    std::string boost = read_line("/sys/devices/system/cpu/cpufreq/boost");
    std::string out;
    if (!gov.empty()) out = "governor " + gov;
    if (!boost.empty()) out += std::string(out.empty() ? "" : ", ") + "boost " + boost;
    return out;
  }
  std::unique_ptr<Buffer> allocate(std::size_t bytes) override {
    return std::make_unique<HostBuffer>(bytes);
  }
  void upload(void* dst, const void* src, std::size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
  void download(void* dst, const void* src, std::size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
  void synchronize() override {}

 private:
  CacheSize cache_;
};

}  // namespace

CacheSize cpu_last_level_cache() {
  if (const char* env = std::getenv("GEMMROUTE_MEASURE_CACHE_BYTES"); env && *env) {
    if (std::int64_t v = parse_cache_size(env); v > 0) return {v, "GEMMROUTE_MEASURE_CACHE_BYTES"};
  }
  CacheSize best;
  int best_level = 0;
  for (int i = 0; i < 16; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    const std::string type = read_line(dir + "type");
    if (type.empty()) break;
    if (type != "Unified" && type != "Data") continue;
    const int level = std::atoi(read_line(dir + "level").c_str());
    const std::int64_t bytes = parse_cache_size(read_line(dir + "size"));
    if (bytes > 0 && level > best_level) {
      best_level = level;
      best = {bytes, "sysfs cpu0/cache/index" + std::to_string(i) + " (L" +
                         std::to_string(level) + ")"};
    }
  }
  if (best.bytes > 0) return best;
#ifdef _SC_LEVEL3_CACHE_SIZE
  if (long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE); l3 > 0) return {l3, "sysconf L3"};
  if (long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE); l2 > 0) return {l2, "sysconf L2"};
#endif
  return {std::int64_t{32} << 20, "assumed (no sysfs or sysconf figure)"};
}

#ifdef GEMMROUTE_WITH_CUDA
std::unique_ptr<MeasureDevice> make_cuda_measure_device(void* stream);  // cuda_device.cu
#endif

std::unique_ptr<MeasureDevice> make_measure_device(const Backend& backend, const Exec& exec) {
  if (backend.kind() == BackendKind::cpu) return std::make_unique<CpuDevice>();
#ifdef GEMMROUTE_WITH_CUDA
  if (backend.kind() == BackendKind::cuda) return make_cuda_measure_device(exec.stream());
#endif
  (void)exec;
  throw Error(Errc::unsupported, "device",
              "no measuring device for backend '" + std::string(backend.name()) +
                  "' (src/measure/device.hpp says what one needs)");
}

}  // namespace gemmroute::measure
