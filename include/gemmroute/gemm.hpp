// Batched GEMM: C_i <- alpha * op(A_i) * op(B_i) + beta * C_i for i in [0, batch).
//
// Column-major storage with leading dimensions, as in BLAS; pass Order::row_major to describe
// row-major operands instead. Sizes, leading dimensions and strides are 64-bit element counts.
// A stride of 0 broadcasts one matrix to the whole batch (A or B only: C items must not overlap).
// BLAS rules hold: beta == 0 never reads C, alpha == 0 never reads A or B, m, n or batch == 0 is
// a no-op, and k == 0 scales C by beta. Bad arguments throw gemmroute::Error before any write.
#pragma once

#include <cstdint>
#include <span>
#include <type_traits>

#include "gemmroute/context.hpp"
#include "gemmroute/options.hpp"
#include "gemmroute/types.hpp"

namespace gemmroute {

// Strided batch: item i of A starts at a + i * stride_a.
template <class T>
void gemm(Context& ctx, Order order, Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k,
          T alpha, const T* a, std::int64_t lda, std::int64_t stride_a, const T* b,
          std::int64_t ldb, std::int64_t stride_b, T beta, T* c, std::int64_t ldc,
          std::int64_t stride_c, std::int64_t batch, const Options& options = {});

template <class T>
void gemm(Context& ctx, Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha,
          const T* a, std::int64_t lda, std::int64_t stride_a, const T* b, std::int64_t ldb,
          std::int64_t stride_b, T beta, T* c, std::int64_t ldc, std::int64_t stride_c,
          std::int64_t batch, const Options& options = {}) {
  gemm(ctx, Order::col_major, ta, tb, m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b, beta, c,
       ldc, stride_c, batch, options);
}

// Pointer-array batch: item i of A is a[i]. The arrays hold batch pointers each.
template <class T>
void gemm(Context& ctx, Order order, Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k,
          T alpha, const T* const* a, std::int64_t lda, const T* const* b, std::int64_t ldb, T beta,
          T* const* c, std::int64_t ldc, std::int64_t batch, const Options& options = {});

template <class T>
void gemm(Context& ctx, Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha,
          const T* const* a, std::int64_t lda, const T* const* b, std::int64_t ldb, T beta,
          T* const* c, std::int64_t ldc, std::int64_t batch, const Options& options = {}) {
  gemm(ctx, Order::col_major, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, batch, options);
}

// Mixed precision: A and B of bfloat16 or float16, C of the same type or float, computed in
// f32 (dtype bf16, bf16:f32:f32, f16 or f16:f32:f32). alpha and beta are floats; C is rounded
// to its type once, from the f32 result.
template <class In, class Out>
concept MixedTypes = (std::is_same_v<In, bfloat16> ||
                      std::is_same_v<In, float16>)&&(std::is_same_v<Out, In> ||
                                                     std::is_same_v<Out, float>);

template <class In, class Out>
requires MixedTypes<In, Out>
void gemm(Context& ctx, Order order, Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k,
          float alpha, const In* a, std::int64_t lda, std::int64_t stride_a, const In* b,
          std::int64_t ldb, std::int64_t stride_b, float beta, Out* c, std::int64_t ldc,
          std::int64_t stride_c, std::int64_t batch, const Options& options = {});

template <class In, class Out>
requires MixedTypes<In, Out>
void gemm(Context& ctx, Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
          const In* a, std::int64_t lda, std::int64_t stride_a, const In* b, std::int64_t ldb,
          std::int64_t stride_b, float beta, Out* c, std::int64_t ldc, std::int64_t stride_c,
          std::int64_t batch, const Options& options = {}) {
  gemm(ctx, Order::col_major, ta, tb, m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b, beta, c,
       ldc, stride_c, batch, options);
}

template <class In, class Out>
requires MixedTypes<In, Out>
void gemm(Context& ctx, Order order, Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k,
          float alpha, const In* const* a, std::int64_t lda, const In* const* b, std::int64_t ldb,
          float beta, Out* const* c, std::int64_t ldc, std::int64_t batch,
          const Options& options = {});

template <class In, class Out>
requires MixedTypes<In, Out>
void gemm(Context& ctx, Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
          const In* const* a, std::int64_t lda, const In* const* b, std::int64_t ldb, float beta,
          Out* const* c, std::int64_t ldc, std::int64_t batch, const Options& options = {}) {
  gemm(ctx, Order::col_major, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, batch, options);
}

// One item of a heterogeneous (grouped) batch. Make it with make_item so the scalar and the
// pointers agree. Scalars are held by value and must be values of dtype: real for f32 and f64,
// floats for f32 and c32 (make_item guarantees it); anything else is an Error.
struct GemmItem {
  DType dtype = Scalar::f32;
  Order order = Order::col_major;
  Op ta = Op::N, tb = Op::N;
  std::int64_t m = 0, n = 0, k = 0;
  std::complex<double> alpha{1.0, 0.0}, beta{0.0, 0.0};
  const void* a = nullptr;
  std::int64_t lda = 1;
  const void* b = nullptr;
  std::int64_t ldb = 1;
  void* c = nullptr;
  std::int64_t ldc = 1;
};

template <class T>
GemmItem make_item(Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha,
                   const T* a, std::int64_t lda, const T* b, std::int64_t ldb, T beta, T* c,
                   std::int64_t ldc, Order order = Order::col_major) {
  GemmItem item;
  item.dtype = scalar_of_v<T>;
  item.order = order;
  item.ta = ta;
  item.tb = tb;
  item.m = m;
  item.n = n;
  item.k = k;
  item.alpha = std::complex<double>(alpha);
  item.beta = std::complex<double>(beta);
  item.a = a;
  item.lda = lda;
  item.b = b;
  item.ldb = ldb;
  item.c = c;
  item.ldc = ldc;
  return item;
}

// Heterogeneous batch: items are validated, split into homogeneous groups (same scalar,
// operations, sizes, leading dimensions, and alpha and beta bit for bit), every group is
// selected, and only then is each run as one pointer-array batch: an Error (an item's
// arguments, a pin or route a group cannot run) leaves every C unwritten. Item order within a
// group is kept; groups may run at the same time, so no item's C may overlap another item's A,
// B or C.
void gemm_grouped(Context& ctx, std::span<const GemmItem> items, const Options& options = {});

// One group of a grouped batch given as pointer arrays, as cublas<t>gemmGroupedBatched takes
// them: `count` column-major items of one shape and scalars, item i at a[i], b[i], c[i] (on a
// CUDA Context the arrays and the matrices are device memory, as in the pointer-array gemm).
template <class T>
struct GemmGroup {
  Op ta = Op::N, tb = Op::N;
  std::int64_t m = 0, n = 0, k = 0;
  T alpha = T(1), beta = T(0);
  const T* const* a = nullptr;
  std::int64_t lda = 1;
  const T* const* b = nullptr;
  std::int64_t ldb = 1;
  T* const* c = nullptr;
  std::int64_t ldc = 1;
  std::int64_t count = 0;
};

// Groups of one scalar, the work per group instead of per item (nothing is read or staged per
// item on the host): every group is validated and selected first, so an Error leaves every C
// unwritten; then the groups run, on CUDA the small ones together in cuda.grouped's launches.
// Groups may run at the same time: no item's C may overlap another item's A, B or C.
template <class T>
void gemm_groups(Context& ctx, std::span<const GemmGroup<T>> groups, const Options& options = {});

}  // namespace gemmroute
