// cpu.direct: the generic native kernel and the CPU's last resort. Every scalar, every form,
// any layout, any x86-64. The mixed dtypes (bf16, f16, TF32) run mixed_kernel.cpp's kernel. Each
// element of C is summed in the order every native kernel uses (native_order.hpp), one element at a
// time (direct_kernel.hpp), so it gives the same bits as cpu.small and cpu.tile wherever they also
// run. On a CPU with FMA the kernel built with FMA enabled (direct_fma.cpp) runs; elsewhere this
// file's build, whose std::fma is a library call.
#include <complex>

#include "core/candidate.hpp"
#include "cpu/batch.hpp"
#include "cpu/candidates.hpp"
#include "cpu/direct_kernel.hpp"
#include "cpu/mixed_kernel.hpp"
#include "cpu/small_kernels.hpp"

namespace gemmroute::cpu {

void direct_gemm_fma(const Problem& problem);  // direct_fma.cpp

namespace {

class Direct final : public Candidate {
 public:
  std::string_view spelling() const override { return "cpu.direct"; }
  Provider provider() const override { return Provider::native; }
  Verdict can_run(const Problem&) const override { return Verdict::yes(); }
  void launch(const Problem& p, const Exec& exec) const override {
    if (!can_run(p).ok) require_runnable(*this, p, exec);  // throws: no workspace is used
    static const bool fma = cpu_has_avx2_fma();
    if (runs_mixed(p.dtype)) return mixed_gemm(p);
    dispatch(p.dtype, [&]<class T>() {
      if (quick_path<T>(p)) return;
      if (fma) {
        direct_gemm_fma(p);
      } else {
        direct_batch<T>(p);
      }
    });
  }
};

}  // namespace

const Candidate& direct_candidate() {
  static const Direct instance;
  return instance;
}

}  // namespace gemmroute::cpu
