// Fakes for the measuring interfaces (tests only): a clock that reports scripted times, and a
// device with host memory and a small pretend cache.
#pragma once

#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "measure/device.hpp"

namespace gemmroute::measure::testing {

// elapsed_us runs the work (so calls happen) and returns time_of(calls made during it, call
// index of this elapsed_us). Calls are counted by the arms themselves through count().
class FakeClock : public TimingSource {
 public:
  // per_batch(calls) -> microseconds for a batch of that many calls.
  std::function<double(std::int64_t calls, int batch_index)> time_of =
      [](std::int64_t calls, int) { return static_cast<double>(calls); };
  void count() { ++calls_; }
  double elapsed_us(const std::function<void()>& work) override {
    const std::int64_t before = calls_;
    work();
    return time_of(calls_ - before, batches_++);
  }
  int batches() const { return batches_; }

 private:
  std::int64_t calls_ = 0;
  int batches_ = 0;
};

class HostBuffer : public Buffer {
 public:
  explicit HostBuffer(std::size_t n) : bytes_((n + 63) / 64 * 64 + 64) {}
  void* data() override {
    auto p = reinterpret_cast<std::uintptr_t>(bytes_.data());
    return reinterpret_cast<void*>((p + 63) / 64 * 64);
  }
  std::size_t size() const override { return bytes_.size() - 64; }

 private:
  std::vector<char> bytes_;
};

class FakeDevice : public MeasureDevice {
 public:
  explicit FakeDevice(std::int64_t cache = 64 * 1024) : cache_(cache) {}
  double elapsed_us(const std::function<void()>& work) override {
    work();
    return 1.0;  // one microsecond per batch, whatever ran
  }
  std::string clock_name() const override { return "fake clock"; }
  std::int64_t cache_bytes() const override { return cache_; }
  std::string cache_source() const override { return "fake"; }
  std::string clocks() const override { return ""; }
  std::unique_ptr<Buffer> allocate(std::size_t bytes) override {
    ++allocations;
    return std::make_unique<HostBuffer>(bytes);
  }
  void upload(void* d, const void* s, std::size_t n) override { std::memcpy(d, s, n); }
  void download(void* d, const void* s, std::size_t n) override { std::memcpy(d, s, n); }
  void synchronize() override {}
  int allocations = 0;

 private:
  std::int64_t cache_;
};

}  // namespace gemmroute::measure::testing
