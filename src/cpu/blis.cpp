// blis and blis:par=item: BLIS's typed expert API (bli_?gemm_ex) called per item, each call
// told through its own runtime object (rntm_t) how many threads it may use, so nothing global
// in BLIS is changed. BLIS reads op(A) and op(B) through row and column strides and
// conjugates itself, so every scalar and form is one call.
//
// `blis` spreads the batch over the OpenMP threads with one BLIS thread per item (a batch of
// one is then one thread: BLIS 0.9 has no size threshold of its own below which it stays on
// one). `blis:par=item` runs the items in sequence with all threads inside each item of at
// least kBlisSharedItemMnk, one thread inside smaller ones: the choice for few large items.
// The tuner measures which wins where.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "core/candidate.hpp"
#include "cpu/batch.hpp"
#include "cpu/candidates.hpp"
#include "cpu/libraries.hpp"

namespace gemmroute::cpu {
namespace {

// One BLIS call: C (m x n at c, ldc) <- alpha op(A) op(B) + beta C.
template <class T>
void call_blis(const BlisLibrary& lib, int ta, int tb, long long m, long long n, long long k,
               T* alpha, T* A, long long lda, T* B, long long ldb, T* beta, T* c, long long ldc,
               BlisLibrary::Runtime* rntm) {
  if constexpr (std::is_same_v<T, float>) {
    lib.sgemm(ta, tb, m, n, k, alpha, A, 1, lda, B, 1, ldb, beta, c, 1, ldc, nullptr, rntm);
  } else if constexpr (std::is_same_v<T, double>) {
    lib.dgemm(ta, tb, m, n, k, alpha, A, 1, lda, B, 1, ldb, beta, c, 1, ldc, nullptr, rntm);
  } else {
    auto fn = std::is_same_v<T, std::complex<float>> ? lib.cgemm : lib.zgemm;
    fn(ta, tb, m, n, k, alpha, A, 1, lda, B, 1, ldb, beta, c, 1, ldc, nullptr, rntm);
  }
}

// C <- alpha op(A) op(B) + beta C for one item, with `threads` BLIS threads.
//
// BLIS 0.9 (Debian's libblis4, seen on an AVX-512 Xeon) reads up to 8 bytes past the end of C's
// last column when beta != 0 (m = 2, 3, 15, 18, 31, ...: a 16-byte load over the column's
// tail). Past an earlier column's end that lands in the next column; past the last one it may
// land on an unmapped page: the API fuzzer's guard pages faulted there. So with beta != 0, where
// the 16 bytes after C's last element leave its 4 KiB page, C is computed in a copy with room
// after it and copied back; elsewhere the read stays on a page that holds C. Either way one BLIS
// call computes all of C, so the bytes do not depend on where C lies (two calls, the last
// column apart, gave other bits; and they cost `blis:par=item` 5-18% at one item of 13-110
// columns against BLIS called once: bench --peers, Intel VM).
constexpr std::size_t kOverRead = 16;  // bytes after C that BLIS may read, with a margin

inline bool over_read_leaves_page(const void* end) {
  constexpr std::uintptr_t kPage = 4096;
  const auto e = reinterpret_cast<std::uintptr_t>(end);
  return (e - 1) / kPage != (e + kOverRead - 1) / kPage;
}

template <class T>
void call_item(const BlisLibrary& lib, const Problem& p, const T* a, const T* b, T* c,
               long long threads) {
  BlisLibrary::Runtime rntm;
  rntm.num_threads = threads;
  T alpha = p.alpha_as<T>(), beta = p.beta_as<T>();
  // BLIS 0.9 leaves C out when beta is NaN (C came out finite where reference BLAS makes it
  // NaN: found by the API fuzzer): such a beta is applied here and BLIS called with beta = 1.
  if (std::isnan(p.beta.real()) || std::isnan(p.beta.imag())) {
    scale_item(p.m, p.n, beta, c, p.c.ld);
    beta = T(1);
  }
  const int ta = kBlisTrans[static_cast<int>(p.ta)], tb = kBlisTrans[static_cast<int>(p.tb)];
  T* A = const_cast<T*>(a);  // BLIS's signature is not const; it never writes A or B
  T* B = const_cast<T*>(b);
  const long long m = p.m, n = p.n, k = p.k, lda = p.a.ld, ldb = p.b.ld, ldc = p.c.ld;
  if (beta == T(0) || m == 0 || n == 0 || !over_read_leaves_page(c + (n - 1) * ldc + m)) {
    call_blis(lib, ta, tb, m, n, k, &alpha, A, lda, B, ldb, &beta, c, ldc, &rntm);
    return;
  }
  thread_local std::vector<T> copy;
  copy.resize(static_cast<std::size_t>(m * n) + kOverRead / sizeof(T) + 1);
  for (long long j = 0; j < n; ++j) std::copy_n(c + j * ldc, m, copy.data() + j * m);
  call_blis(lib, ta, tb, m, n, k, &alpha, A, lda, B, ldb, &beta, copy.data(), m, &rntm);
  for (long long j = 0; j < n; ++j) std::copy_n(copy.data() + j * m, m, c + j * ldc);
}

// The least m * n * k for which `blis:par=item` shares an item among the threads; smaller items
// run on one BLIS thread each. 2^15 is the smallest item at which `blis:par=item` won a row in
// any of the four CPU campaigns (4 x 256 x 32 and its permutations: one long side gives each
// thread its own micro-tiles). Below it, square items at batch 1 on a 2-core Xeon ran 1.35-4.1x
// slower on two BLIS threads than on one (n = 8, 16, 24, every scalar; docs/under-load.md),
// and where the cores are shared BLIS's spinning barriers make them far worse: this candidate's
// correctness test (its cases hold 2000 items of 3^3) took 358 s in a CI run against 0.4 s
// alone; with 4 threads on the 2 cores, 4.6 s before this rule and 0.18 s after.
constexpr double kBlisSharedItemMnk = 32768.0;

class Blis final : public Candidate {
 public:
  explicit Blis(bool par_item) : par_item_(par_item) {}
  std::string_view spelling() const override { return par_item_ ? "blis:par=item" : "blis"; }
  Provider provider() const override { return Provider::vendor; }
  Verdict can_run(const Problem& p) const override {
    if (!blis_library().ok()) return Verdict::no("library not found (BLIS, libblis.so.4)");
    if (const char* why = uniform_only(p.dtype)) return Verdict::no(why);
    return Verdict::yes();
  }
  void launch(const Problem& p, const Exec& exec) const override {
    if (!can_run(p).ok) require_runnable(*this, p, exec);  // throws: no workspace is used
    const BlisLibrary& lib = blis_library();
    dispatch(p.dtype, [&]<class T>() {
      if (quick_path<T>(p)) return;
      if (par_item_) {
        auto in_sequence = [&](long long threads) {
          for (std::int64_t i = 0; i < p.batch; ++i) {
            call_item<T>(lib, p, p.item_a<T>(i), p.item_b<T>(i), p.item_c<T>(i), threads);
          }
        };
        if (item_mnk(p) >= kBlisSharedItemMnk) {
          if (const ThreadClaim claim; claim) {
            in_sequence(omp_get_max_threads());
            return;
          }
        }
        in_sequence(1);
        return;
      }
      for_each_item(p, [&](std::int64_t i) {
        call_item<T>(lib, p, p.item_a<T>(i), p.item_b<T>(i), p.item_c<T>(i), 1);
      });
    });
  }

 private:
  bool par_item_;
};

}  // namespace

const Candidate& blis_candidate() {
  static const Blis instance(false);
  return instance;
}

const Candidate& blis_item_candidate() {
  static const Blis instance(true);
  return instance;
}

}  // namespace gemmroute::cpu
