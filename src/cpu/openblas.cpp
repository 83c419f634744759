// openblas and openblas:par=item: OpenBLAS's cblas_?gemm called per item.
//
// OpenBLAS is opened with dlopen(RTLD_LOCAL) and its functions taken from that handle, never
// through the global symbol scope: in libgemmroute_blas.so (the drop-in BLAS) the global
// cblas_sgemm is our own, and calling it would recurse.
//
// `openblas` spreads the batch over the OpenMP threads; Debian's OpenMP build of OpenBLAS runs
// single-threaded inside a parallel region. A batch of one calls OpenBLAS outside any parallel
// region, so it uses its own threads. `openblas:par=item` runs the items in sequence and lets
// OpenBLAS thread each one: the better choice for few large items (measured by the tuner).
#include <dlfcn.h>

#include <complex>
#include <mutex>

#include "core/candidate.hpp"
#include "cpu/batch.hpp"
#include "cpu/candidates.hpp"
#include "gemmroute/error.hpp"

namespace gemmroute::cpu {
namespace {

// CBLAS enum values (cblas.h).
constexpr int kColMajor = 102;
constexpr int kTrans[] = {111, 112, 113};  // N, T, C

using RealGemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int,
                          float, float*, int);
using DoubleGemm = void (*)(int, int, int, int, int, int, double, const double*, int, const double*,
                            int, double, double*, int);
using ComplexGemm = void (*)(int, int, int, int, int, int, const void*, const void*, int,
                             const void*, int, const void*, void*, int);
using CharFn = char* (*)();

struct Library {
  void* handle = nullptr;
  RealGemm sgemm = nullptr;
  DoubleGemm dgemm = nullptr;
  ComplexGemm cgemm = nullptr;
  ComplexGemm zgemm = nullptr;
  CharFn config = nullptr;
  CharFn corename = nullptr;

  bool ok() const { return sgemm && dgemm && cgemm && zgemm; }
};

const Library& library() {
  static const Library lib = [] {
    Library l;
    for (const char* name : {"libopenblas.so.0", "libopenblas.so"}) {
      l.handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (l.handle) break;
    }
    if (!l.handle) return l;
    l.sgemm = reinterpret_cast<RealGemm>(dlsym(l.handle, "cblas_sgemm"));
    l.dgemm = reinterpret_cast<DoubleGemm>(dlsym(l.handle, "cblas_dgemm"));
    l.cgemm = reinterpret_cast<ComplexGemm>(dlsym(l.handle, "cblas_cgemm"));
    l.zgemm = reinterpret_cast<ComplexGemm>(dlsym(l.handle, "cblas_zgemm"));
    l.config = reinterpret_cast<CharFn>(dlsym(l.handle, "openblas_get_config"));
    l.corename = reinterpret_cast<CharFn>(dlsym(l.handle, "openblas_get_corename"));
    return l;
  }();
  return lib;
}

constexpr std::int64_t kIntMax = 2147483647;

template <class T>
void call_gemm(const Library& lib, const Problem& p, const T* a, const T* b, T* c) {
  const int ta = kTrans[static_cast<int>(p.ta)], tb = kTrans[static_cast<int>(p.tb)];
  const int m = static_cast<int>(p.m), n = static_cast<int>(p.n), k = static_cast<int>(p.k);
  const int lda = static_cast<int>(p.a.ld), ldb = static_cast<int>(p.b.ld);
  const int ldc = static_cast<int>(p.c.ld);
  const T alpha = p.alpha_as<T>(), beta = p.beta_as<T>();
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

class OpenBlas final : public Candidate {
 public:
  explicit OpenBlas(bool par_item) : par_item_(par_item) {}
  std::string_view spelling() const override {
    return par_item_ ? "openblas:par=item" : "openblas";
  }
  Provider provider() const override { return Provider::vendor; }
  Verdict can_run(const Problem& p) const override {
    if (!library().ok()) return Verdict::no("libopenblas.so.0 not found (or lacks cblas_?gemm)");
    if (p.m > kIntMax || p.n > kIntMax || p.k > kIntMax || p.a.ld > kIntMax || p.b.ld > kIntMax ||
        p.c.ld > kIntMax) {
      return Verdict::no("a size or leading dimension exceeds OpenBLAS's 32-bit int");
    }
    return Verdict::yes();
  }
  void launch(const Problem& p) const override {
    require_runnable(*this, p);
    const Library& lib = library();
    dispatch(p.dtype, [&]<class T>() {
      // Reference BLAS's quick path, done here so no vendor quirk can read A, B or a NaN C.
      if (quick_path<T>(p)) return;
      auto one = [&](std::int64_t i) {
        call_gemm<T>(lib, p, p.item_a<T>(i), p.item_b<T>(i), p.item_c<T>(i));
      };
      if (par_item_ || p.batch == 1) {
        for (std::int64_t i = 0; i < p.batch; ++i) one(i);
      } else {
#pragma omp parallel for schedule(static)
        for (std::int64_t i = 0; i < p.batch; ++i) one(i);
      }
    });
  }

 private:
  bool par_item_;
};

}  // namespace

const Candidate& openblas_candidate() {
  static const OpenBlas instance(false);
  return instance;
}

const Candidate& openblas_item_candidate() {
  static const OpenBlas instance(true);
  return instance;
}

std::string openblas_config() {
  const Library& lib = library();
  return lib.config ? std::string(lib.config()) : std::string();
}

std::string openblas_corename() {
  const Library& lib = library();
  return lib.corename ? std::string(lib.corename()) : std::string();
}

}  // namespace gemmroute::cpu
