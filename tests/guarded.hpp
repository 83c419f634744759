// Memory that ends exactly where a PROT_NONE page begins, so that a read or a write past its
// end faults: for tests of what a kernel or library touches after an operand.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <stdexcept>

namespace gemmroute::test {

class GuardedBytes {
 public:
  // At least `bytes` writable bytes before end(), the guard page at end().
  explicit GuardedBytes(std::size_t bytes) {
    const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    length_ = ((bytes + page - 1) / page + 1) * page;
    base_ = mmap(nullptr, length_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base_ == MAP_FAILED) throw std::runtime_error("GuardedBytes: mmap failed");
    end_ = static_cast<char*>(base_) + length_ - page;
    if (mprotect(end_, page, PROT_NONE) != 0) {
      munmap(base_, length_);
      throw std::runtime_error("GuardedBytes: mprotect failed");
    }
  }
  ~GuardedBytes() { munmap(base_, length_); }
  GuardedBytes(const GuardedBytes&) = delete;
  GuardedBytes& operator=(const GuardedBytes&) = delete;

  char* end() const { return end_; }

 private:
  void* base_ = nullptr;
  std::size_t length_ = 0;
  char* end_ = nullptr;
};

}  // namespace gemmroute::test
