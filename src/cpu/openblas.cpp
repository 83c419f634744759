// openblas and openblas:par=item: OpenBLAS's cblas_?gemm called per item, and cblas_sbgemm
// for bf16:f32:f32 where the library has it (builds with BUILD_BFLOAT16; Debian's does not,
// so it is looked up when the library is opened). Other mixed dtypes and TF32 are not
// OpenBLAS's: refused.
//
// OpenBLAS is called through its own handle (libraries.hpp), never the global symbol scope.
//
// Before the first launch, each OpenMP thread writes the start of one OpenBLAS scratch buffer
// (warm_buffers). OpenBLAS's kernels prefetch past the end of what they packed, and a prefetch
// into a page never written costs a page walk every time: on this machine a fresh process ran
// f32 256^3 in 3.5 ms where one that had once run a larger GEMM took 1.0 ms. Warming makes
// OpenBLAS's speed independent of what the process ran before (docs/decisions.md).
//
// `openblas` spreads the batch over the OpenMP threads; Debian's OpenMP build of OpenBLAS runs
// single-threaded inside a parallel region. A batch of one calls OpenBLAS outside any parallel
// region, so it uses its own threads. `openblas:par=item` runs the items in sequence and lets
// OpenBLAS thread each one: the better choice for few large items (measured by the tuner).
#include <cmath>
#include <complex>
#include <cstring>
#include <vector>

#include "core/candidate.hpp"
#include "cpu/batch.hpp"
#include "cpu/candidates.hpp"
#include "cpu/libraries.hpp"
#include "gemmroute/error.hpp"

