#include "core/backend.hpp"

#include "gemmroute/error.hpp"

namespace gemmroute {

const Candidate* Backend::find(std::string_view spelling) const {
  for (const Candidate* c : candidates()) {
    if (c->spelling() == spelling) return c;
  }
  return nullptr;
}

void require_runnable(const Candidate& candidate, const Problem& problem) {
  Verdict v = candidate.can_run(problem);
  if (!v.ok) {
    throw Error(Errc::not_runnable, "candidate",
                std::string(candidate.spelling()) + " cannot run " + to_string(key_of(problem)) +
                    ": " + v.reason);
  }
}

std::unique_ptr<Backend> make_cpu_backend();

std::unique_ptr<Backend> make_backend(Device device) {
  switch (device.kind) {
    case BackendKind::cpu:
      return make_cpu_backend();
    case BackendKind::cuda:
      throw Error(Errc::unsupported, "device", "this build has no CUDA backend");
  }
  throw Error(Errc::invalid_argument, "device", "unknown device kind");
}

}  // namespace gemmroute
