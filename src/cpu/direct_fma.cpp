// cpu.direct's kernel built with FMA enabled (see direct.cpp); call only where
// cpu_has_avx2_fma() holds.
#include "cpu/direct_kernel.hpp"

namespace gemmroute::cpu {

void direct_gemm_fma(const Problem& p) {
  dispatch(p.dtype, [&]<class T>() { direct_batch<T>(p); });
}

}  // namespace gemmroute::cpu
