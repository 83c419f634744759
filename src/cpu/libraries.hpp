// The host libraries the CPU candidates (and the peer benchmark) call: OpenBLAS, LIBXSMM and
// BLIS, each opened once per process with dlopen(RTLD_LOCAL) and called through its own
// handle, never through the global symbol scope: in libgemmroute_blas.so (the drop-in BLAS)
// the global cblas_sgemm is ours, and calling it would recurse.
//
// Every library is optional at run time. One that is missing leaves its functions null: its
// candidates refuse with "library not found" and its fingerprint field reads "none".
// GEMMROUTE_LIBXSMM and GEMMROUTE_BLIS, read when the library is first used, name the file to
// open instead of the default search, or "none" for no library (how the tests hide them).
#pragma once

#include <string>

namespace gemmroute::cpu {

// OpenBLAS's CBLAS (cblas.h): libopenblas.so.0.
struct OpenBlasLibrary {
  using RealGemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*,
                            int, float, float*, int);
  using DoubleGemm = void (*)(int, int, int, int, int, int, double, const double*, int,
                              const double*, int, double, double*, int);
  using ComplexGemm = void (*)(int, int, int, int, int, int, const void*, const void*, int,
                               const void*, int, const void*, void*, int);
  // cblas_sbgemm: bf16 A and B (as their bits), f32 alpha, beta and C.
  using Bf16Gemm = void (*)(int, int, int, int, int, int, float, const unsigned short*, int,
                            const unsigned short*, int, float, float*, int);
  using CharFn = char* (*)();
  using MemoryAlloc = void* (*)(int);
  using MemoryFree = void (*)(void*);

  void* handle = nullptr;
  RealGemm sgemm = nullptr;
  DoubleGemm dgemm = nullptr;
  ComplexGemm cgemm = nullptr;
  ComplexGemm zgemm = nullptr;
  Bf16Gemm sbgemm = nullptr;  // optional: only builds with BUILD_BFLOAT16 have it
  CharFn config = nullptr;
  CharFn corename = nullptr;
  MemoryAlloc memory_alloc = nullptr;  // optional: the scratch buffers' allocator
  MemoryFree memory_free = nullptr;

  bool ok() const { return sgemm && dgemm && cgemm && zgemm; }
};
const OpenBlasLibrary& openblas_library();

// CBLAS enum values (cblas.h).
inline constexpr int kCblasColMajor = 102;
inline constexpr int kCblasTrans[] = {111, 112, 113};  // N, T, C

// LIBXSMM 1.17's C API (libxsmm.h; libxsmm_blasint is int), the part used here. Debian ships
// LIBXSMM as static archives only, so the build relinks them into libgemmroute_libxsmm.so
// (src/cpu/CMakeLists: without the BLAS it would fall back to, its symbols bound internally).
struct LibxsmmLibrary {
  // JIT kernels: C <- A B (+ C) for one item. With a prefetch strategy other than none they
  // take three more pointers, the next item's A, B and C.
  using SmmFunction = void (*)(const float*, const float*, float*, ...);
  using DmmFunction = void (*)(const double*, const double*, double*, ...);
  using SmmDispatch = SmmFunction (*)(int m, int n, int k, const int* lda, const int* ldb,
                                      const int* ldc, const float* alpha, const float* beta,
                                      const int* flags, const int* prefetch);
  using DmmDispatch = DmmFunction (*)(int m, int n, int k, const int* lda, const int* ldb,
                                      const int* ldc, const double* alpha, const double* beta,
                                      const int* flags, const int* prefetch);
  using MmBatch = void (*)(int iprec, int oprec, const char* transa, const char* transb, int m,
                           int n, int k, const void* alpha, const void* a, const int* lda,
                           const void* b, const int* ldb, const void* beta, void* c, const int* ldc,
                           int index_base, int index_stride, const int stride_a[],
                           const int stride_b[], const int stride_c[], int batchsize, int tid,
                           int nthreads);
  using Init = void (*)();
  using Text = const char* (*)();

  void* handle = nullptr;
  SmmDispatch smmdispatch = nullptr;
  DmmDispatch dmmdispatch = nullptr;
  MmBatch mmbatch = nullptr;
  Init init = nullptr;
  Text target_arch = nullptr;
  Text version = nullptr;  // gemmroute_libxsmm_version, in the relinked library only

  bool ok() const { return smmdispatch && dmmdispatch && init && target_arch; }
};
const LibxsmmLibrary& libxsmm_library();

// libxsmm.h constants.
inline constexpr int kLibxsmmFlagTransB = 2;     // LIBXSMM_GEMM_FLAG_TRANS_B
inline constexpr int kLibxsmmPrefetchNone = 0;   // LIBXSMM_PREFETCH_NONE
inline constexpr int kLibxsmmPrefetchAuto = -1;  // LIBXSMM_PREFETCH_AUTO
inline constexpr int kLibxsmmPrecisionF64 = 0;   // LIBXSMM_GEMM_PRECISION_F64
inline constexpr int kLibxsmmPrecisionF32 = 1;   // LIBXSMM_GEMM_PRECISION_F32

// BLIS 0.9's typed expert API (blis.h; dim_t and inc_t are 64-bit, trans_t an int enum):
// bli_?gemm_ex(transa, transb, m, n, k, alpha, a, rs_a, cs_a, b, rs_b, cs_b, beta, c, rs_c,
// cs_c, cntx, rntm), libblis.so.4.
struct BlisLibrary {
  // rntm_t of BLIS 0.9 (the soname's ABI): how many threads one call may use.
  struct Runtime {
    bool auto_factor = true;
    long long num_threads = -1;
    long long thrloop[6] = {-1, -1, -1, -1, -1, -1};
    bool pack_a = false, pack_b = false, l3_sup = true;
    void* sba_pool = nullptr;
    void* pba = nullptr;
  };
  template <class T>
  using Gemm = void (*)(int transa, int transb, long long m, long long n, long long k, T* alpha,
                        T* a, long long rs_a, long long cs_a, T* b, long long rs_b, long long cs_b,
                        T* beta, T* c, long long rs_c, long long cs_c, void* cntx, Runtime* rntm);
  using Text = const char* (*)();
  using ArchId = int (*)();
  using ArchName = const char* (*)(int);

  void* handle = nullptr;
  Gemm<float> sgemm = nullptr;
  Gemm<double> dgemm = nullptr;
  Gemm<void> cgemm = nullptr;
  Gemm<void> zgemm = nullptr;
  Text version = nullptr;
  ArchId arch_id = nullptr;
  ArchName arch_name = nullptr;

  bool ok() const { return sgemm && dgemm && cgemm && zgemm; }
};
const BlisLibrary& blis_library();

// trans_t (blis.h): the transpose bit is 8, the conjugate bit 16.
inline constexpr int kBlisTrans[] = {0, 8, 24};  // N, T, C

// The libraries as found, for the fingerprint: "OpenBLAS 0.3.21 ..." and its core name,
// "1.17 hsw" (version and LIBXSMM's code path), "0.9.0 zen3" (version and BLIS's kernel
// set); empty when absent.
std::string openblas_config();
std::string openblas_corename();
std::string libxsmm_description();
std::string blis_description();

}  // namespace gemmroute::cpu