namespace gemmroute::cpu {
namespace {

using Library = OpenBlasLibrary;
constexpr int kColMajor = kCblasColMajor;
constexpr const int* kTrans = kCblasTrans;

constexpr std::int64_t kIntMax = 2147483647;

// How much of each scratch buffer warm_buffers writes (OpenBLAS's buffers are 32 MiB or more
// on x86_64; 128 MiB in this build). The largest extent a GEMM used in the measurements was
// 3.6 MiB (c64 1024^3); beyond that the calls are long enough for the prefetch misses not to
// matter.
constexpr std::size_t kWarmBytes = std::size_t{8} << 20;

// Takes one scratch buffer per OpenMP thread, all held at once so each thread gets its own,
// as a GEMM called from each thread of a parallel region would, and writes its first
// kWarmBytes.
void warm_buffers(const Library& lib) {
  if (!lib.memory_alloc || !lib.memory_free) return;
#pragma omp parallel
  {
    void* buffer = lib.memory_alloc(0);
#pragma omp barrier
    if (buffer) std::memset(buffer, 0, kWarmBytes);
#pragma omp barrier
    if (buffer) lib.memory_free(buffer);
  }
}

// The buffers OpenBLAS's own worker threads keep are reached only through a threaded call.
// These two fill every worker's packed panels (f32 and f64 panels end at different places);
// measured, threaded calls afterwards ran as fast as after a long mixed workload. About 1.3
// GFLOP: some 25 ms on 2 cores.
void warm_worker_buffers(const Library& lib) {
  constexpr int kM = 1024, kN = 1024, kKf = 384, kKd = 256;
  std::vector<double> zeros(std::size_t{kM} * kN + std::size_t{2} * kM * kKf);
  double* c = zeros.data();
  double* a = c + std::size_t{kM} * kN;
  double* b = a + std::size_t{kM} * kKf;
  const int n = kTrans[0];
  lib.sgemm(kColMajor, n, n, kM, kN, kKf, 1.0f, reinterpret_cast<const float*>(a), kM,
            reinterpret_cast<const float*>(b), kKf, 0.0f, reinterpret_cast<float*>(c), kM);
  lib.dgemm(kColMajor, n, n, kM, kN, kKd, 1.0, a, kM, b, kKd, 0.0, c, kM);
}

// Where OpenBLAS 0.3.21 starts to use its threads: m * n * k of 64^3 (its SMP threshold).
constexpr double kOpenBlasThreadedMnk = 262144.0;

// Each warming runs once per process, before the first call that needs it.
void warm_once(const Library& lib, const Problem& p, bool threaded_items) {
  static const bool buffers = (warm_buffers(lib), true);
  (void)buffers;
  if (!threaded_items || item_mnk(p) < kOpenBlasThreadedMnk) return;
  static const bool workers = (warm_worker_buffers(lib), true);
  (void)workers;
}

// OpenBLAS 0.3.21's complex beta step takes a beta of (0, NaN) for zero: C is overwritten
// where reference BLAS makes it NaN. A beta with a NaN part is applied here (C <- beta * C)
// and OpenBLAS called with beta = 1.
bool beta_has_nan(const Problem& p) {
  return std::isnan(p.beta.real()) || std::isnan(p.beta.imag());
}

template <class T>
void call_gemm(const Library& lib, const Problem& p, const T* a, const T* b, T* c) {
  const int ta = kTrans[static_cast<int>(p.ta)], tb = kTrans[static_cast<int>(p.tb)];
  const int m = static_cast<int>(p.m), n = static_cast<int>(p.n), k = static_cast<int>(p.k);
  const int lda = static_cast<int>(p.a.ld), ldb = static_cast<int>(p.b.ld);
  const int ldc = static_cast<int>(p.c.ld);
  const T alpha = p.alpha_as<T>();
  T beta = p.beta_as<T>();
  if (beta_has_nan(p)) {
    scale_item(p.m, p.n, beta, c, p.c.ld);
    beta = T(1);
  }
  if constexpr (std::is_same_v<T, float>) {
    lib.sgemm(kColMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  } else if constexpr (std::is_same_v<T, double>) {
    lib.dgemm(kColMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  } else if constexpr (std::is_same_v<T, std::complex<float>>) {
    lib.cgemm(kColMajor, ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
  } else {
    lib.zgemm(kColMajor, ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
  }
}

constexpr DType kBf16ToF32{Scalar::bf16, Scalar::f32, Compute::f32};

// One bf16:f32:f32 item through cblas_sbgemm.
void call_sbgemm(const Library& lib, const Problem& p, std::int64_t i) {
  const int ta = kTrans[static_cast<int>(p.ta)], tb = kTrans[static_cast<int>(p.tb)];
  float* c = p.item_c<float>(i);
  float beta = static_cast<float>(p.beta.real());
  if (std::isnan(beta)) {
    scale_item(p.m, p.n, beta, c, p.c.ld);
    beta = 1.0f;
  }
  lib.sbgemm(kColMajor, ta, tb, static_cast<int>(p.m), static_cast<int>(p.n), static_cast<int>(p.k),
             static_cast<float>(p.alpha.real()),
             reinterpret_cast<const unsigned short*>(p.item_a<bfloat16>(i)),
             static_cast<int>(p.a.ld),
             reinterpret_cast<const unsigned short*>(p.item_b<bfloat16>(i)),
             static_cast<int>(p.b.ld), beta, c, static_cast<int>(p.c.ld));
}

class OpenBlas final : public Candidate {
 public:
  explicit OpenBlas(bool par_item)
      : par_item_(par_item), lib_(openblas_library()), found_(lib_.ok()) {}
  std::string_view spelling() const override {
    return par_item_ ? "openblas:par=item" : "openblas";
  }
  Provider provider() const override { return Provider::vendor; }
  Verdict can_run(const Problem& p) const override {
    if (!found_) return Verdict::no("libopenblas.so.0 not found (or lacks cblas_?gemm)");
    if (!is_uniform(p.dtype)) {
      if (p.dtype != kBf16ToF32) {
        return Verdict::no("OpenBLAS runs f32, f64, c32, c64 and bf16:f32:f32 only");
      }
      if (!lib_.sbgemm) return Verdict::no("this OpenBLAS lacks cblas_sbgemm (bf16)");
    }
    // All are non-negative (validated), so one test covers them.
    if ((p.m | p.n | p.k | p.a.ld | p.b.ld | p.c.ld) > kIntMax) {
      return Verdict::no("a size or leading dimension exceeds OpenBLAS's 32-bit int");
    }
    return Verdict::yes();
  }
  void launch(const Problem& p, const Exec& exec) const override {
    if (!can_run(p).ok) require_runnable(*this, p, exec);  // throws: no workspace is used
    const Library& lib = lib_;
    const bool threaded_items = par_item_ || p.batch == 1;  // OpenBLAS threads each item
    warm_once(lib, p, threaded_items);
    if (p.dtype == kBf16ToF32) return launch_sbgemm(p, threaded_items);
    dispatch(p.dtype, [&]<class T>() {
      // Reference BLAS's quick path, done here so no vendor quirk can read A, B or a NaN C.
      if (quick_path<T>(p)) return;
      auto one = [&](std::int64_t i) {
        call_gemm<T>(lib, p, p.item_a<T>(i), p.item_b<T>(i), p.item_c<T>(i));
      };
      if (!threaded_items) {
        if (const ThreadClaim claim; claim) {
#pragma omp parallel for schedule(static)
          for (std::int64_t i = 0; i < p.batch; ++i) one(i);
          return;
        }
      }
      for (std::int64_t i = 0; i < p.batch; ++i) one(i);
    });
  }

 private:
  void launch_sbgemm(const Problem& p, bool threaded_items) const {
    if (quick_path<float>(p)) return;  // C is f32: the f32 quick path applies
    if (!threaded_items) {
      if (const ThreadClaim claim; claim) {
#pragma omp parallel for schedule(static)
        for (std::int64_t i = 0; i < p.batch; ++i) call_sbgemm(lib_, p, i);
        return;
      }
    }
    for (std::int64_t i = 0; i < p.batch; ++i) call_sbgemm(lib_, p, i);
  }

  bool par_item_;
  const Library& lib_;  // found once, when the candidate is first used
  bool found_;
};

}  // namespace

bool openblas_single_threaded(const Candidate& c, const Problem& p) {
  const double mnk = item_mnk(p);
  if (&c == &openblas_candidate()) return p.batch > 1 || mnk < kOpenBlasThreadedMnk;
  if (&c == &openblas_item_candidate()) return mnk < kOpenBlasThreadedMnk;
  return false;
}

const Candidate& openblas_candidate() {
  static const OpenBlas instance(false);
  return instance;
}

const Candidate& openblas_item_candidate() {
  static const OpenBlas instance(true);
  return instance;
}

}  // namespace gemmroute::cpu
