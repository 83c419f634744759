// Helpers every CPU candidate shares: the parallel loop over a batch, and the BLAS quick path
// (alpha == 0 or k == 0: C <- beta * C, never reading A or B; beta == 0 never reads C).
#pragma once

#include <omp.h>

#include <atomic>
#include <complex>
#include <cstdint>

#include "core/dispatch.hpp"
#include "core/problem.hpp"

namespace gemmroute::cpu {

// The batch's work in real multiply-adds (a complex one is four), k + 1 counting the update
// of C.
inline double real_macs(const Problem& p) {
  return static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k + 1) *
         static_cast<double>(p.batch) * (is_complex(p.dtype) ? 4.0 : 1.0);
}

// One item's multiply-adds as m n k, the measure the libraries' thread thresholds use
// (OpenBLAS's kOpenBlasThreadedMnk, BLIS's kBlisSharedItemMnk).
inline double item_mnk(const Problem& p) {
  return static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k);
}

// The least work worth waking the OpenMP threads for, measured with cpu.small and cpu.tile
// against OpenBLAS (which always spreads a batch): 16^3 f32 x2 (8.7k) ran faster on one
// thread, 5^3 f64 x100 (15k) on two (docs/cpu-small-notes.md).
inline constexpr double kParallelMacs = 12288.0;

// The OpenMP threads, claimed by one launch at a time for one parallel region. A launch that
// finds them taken (the caller's other threads are inside gemmroute too) or that runs inside a
// region already (a grouped call runs whole groups on each thread) runs on its calling thread:
// callers on more threads than cores then each use one core, instead of each waking a team of
// its own and oversubscribing the cores (docs/under-load.md). Results do not change: every
// launch that spreads sums each element of C on one thread in a fixed order.
inline std::atomic<bool> threads_claimed{false};

class ThreadClaim {
 public:
  ThreadClaim() noexcept
      : held_(!omp_in_parallel() && !threads_claimed.load(std::memory_order_relaxed) &&
              !threads_claimed.exchange(true, std::memory_order_acquire)) {}
  ~ThreadClaim() {
    if (held_) threads_claimed.store(false, std::memory_order_release);
  }
  ThreadClaim(const ThreadClaim&) = delete;
  ThreadClaim& operator=(const ThreadClaim&) = delete;
  explicit operator bool() const noexcept { return held_; }

 private:
  bool held_;
};

// Runs body(i) for every item, spread over the OpenMP threads when the batch holds enough
// work (kParallelMacs) to pay for waking them and the threads are free (ThreadClaim). Each
// item runs on one thread in a fixed order, so results do not depend on the thread count.
template <class Body>
void for_each_item(const Problem& p, Body body) {
  if (p.batch > 1 && real_macs(p) >= kParallelMacs) {
    if (const ThreadClaim claim; claim) {
#pragma omp parallel for schedule(static)
      for (std::int64_t i = 0; i < p.batch; ++i) body(i);
      return;
    }
  }
  for (std::int64_t i = 0; i < p.batch; ++i) body(i);
}

// C(:, :) <- beta * C for one m x n item; beta == 0 writes zeros without reading C.
template <class T>
void scale_item(std::int64_t m, std::int64_t n, T beta, T* c, std::int64_t ldc) {
  for (std::int64_t j = 0; j < n; ++j) {
    T* col = c + j * ldc;
    if (beta == T(0)) {
      for (std::int64_t i = 0; i < m; ++i) col[i] = T(0);
    } else if (beta != T(1)) {
      for (std::int64_t i = 0; i < m; ++i) col[i] = beta * col[i];
    }
  }
}

// The quick path for the whole batch. Returns true when it applied (alpha == 0 or k == 0).
template <class T>
bool quick_path(const Problem& p) {
  if (p.k != 0 && p.alpha != std::complex<double>(0.0, 0.0)) return false;
  const T beta = p.beta_as<T>();
  for_each_item(p, [&](std::int64_t i) { scale_item(p.m, p.n, beta, p.item_c<T>(i), p.c.ld); });
  return true;
}

}  // namespace gemmroute::cpu
