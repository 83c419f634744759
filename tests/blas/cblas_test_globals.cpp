// The globals reference CBLAS defines (cblas_globals.c) and its test programs x?cblat3 take
// from the library by copy relocation. OpenBLAS lacks them, and libgemmroute_blas.so exports
// GEMM entry points only, so the tests preload this beside the library; without it the
// programs stop at start-up with "undefined symbol: RowMajorStrg", under OpenBLAS alone too.
extern "C" {
__attribute__((visibility("default"))) int RowMajorStrg = 0;
__attribute__((visibility("default"))) int CBLAS_CallFromC = 0;
}
