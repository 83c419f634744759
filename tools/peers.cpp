// The peer arms (peers.hpp): each library called as its documentation shows, nothing more.
#include "peers.hpp"

#include <dlfcn.h>
#include <omp.h>

#include <complex>
#include <memory>

#include "core/dispatch.hpp"
#include "cpu/batch.hpp"
#include "cpu/libraries.hpp"

namespace gemmroute::cli {
namespace {

using cpu::for_each_item;

constexpr std::int64_t kIntMax = 2147483647;

bool fits_int(const Problem& p) {
  return p.m <= kIntMax && p.n <= kIntMax && p.k <= kIntMax && p.a.ld <= kIntMax &&
         p.b.ld <= kIntMax && p.c.ld <= kIntMax && p.batch <= kIntMax;
}

bool unit_scalars(const Problem& p) {
  return p.alpha == std::complex<double>(1.0, 0.0) &&
         (p.beta == std::complex<double>(0.0, 0.0) || p.beta == std::complex<double>(1.0, 0.0));
}

// ---- OpenBLAS ----------------------------------------------------------------------------

template <class T>
void cblas_gemm(const Problem& p, const T* a, const T* b, T* c) {
  const auto& lib = cpu::openblas_library();
  const int ta = cpu::kCblasTrans[static_cast<int>(p.ta)];
  const int tb = cpu::kCblasTrans[static_cast<int>(p.tb)];
  const int m = static_cast<int>(p.m), n = static_cast<int>(p.n), k = static_cast<int>(p.k);
  const int lda = static_cast<int>(p.a.ld), ldb = static_cast<int>(p.b.ld);
  const int ldc = static_cast<int>(p.c.ld);
  const T alpha = p.alpha_as<T>(), beta = p.beta_as<T>();
  if constexpr (std::is_same_v<T, float>) {
    lib.sgemm(cpu::kCblasColMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  } else if constexpr (std::is_same_v<T, double>) {
    lib.dgemm(cpu::kCblasColMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  } else if constexpr (std::is_same_v<T, std::complex<float>>) {
    lib.cgemm(cpu::kCblasColMajor, ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
  } else {
    lib.zgemm(cpu::kCblasColMajor, ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
  }
}

Verdict openblas_can_run(const Problem& p) {
  if (!cpu::openblas_library().ok()) return Verdict::no("library not found (OpenBLAS)");
  if (const char* why = uniform_only(p.dtype)) return Verdict::no(why);
  if (!fits_int(p)) return Verdict::no("exceeds OpenBLAS's 32-bit int");
  return Verdict::yes();
}

PeerArm openblas_items() {
  return {"openblas", {"openblas.items", openblas_can_run, [](const Problem& p) {
                         dispatch(p.dtype, [&]<class T>() {
                           for_each_item(p, [&](std::int64_t i) {
                             cblas_gemm<T>(p, p.item_a<T>(i), p.item_b<T>(i), p.item_c<T>(i));
                           });
                         });
                       }}};
}

PeerArm openblas_seq() {
  return {"openblas",
          {"openblas.seq",
           [](const Problem& p) {
             if (p.batch == 1) return Verdict::no("a batch of one: the same call as .items");
             return openblas_can_run(p);
           },
           [](const Problem& p) {
             dispatch(p.dtype, [&]<class T>() {
               for (std::int64_t i = 0; i < p.batch; ++i) {
                 cblas_gemm<T>(p, p.item_a<T>(i), p.item_b<T>(i), p.item_c<T>(i));
               }
             });
           }}};
}

// cblas_?gemm_batch as OpenBLAS 0.3.27 and MKL declare it: groups of equal items, each group
// described by one entry of every array; one group here.
template <class T>
using CblasBatch = void (*)(int order, const int* ta, const int* tb, const int* m, const int* n,
                            const int* k, const T* alpha, const T** a, const int* lda, const T** b,
                            const int* ldb, const T* beta, T** c, const int* ldc, int groups,
                            const int* group_size);

void* openblas_symbol(const char* name) {
  const auto& lib = cpu::openblas_library();
  return lib.handle ? dlsym(lib.handle, name) : nullptr;
}

PeerArm openblas_batch() {
  struct Pointers {
    std::vector<const void*> a, b;
    std::vector<void*> c;
  };
  auto ptrs = std::make_shared<Pointers>();
  return {"openblas",
          {"openblas.batch",
           [](const Problem& p) {
             static const char* names[] = {"cblas_sgemm_batch", "cblas_dgemm_batch",
                                           "cblas_cgemm_batch", "cblas_zgemm_batch"};
             if (const char* why = uniform_only(p.dtype)) return Verdict::no(why);
             if (!openblas_symbol(names[static_cast<int>(p.dtype.in)])) {
               return Verdict::no("this OpenBLAS has no cblas_?gemm_batch");
             }
             return openblas_can_run(p);
           },
           [ptrs](const Problem& p) {
             dispatch(p.dtype, [&]<class T>() {
               static const char* names[] = {"cblas_sgemm_batch", "cblas_dgemm_batch",
                                             "cblas_cgemm_batch", "cblas_zgemm_batch"};
               const auto fn =
                   reinterpret_cast<CblasBatch<T>>(openblas_symbol(names[int(p.dtype.in)]));
               // The pointer arrays a user keeps for the batch (filled per call: the operand
               // sets rotate under the same shape).
               ptrs->a.resize(p.batch);
               ptrs->b.resize(p.batch);
               ptrs->c.resize(p.batch);
               for (std::int64_t i = 0; i < p.batch; ++i) {
                 ptrs->a[i] = p.item_a<T>(i);
                 ptrs->b[i] = p.item_b<T>(i);
                 ptrs->c[i] = p.item_c<T>(i);
               }
               const int ta = cpu::kCblasTrans[int(p.ta)], tb = cpu::kCblasTrans[int(p.tb)];
               const int m = int(p.m), n = int(p.n), k = int(p.k), size = int(p.batch);
               const int lda = int(p.a.ld), ldb = int(p.b.ld), ldc = int(p.c.ld);
               const T alpha = p.alpha_as<T>(), beta = p.beta_as<T>();
               fn(cpu::kCblasColMajor, &ta, &tb, &m, &n, &k, &alpha,
                  reinterpret_cast<const T**>(ptrs->a.data()), &lda,
                  reinterpret_cast<const T**>(ptrs->b.data()), &ldb, &beta,
                  reinterpret_cast<T**>(ptrs->c.data()), &ldc, 1, &size);
             });
           }}};
}

// ---- LIBXSMM -----------------------------------------------------------------------------

constexpr std::int64_t kTile = 4096;  // elements of the stack tile for general alpha, beta

template <class T>
using XsmmKernel = void (*)(const T*, const T*, T*, ...);

// libxsmm_?mmdispatch of an (m, n, k) kernel, alpha 1 and beta 0 or 1, next-item prefetch.
template <class T>
XsmmKernel<T> xsmm_dispatch(const Problem& p, std::int64_t n, int ldc, bool beta_zero) {
  const auto& lib = cpu::libxsmm_library();
  const int m = int(p.m), k = int(p.k), lda = int(p.a.ld), ldb = int(p.b.ld);
  const int flags = p.tb == Op::N ? 0 : cpu::kLibxsmmFlagTransB;
  const int prefetch = cpu::kLibxsmmPrefetchAuto;
  const T alpha = 1, beta = beta_zero ? 0 : 1;
  if constexpr (std::is_same_v<T, float>) {
    return lib.smmdispatch(m, int(n), k, &lda, &ldb, &ldc, &alpha, &beta, &flags, &prefetch);
  } else {
    return lib.dmmdispatch(m, int(n), k, &lda, &ldb, &ldc, &alpha, &beta, &flags, &prefetch);
  }
}

Verdict xsmm_static_checks(const Problem& p) {
  if (!cpu::libxsmm_library().ok()) return Verdict::no("library not found (LIBXSMM)");
  if (const char* why = uniform_only(p.dtype)) return Verdict::no(why);
  if (is_complex(p.dtype)) return Verdict::no("LIBXSMM has no complex GEMM");
  if (p.ta != Op::N) return Verdict::no("LIBXSMM 1.17 dispatches op(A) = A only");
  if (!fits_int(p)) return Verdict::no("exceeds LIBXSMM's 32-bit int");
  return Verdict::yes();
}

// The kernel (for general scalars: the tile's kernel and its column count).
template <class T>
struct XsmmPlan {
  XsmmKernel<T> main = nullptr, tail = nullptr;
  std::int64_t cols = 0;
  bool tiled = false;
};

template <class T>
XsmmPlan<T> xsmm_plan(const Problem& p) {
  XsmmPlan<T> plan;
  plan.tiled = !unit_scalars(p);
  if (!plan.tiled) {
    plan.cols = p.n;
    plan.main = xsmm_dispatch<T>(p, p.n, int(p.c.ld), p.beta == std::complex<double>(0.0, 0.0));
    return plan;
  }
  if (p.m > kTile) return plan;
  plan.cols = std::min(p.n, kTile / p.m);
  plan.main = xsmm_dispatch<T>(p, plan.cols, int(p.m), true);
  if (p.n % plan.cols) plan.tail = xsmm_dispatch<T>(p, p.n % plan.cols, int(p.m), true);
  if (p.n % plan.cols && !plan.tail) plan.main = nullptr;
  return plan;
}

PeerArm libxsmm_items() {
  return {"libxsmm",
          {"libxsmm.items",
           [](const Problem& p) {
             if (Verdict v = xsmm_static_checks(p); !v.ok) return v;
             const bool ok = dispatch(p.dtype, [&]<class T>() {
               if constexpr (std::is_floating_point_v<T>) {
                 return xsmm_plan<T>(p).main != nullptr;
               }
               return false;
             });
             return ok ? Verdict::yes() : Verdict::no("libxsmm_?mmdispatch returned no kernel");
           },
           [](const Problem& p) {
             dispatch(p.dtype, [&]<class T>() {
               if constexpr (std::is_floating_point_v<T>) {
                 const XsmmPlan<T> plan = xsmm_plan<T>(p);  // once per call
                 const std::int64_t last = p.batch - 1;
                 if (!plan.tiled) {
                   for_each_item(p, [&](std::int64_t i) {
                     const std::int64_t j = i < last ? i + 1 : i;
                     plan.main(p.item_a<T>(i), p.item_b<T>(i), p.item_c<T>(i), p.item_a<T>(j),
                               p.item_b<T>(j), p.item_c<T>(j));
                   });
                   return;
                 }
                 const T alpha = p.alpha_as<T>(), beta = p.beta_as<T>();
                 const std::int64_t b_col = p.tb == Op::N ? p.b.ld : 1;
                 for_each_item(p, [&](std::int64_t i) {
                   alignas(64) T tile[kTile];
                   const std::int64_t next = i < last ? i + 1 : i;
                   T* c = p.item_c<T>(i);
                   for (std::int64_t j0 = 0; j0 < p.n; j0 += plan.cols) {
                     const std::int64_t cols = std::min(plan.cols, p.n - j0);
                     (cols == plan.cols ? plan.main : plan.tail)(
                         p.item_a<T>(i), p.item_b<T>(i) + j0 * b_col, tile, p.item_a<T>(next),
                         p.item_b<T>(next), tile);
                     for (std::int64_t j = 0; j < cols; ++j) {
                       T* cj = c + (j0 + j) * p.c.ld;
                       const T* tj = tile + j * p.m;
                       for (std::int64_t r = 0; r < p.m; ++r) {
                         cj[r] = beta == T(0) ? alpha * tj[r] : alpha * tj[r] + beta * cj[r];
                       }
                     }
                   }
                 });
               }
             });
           }}};
}

PeerArm libxsmm_batch() {
  // Index arrays (element offsets of each item), built once per shape as a user would keep
  // them beside the batch.
  struct Indexes {
    std::vector<int> a, b, c;
  };
  auto idx = std::make_shared<Indexes>();
  return {"libxsmm",
          {"libxsmm.batch",
           [](const Problem& p) {
             if (Verdict v = xsmm_static_checks(p); !v.ok) return v;
             if (!cpu::libxsmm_library().mmbatch) return Verdict::no("no libxsmm_mmbatch");
             if (!unit_scalars(p)) {
               return Verdict::no("libxsmm_mmbatch needs alpha 1 and beta 0 or 1");
             }
             if (p.pointer_array()) return Verdict::no("pointer arrays: not measured here");
             // Its own test of "small" (LIBXSMM_SMM_AI); above it, it falls back to the BLAS
             // (none is linked into the relinked LIBXSMM).
             const double m = p.m, n = p.n, k = p.k, size = double(size_of(p.dtype.in));
             if (2 * m * n * k > size * 4 * (m * k + k * n + 2 * m * n)) {
               return Verdict::no("libxsmm_mmbatch falls back to BLAS for this shape");
             }
             const double extent =
                 static_cast<double>(std::max({p.a.stride, p.b.stride, p.c.stride})) *
                 static_cast<double>(p.batch);
             if (extent > kIntMax) return Verdict::no("offsets exceed LIBXSMM's 32-bit int");
             return Verdict::yes();
           },
           [idx](const Problem& p) {
             if (idx->a.size() != static_cast<std::size_t>(p.batch)) {
               idx->a.resize(p.batch);
               idx->b.resize(p.batch);
               idx->c.resize(p.batch);
               for (std::int64_t i = 0; i < p.batch; ++i) {
                 idx->a[i] = static_cast<int>(i * p.a.stride);
                 idx->b[i] = static_cast<int>(i * p.b.stride);
                 idx->c[i] = static_cast<int>(i * p.c.stride);
               }
             }
             const auto& lib = cpu::libxsmm_library();
             const int prec =
                 p.dtype == Scalar::f32 ? cpu::kLibxsmmPrecisionF32 : cpu::kLibxsmmPrecisionF64;
             const char ta = 'N', tb = p.tb == Op::N ? 'N' : 'T';
             const int m = int(p.m), n = int(p.n), k = int(p.k);
             const int lda = int(p.a.ld), ldb = int(p.b.ld), ldc = int(p.c.ld);
             const double alpha_d = 1, beta_d = p.beta.real();
             const float alpha_f = 1, beta_f = static_cast<float>(p.beta.real());
             const void* alpha =
                 prec == cpu::kLibxsmmPrecisionF32 ? static_cast<const void*>(&alpha_f) : &alpha_d;
             const void* beta =
                 prec == cpu::kLibxsmmPrecisionF32 ? static_cast<const void*>(&beta_f) : &beta_d;
             const bool parallel = cpu::real_macs(p) >= cpu::kParallelMacs && p.batch > 1;
    // A negative batch size tells LIBXSMM the C items are distinct (no locking).
#pragma omp parallel if (parallel)
             lib.mmbatch(prec, prec, &ta, &tb, m, n, k, alpha, p.a.base, &lda, p.b.base, &ldb, beta,
                         const_cast<void*>(p.c.base), &ldc, 0, sizeof(int), idx->a.data(),
                         idx->b.data(), idx->c.data(), -int(p.batch), omp_get_thread_num(),
                         omp_get_num_threads());
           }}};
}

// ---- BLIS --------------------------------------------------------------------------------

template <class T>
void blis_gemm(const Problem& p, const T* a, const T* b, T* c, long long threads) {
  const auto& lib = cpu::blis_library();
  cpu::BlisLibrary::Runtime rntm;
  rntm.num_threads = threads;
  T alpha = p.alpha_as<T>(), beta = p.beta_as<T>();
  const int ta = cpu::kBlisTrans[int(p.ta)], tb = cpu::kBlisTrans[int(p.tb)];
  T* A = const_cast<T*>(a);
  T* B = const_cast<T*>(b);
  if constexpr (std::is_same_v<T, float>) {
    lib.sgemm(ta, tb, p.m, p.n, p.k, &alpha, A, 1, p.a.ld, B, 1, p.b.ld, &beta, c, 1, p.c.ld,
              nullptr, &rntm);
  } else if constexpr (std::is_same_v<T, double>) {
    lib.dgemm(ta, tb, p.m, p.n, p.k, &alpha, A, 1, p.a.ld, B, 1, p.b.ld, &beta, c, 1, p.c.ld,
              nullptr, &rntm);
  } else {
    (std::is_same_v<T, std::complex<float>> ? lib.cgemm : lib.zgemm)(
        ta, tb, p.m, p.n, p.k, &alpha, A, 1, p.a.ld, B, 1, p.b.ld, &beta, c, 1, p.c.ld, nullptr,
        &rntm);
  }
}

Verdict blis_can_run(const Problem& p) {
  if (!cpu::blis_library().ok()) return Verdict::no("library not found (BLIS)");
  if (const char* why = uniform_only(p.dtype)) return Verdict::no(why);
  return Verdict::yes();
}

PeerArm blis_items() {
  return {"blis", {"blis.items", blis_can_run, [](const Problem& p) {
                     dispatch(p.dtype, [&]<class T>() {
                       for_each_item(p, [&](std::int64_t i) {
                         blis_gemm<T>(p, p.item_a<T>(i), p.item_b<T>(i), p.item_c<T>(i), 1);
                       });
                     });
                   }}};
}

PeerArm blis_seq() {
  return {"blis", {"blis.seq", blis_can_run, [](const Problem& p) {
                     const long long threads = omp_get_max_threads();
                     dispatch(p.dtype, [&]<class T>() {
                       for (std::int64_t i = 0; i < p.batch; ++i) {
                         blis_gemm<T>(p, p.item_a<T>(i), p.item_b<T>(i), p.item_c<T>(i), threads);
                       }
                     });
                   }}};
}

}  // namespace

void cblas_item(const Problem& p, std::int64_t i) {
  dispatch(p.dtype,
           [&]<class T>() { cblas_gemm<T>(p, p.item_a<T>(i), p.item_b<T>(i), p.item_c<T>(i)); });
}

std::vector<PeerArm> make_peer_arms(const Key&) {
  return {openblas_items(), openblas_seq(), openblas_batch(), libxsmm_items(),
          libxsmm_batch(),  blis_items(),   blis_seq()};
}

}  // namespace gemmroute::cli
