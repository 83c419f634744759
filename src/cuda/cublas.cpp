// cublas: the vendor. Strided batches through cublasGemmStridedBatchedEx_64, pointer arrays
// (device memory) through cublasGemmBatchedEx_64, on the Context's handle and stream, in the
// scalar's own precision (compute type 32F or 64F, default math mode: no TF32 unless asked).
// alpha == 0 and k == 0 take the backend's quick path, so no NaN in A or B can leak into C.
#include <complex>

#include "core/candidate.hpp"
#include "cuda/candidates.hpp"
#include "cuda/check.hpp"
#include "cuda/exec.hpp"
#include "cuda/scale.hpp"

namespace gemmroute::cuda {
namespace {

cudaDataType_t data_type(Scalar s) {
  switch (s) {
    case Scalar::f32:
      return CUDA_R_32F;
    case Scalar::f64:
      return CUDA_R_64F;
    case Scalar::c32:
      return CUDA_C_32F;
    case Scalar::c64:
      return CUDA_C_64F;
  }
  return CUDA_R_32F;
}

cublasComputeType_t compute_type(Scalar s) {
  return s == Scalar::f32 || s == Scalar::c32 ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_64F;
}

cublasOperation_t operation(Op op) {
  return op == Op::N ? CUBLAS_OP_N : op == Op::T ? CUBLAS_OP_T : CUBLAS_OP_C;
}

// alpha and beta in the compute type's precision, as cuBLAS reads them through a pointer.
struct Scalars {
  union {
    float f[2];
    double d[2];
  } alpha, beta;
  Scalars(const Problem& p) {
    if (p.dtype == Scalar::f32 || p.dtype == Scalar::c32) {
      alpha.f[0] = static_cast<float>(p.alpha.real());
      alpha.f[1] = static_cast<float>(p.alpha.imag());
      beta.f[0] = static_cast<float>(p.beta.real());
      beta.f[1] = static_cast<float>(p.beta.imag());
    } else {
      alpha.d[0] = p.alpha.real();
      alpha.d[1] = p.alpha.imag();
      beta.d[0] = p.beta.real();
      beta.d[1] = p.beta.imag();
    }
  }
};

class Cublas final : public Candidate {
 public:
  std::string_view spelling() const override { return "cublas"; }
  Provider provider() const override { return Provider::vendor; }
  Verdict can_run(const Problem&) const override { return Verdict::yes(); }
  void launch(const Problem& p, const Exec& e) const override {
    require_runnable(*this, p, e);
    const CudaExec& exec = cuda_exec(e);
    if (quick_path(p, exec)) return;
    const Scalars s(p);
    const cudaDataType_t t = data_type(p.dtype);
    if (!p.pointer_array()) {
      check(cublasGemmStridedBatchedEx_64(exec.blas(), operation(p.ta), operation(p.tb), p.m, p.n,
                                          p.k, &s.alpha, p.a.base, t, p.a.ld, p.a.stride, p.b.base,
                                          t, p.b.ld, p.b.stride, &s.beta,
                                          const_cast<void*>(p.c.base), t, p.c.ld, p.c.stride,
                                          p.batch, compute_type(p.dtype), CUBLAS_GEMM_DEFAULT),
            "cublasGemmStridedBatchedEx_64");
      return;
    }
    check(cublasGemmBatchedEx_64(exec.blas(), operation(p.ta), operation(p.tb), p.m, p.n, p.k,
                                 &s.alpha, p.a.array, t, p.a.ld, p.b.array, t, p.b.ld, &s.beta,
                                 const_cast<void* const*>(p.c.array), t, p.c.ld, p.batch,
                                 compute_type(p.dtype), CUBLAS_GEMM_DEFAULT),
          "cublasGemmBatchedEx_64");
  }
};

}  // namespace

const Candidate& cublas_candidate() {
  static const Cublas instance;
  return instance;
}

}  // namespace gemmroute::cuda
