// What the harness needs from a device, and nothing more: a clock, operand memory, and the size
// of the cache that operand rotation must defeat. The CPU implements it with steady_clock, host
// memory and the last-level cache; a GPU implements it with device events around the launches,
// device memory and L2. Tests inject fakes (tests/measure/fakes.hpp), never the library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "gemmroute/types.hpp"

namespace gemmroute {
class Backend;
class Exec;
}

namespace gemmroute::measure {

// The clock. elapsed_us runs `work` once and returns how long the device took to do it, in
// microseconds: wall time on the CPU; on a GPU, the time between events recorded before and
// after the launches `work` enqueues (then synchronised).
class TimingSource {
 public:
  virtual ~TimingSource() = default;
  virtual double elapsed_us(const std::function<void()>& work) = 0;
};

// Device memory the candidates can read and write. Owns its bytes.
class Buffer {
 public:
  virtual ~Buffer() = default;
  virtual void* data() = 0;
  virtual std::size_t size() const = 0;
};

class MeasureDevice : public TimingSource {
 public:
  // One line for results files and tables: the clock and where the cache size came from.
  virtual std::string clock_name() const = 0;
  // The cache operand rotation must overflow (CPU: last-level cache; GPU: L2), in bytes.
  virtual std::int64_t cache_bytes() const = 0;
  virtual std::string cache_source() const = 0;  // "sysfs index3", "cudaDevAttrL2CacheSize"
  // Clock or power settings if readable ("governor performance"), else empty.
  virtual std::string clocks() const = 0;
  // Zero-initialised is not required; alignment at least 64 bytes.
  virtual std::unique_ptr<Buffer> allocate(std::size_t bytes) = 0;
  virtual void upload(void* device_dst, const void* host_src, std::size_t bytes) = 0;
  virtual void download(void* host_dst, const void* device_src, std::size_t bytes) = 0;
  // Waits until every launch so far has finished.
  virtual void synchronize() = 0;
};

// The measuring device for a backend, timing the launches made with `exec` (on its stream);
// throws Error(unsupported) where none exists. `exec` must outlive it.
std::unique_ptr<MeasureDevice> make_measure_device(const Backend& backend, const Exec& exec);

// The CPU's last-level cache in bytes and where the figure came from: the environment variable
// GEMMROUTE_MEASURE_CACHE_BYTES when set ("8M", "8192K" or bytes; for machines whose sysfs
// figure is wrong, such as VMs that report the host's), else sysfs
// (/sys/devices/system/cpu/cpu0/cache/index*, the highest level of a data or unified cache),
// else sysconf, else 32 MiB ("assumed").
struct CacheSize {
  std::int64_t bytes = 0;
  std::string source;
};
CacheSize cpu_last_level_cache();

}  // namespace gemmroute::measure
