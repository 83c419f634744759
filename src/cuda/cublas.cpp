// cublas: the vendor. Strided batches through cublasGemmStridedBatchedEx_64, pointer arrays
// (device memory; not for bf16 and f16, see can_run) through cublasGemmBatchedEx_64, on the
// Context's handle and stream, A and B of the dtype's input type and C of its output type, in
// its compute type: 32F for f32, c32, bf16 and f16 (C of bf16, f16 or f32), 64F for f64 and c64,
// and 32F_FAST_TF32 only for f32:f32:tf32, which a call gets only when it asks (Options::tf32);
// the handle's math mode is the default, so nothing else runs in TF32.
// alpha == 0 and k == 0 take the backend's quick path, so no NaN in A or B can leak into C.
// Grouped calls (launch_groups): the groups cuda.grouped takes run first, in its launches
// (small.cu); of the rest, consecutive groups that chose cublas for f32 or f64 (the scalars
// cuBLAS's grouped GEMM takes) run as one cublasGemmGroupedBatchedEx_64 call.
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

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
    case Scalar::bf16:
      return CUDA_R_16BF;
    case Scalar::f16:
      return CUDA_R_16F;
  }
  return CUDA_R_32F;
}

cublasComputeType_t compute_type(DType d) {
  switch (d.compute) {
    case Compute::f32:
    case Compute::c32:
      return CUBLAS_COMPUTE_32F;
    case Compute::tf32:
      return CUBLAS_COMPUTE_32F_FAST_TF32;
    case Compute::f64:
    case Compute::c64:
      break;
  }
  return CUBLAS_COMPUTE_64F;
}

// Whether alpha and beta are floats (every compute type but 64F).
bool float_scalars(DType d) {
  return d.compute != Compute::f64 && d.compute != Compute::c64;
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
    if (float_scalars(p.dtype)) {
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
  // 16-bit operands through pointer arrays: cuBLAS's batched kernels for them faulted with
  // "misaligned address" on the H200 for items at 2-byte-aligned addresses (tests/cuda/
  // mixed_test.cpp), and the host may not read a device pointer array to check each item.
  Verdict can_run(const Problem& p) const override {
    const bool sixteen = size_of(p.dtype.in) == 2 || size_of(p.dtype.out) == 2;
    if (sixteen && (p.a.array || p.b.array || p.c.array)) {
      return Verdict::no(
          "bf16 and f16 through pointer arrays: cuBLAS faults on items that are not 16-byte "
          "aligned, and device pointer arrays cannot be checked (use a strided batch)");
    }
    return Verdict::yes();
  }
  void launch(const Problem& p, const Exec& e) const override {
    require_runnable(*this, p, e);
    const CudaExec& exec = cuda_exec(e);
    if (quick_path(p, exec)) return;
    const Scalars s(p);
    const cudaDataType_t t = data_type(p.dtype.in), tc = data_type(p.dtype.out);
    if (!p.pointer_array()) {
      check(cublasGemmStridedBatchedEx_64(exec.blas(), operation(p.ta), operation(p.tb), p.m, p.n,
                                          p.k, &s.alpha, p.a.base, t, p.a.ld, p.a.stride, p.b.base,
                                          t, p.b.ld, p.b.stride, &s.beta,
                                          const_cast<void*>(p.c.base), tc, p.c.ld, p.c.stride,
                                          p.batch, compute_type(p.dtype), CUBLAS_GEMM_DEFAULT),
            "cublasGemmStridedBatchedEx_64");
      return;
    }
    check(cublasGemmBatchedEx_64(exec.blas(), operation(p.ta), operation(p.tb), p.m, p.n, p.k,
                                 &s.alpha, p.a.array, t, p.a.ld, p.b.array, t, p.b.ld, &s.beta,
                                 const_cast<void* const*>(p.c.array), tc, p.c.ld, p.batch,
                                 compute_type(p.dtype), CUBLAS_GEMM_DEFAULT),
          "cublasGemmBatchedEx_64");
  }
};

// A run of groups as one cuBLAS grouped call: every one f32 (or every one f64), none on the
// quick path, and their pointer arrays end to end (as gemm_grouped lays them out).
void launch_grouped(std::span<const GroupLaunch> run, const CudaExec& exec) {
  const std::size_t n = run.size();
  std::vector<cublasOperation_t> ta(n), tb(n);
  std::vector<std::int64_t> m(n), nn(n), k(n), lda(n), ldb(n), ldc(n), size(n);
  std::vector<double> alpha_d(n), beta_d(n);
  std::vector<float> alpha_f(n), beta_f(n);
  for (std::size_t g = 0; g < n; ++g) {
    const Problem& p = *run[g].problem;
    ta[g] = operation(p.ta);
    tb[g] = operation(p.tb);
    m[g] = p.m;
    nn[g] = p.n;
    k[g] = p.k;
    lda[g] = p.a.ld;
    ldb[g] = p.b.ld;
    ldc[g] = p.c.ld;
    size[g] = p.batch;
    alpha_d[g] = p.alpha.real();
    beta_d[g] = p.beta.real();
    alpha_f[g] = static_cast<float>(p.alpha.real());
    beta_f[g] = static_cast<float>(p.beta.real());
  }
  const Problem& p0 = *run.front().problem;
  const bool f32 = p0.dtype == Scalar::f32;
  const cudaDataType_t t = data_type(p0.dtype.in);
  check(cublasGemmGroupedBatchedEx_64(
            exec.blas(), ta.data(), tb.data(), m.data(), nn.data(), k.data(),
            f32 ? static_cast<const void*>(alpha_f.data()) : alpha_d.data(), p0.a.array, t,
            lda.data(), p0.b.array, t, ldb.data(),
            f32 ? static_cast<const void*>(beta_f.data()) : beta_d.data(),
            const_cast<void* const*>(p0.c.array), t, ldc.data(), static_cast<std::int64_t>(n),
            size.data(), compute_type(p0.dtype)),
        "cublasGemmGroupedBatchedEx_64");
}

// Whether group `next` can join a grouped call that `prev` is in.
bool joins(const Problem& prev, const Problem& next) {
  auto follows = [&](const void* const* a, const void* const* b) { return a + prev.batch == b; };
  return next.dtype == prev.dtype && follows(prev.a.array, next.a.array) &&
         follows(prev.b.array, next.b.array) && follows(prev.c.array, next.c.array);
}

// Where the launch is ours to shape (no pin, not route=vendor), a group joins cuBLAS's grouped
// call only when small in bytes: on the H200 that call is slower than one batched call a group
// once groups are large, and faster when they are small (bench --grouped, 64 sizes, fraction of
// the roofline, grouped call against a call a group: f32 9.6% / 6.2% at 10^4 items, 9.8% / 31%
// at 10^5; f64 35.6% / 10.7% at 10^4, 37.6% / 42.4% at 10^5; f64's groups of 8-14 MiB at 10^4
// ran faster in the grouped call, hence its larger bound). A pinned call keeps cuBLAS's grouped
// call for all its groups, as a cuBLAS user would write it.
std::int64_t grouped_call_bytes(Scalar s) {
  return s == Scalar::f64 ? std::int64_t{16} << 20 : std::int64_t{8} << 20;
}

bool groupable(const GroupLaunch& g) {
  const Problem& p = *g.problem;
  return g.candidate == &cublas_candidate() && (p.dtype == Scalar::f32 || p.dtype == Scalar::f64) &&
         p.k != 0 && p.alpha != std::complex<double>(0.0, 0.0) &&
         (!g.may_fuse || operand_bytes(p) <= grouped_call_bytes(p.dtype.in));
}

}  // namespace

