// The one list of the backends this build has (as oneDNN lists its implementations in one
// file): core iterates it and names no backend itself.
#include "core/backend.hpp"
#include "cpu/backend.hpp"
#ifdef GEMMROUTE_WITH_CUDA
#include "cuda/backend.hpp"
#endif

namespace gemmroute {

std::span<const BackendEntry> built_backends() {
  static const BackendEntry list[] = {
      {BackendKind::cpu, "cpu", &cpu::make_backend, [] { return cpu::make_backend({}); }},
#ifdef GEMMROUTE_WITH_CUDA
      {BackendKind::cuda, "cuda", &cuda::make_backend, &cuda::make_vocabulary},
#endif
  };
  return list;
}

}  // namespace gemmroute
