#include "core/backend.hpp"

#include <cstdlib>
#include <string_view>

#include "gemmroute/error.hpp"

namespace gemmroute {

const Candidate* Backend::find(std::string_view spelling) const {
  for (const Candidate* c : candidates()) {
    if (c->spelling() == spelling) return c;
  }
  for (const Candidate* c : {&last_resort_native(), &last_resort_vendor()}) {
    if (c->spelling() == spelling) return c;
  }
  return nullptr;
}

Resolved Backend::resolve(std::string_view spelling) const {
  Resolved r;
  r.candidate = find(spelling);
  if (!r.candidate) {
    r.error = "unknown spelling '" + std::string(spelling) + "' for the " + std::string(name()) +
              " backend";
  }
  return r;
}

std::unique_ptr<Exec> Backend::make_exec(void* stream) const {
  if (stream) {
    throw Error(Errc::unsupported, "stream",
                "the " + std::string(name()) + " backend runs on no stream");
  }
  return std::make_unique<Exec>();
}

void Backend::launch_groups(std::span<const GroupLaunch> groups, const Exec& exec) const {
  for (const GroupLaunch& g : groups) g.candidate->launch(*g.problem, exec);
}

void require_runnable(const Candidate& candidate, const Problem& problem, const Exec& exec) {
  Verdict v = runnable(candidate, problem, exec);
  if (!v.ok) {
    throw Error(Errc::not_runnable, "candidate",
                std::string(candidate.spelling()) + " cannot run " + to_string(key_of(problem)) +
                    ": " + v.reason);
  }
}

std::unique_ptr<Backend> make_backend_or_vocabulary(Device device, bool* offline) {
  *offline = false;
  try {
    return make_backend(device);
  } catch (const Error& e) {
    if (e.code() != Errc::unsupported) throw;
    for (const BackendEntry& entry : built_backends()) {
      if (entry.kind == device.kind) {
        *offline = true;
        return entry.vocabulary();
      }
    }
    throw;
  }
}

std::unique_ptr<Backend> make_backend(Device device) {
  for (const BackendEntry& e : built_backends()) {
    if (e.kind == device.kind) return e.make(device);
  }
  if (device.kind == BackendKind::cuda) {
    throw Error(Errc::unsupported, "device",
                "this build has no CUDA backend (it was configured without a CUDA compiler or "
                "with -DGEMMROUTE_CUDA=OFF)");
  }
  throw Error(Errc::unsupported, "device", "this build has no backend for that device");
}

namespace {
thread_local bool ab_grouped_on = false;
}  // namespace

void set_ab_grouped(bool on) noexcept {
  ab_grouped_on = on;
}

bool ab_grouped() noexcept {
  // GEMMROUTE_AB_GROUPED=1 turns it on for every thread of the process: the GPU tests and the
  // sanitizers run the patched grouped launch that way.
  static const bool everywhere = [] {
    const char* v = std::getenv("GEMMROUTE_AB_GROUPED");
    return v != nullptr && std::string_view(v) == "1";
  }();
  return ab_grouped_on || everywhere;
}

}  // namespace gemmroute