const Candidate& cublas_candidate() {
  static const Cublas instance;
  return instance;
}

std::string group_launch_note(std::span<const GroupLaunch> groups) {
  std::size_t count = 0;
  std::int64_t items = 0;
  for (const GroupLaunch& g : groups) {
    if (!fusable(g)) continue;
    ++count;
    items += g.problem->batch;
  }
  if (count < 2) return {};
  return "cuda.grouped runs " + std::to_string(count) + " of the " + std::to_string(groups.size()) +
         " groups (" + std::to_string(items) +
         " items) together, one launch per scalar, size class and 64 groups, in place of their "
         "choices";
}

void launch_groups(std::span<const GroupLaunch> groups, const Exec& e) {
  const CudaExec& exec = cuda_exec(e);
  // An A/B build's patched grouped launch, on a thread that asked for it (bench --grouped).
  const bool ab = use_ab_grouped();
  auto joins_fused = [ab](const GroupLaunch& g) { return ab ? fusable_ab(g) : fusable(g); };
  // Two groups or more that the grouped kernel takes: one launch per scalar and size class.
  std::vector<const GroupLaunch*> fused;
  for (const GroupLaunch& g : groups) {
    if (joins_fused(g)) fused.push_back(&g);
  }
  std::vector<GroupLaunch> rest;
  if (fused.size() >= 2) {
    if (ab) {
      launch_fused_groups_ab(fused, exec);
    } else {
      launch_fused_groups(fused, exec);
    }
    for (const GroupLaunch& g : groups) {
      if (!joins_fused(g)) rest.push_back(g);
    }
    groups = rest;
  }
  std::size_t g = 0;
  while (g < groups.size()) {
    std::size_t end = g + 1;
    if (groupable(groups[g])) {
      while (end < groups.size() && groupable(groups[end]) &&
             joins(*groups[end - 1].problem, *groups[end].problem))
        ++end;
    }
    if (end - g >= 2) {
      launch_grouped(groups.subspan(g, end - g), exec);
    } else {
      groups[g].candidate->launch(*groups[g].problem, e);
    }
    g = end;
  }
}

}  // namespace gemmroute::cuda
