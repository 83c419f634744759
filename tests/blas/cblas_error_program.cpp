// A program that knows nothing of gemmroute: it links OpenBLAS alone and hands cblas_sgemm a
// bad lda. On plain OpenBLAS that prints through xerbla_ and returns. Run with
// libgemmroute_blas.so preloaded it must do the same (OpenBLAS's own cblas_xerbla, which the
// drop-in found first, exits the process with status 255). The test checks the output.
#include <cstdio>

extern "C" void cblas_sgemm(int layout, int transa, int transb, int m, int n, int k, float alpha,
                            const float* a, int lda, const float* b, int ldb, float beta, float* c,
                            int ldc);

int main() {
  const float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1};
  float c[4] = {9, 9, 9, 9};
  cblas_sgemm(102 /* CblasColMajor */, 111, 111, 2, 2, 2, 1.0f, a, 1 /* < m */, b, 2, 0.0f, c, 2);
  std::fflush(stdout);  // xerbla_ prints to stdout: keep the order
  const bool unchanged = c[0] == 9 && c[1] == 9 && c[2] == 9 && c[3] == 9;
  std::printf("returned with C %s\n", unchanged ? "unchanged" : "WRITTEN");
  return unchanged ? 0 : 1;
}
