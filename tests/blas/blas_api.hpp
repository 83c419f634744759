// The routines libgemmroute_blas.so exports, declared as a C or Fortran caller sees them
// (LP64: 32-bit int), for the tests that link the library. docs/blas.md lists the same.
#pragma once

#include <complex>

extern "C" {
void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*,
            const float*, const int*, const float*, const int*, const float*, float*, const int*);
void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*,
            const double*, const int*, const double*, const int*, const double*, double*,
            const int*);
void zgemm_(const char*, const char*, const int*, const int*, const int*,
            const std::complex<double>*, const std::complex<double>*, const int*,
            const std::complex<double>*, const int*, const std::complex<double>*,
            std::complex<double>*, const int*);
void cblas_dgemm(int layout, int transa, int transb, int m, int n, int k, double alpha,
                 const double* a, int lda, const double* b, int ldb, double beta, double* c,
                 int ldc);
void cblas_zgemm(int layout, int transa, int transb, int m, int n, int k, const void* alpha,
                 const void* a, int lda, const void* b, int ldb, const void* beta, void* c,
                 int ldc);
void cblas_dgemm_batch(int layout, const int* transa_array, const int* transb_array,
                       const int* m_array, const int* n_array, const int* k_array,
                       const double* alpha_array, const double** a_array, const int* lda_array,
                       const double** b_array, const int* ldb_array, const double* beta_array,
                       double** c_array, const int* ldc_array, int group_count,
                       const int* group_size);
void cblas_zgemm_batch(int layout, const int* transa_array, const int* transb_array,
                       const int* m_array, const int* n_array, const int* k_array,
                       const void* alpha_array, const void** a_array, const int* lda_array,
                       const void** b_array, const int* ldb_array, const void* beta_array,
                       void** c_array, const int* ldc_array, int group_count,
                       const int* group_size);
void dgemm_batch_(const char* transa_array, const char* transb_array, const int* m_array,
                  const int* n_array, const int* k_array, const double* alpha_array,
                  const double** a_array, const int* lda_array, const double** b_array,
                  const int* ldb_array, const double* beta_array, double** c_array,
                  const int* ldc_array, const int* group_count, const int* group_size);
void cblas_dgemm_batch_strided(int layout, int transa, int transb, int m, int n, int k,
                               double alpha, const double* a, int lda, int stridea, const double* b,
                               int ldb, int strideb, double beta, double* c, int ldc, int stridec,
                               int batch_size);
void cblas_zgemm_batch_strided(int layout, int transa, int transb, int m, int n, int k,
                               const void* alpha, const void* a, int lda, int stridea,
                               const void* b, int ldb, int strideb, const void* beta, void* c,
                               int ldc, int stridec, int batch_size);
void dgemm_batch_strided_(const char* transa, const char* transb, const int* m, const int* n,
                          const int* k, const double* alpha, const double* a, const int* lda,
                          const int* stridea, const double* b, const int* ldb, const int* strideb,
                          const double* beta, double* c, const int* ldc, const int* stridec,
                          const int* batch_size);
}

namespace blas_test {
constexpr int kRowMajor = 101, kColMajor = 102;
constexpr int kNoTrans = 111, kTrans = 112, kConjTrans = 113;
}  // namespace blas_test
