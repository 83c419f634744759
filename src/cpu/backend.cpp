// The CPU backend: its vocabulary in tie-break order, its fingerprint and last resorts.
//
// Tie-break order: openblas, openblas:par=item, libxsmm, blis, blis:par=item, cpu.small,
// cpu.tile, cpu.direct. The vendors come first, so a native kernel displaces them only when
// measured faster by more than the margin: where two are within noise, the table keeps the
// vendor. OpenBLAS, the one vendor every machine has, comes before the optional libraries, so
// a tie keeps the entry that runs everywhere.
//
// The optional libraries' entries depend on their fingerprint fields (`libxsmm`, `blis`): a
// table measured with a library marks its entries not runnable on a machine that has another
// version or none.
#include <omp.h>

#include <array>
#include <fstream>
#include <thread>

#include "cpu/backend.hpp"
#include "cpu/candidates.hpp"
#include "cpu/libraries.hpp"
#include "cpu/small_kernels.hpp"

namespace gemmroute::cpu {
namespace {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) {
        auto v = line.substr(colon + 1);
        while (!v.empty() && v.front() == ' ') v.erase(0, 1);
        return v;
      }
    }
  }
  return "unknown cpu";
}

class CpuBackend final : public Backend {
 public:
  CpuBackend() {
    candidates_ = {&openblas_candidate(), &openblas_item_candidate(), &libxsmm_candidate(),
                   &blis_candidate(),     &blis_item_candidate(),     &small_candidate(),
                   &tile_candidate(),     &direct_candidate()};
    fingerprint_.set("backend", "cpu");
    fingerprint_.set("device", cpu_model());
#if defined(__x86_64__)
    fingerprint_.set("arch", cpu_has_avx2_fma() ? "x86_64+avx2+fma" : "x86_64");
#else
    fingerprint_.set("arch", "unknown");
#endif
    fingerprint_.set("cores", std::to_string(omp_get_max_threads()));
    std::string config = openblas_config();
    fingerprint_.set("openblas", config.empty() ? "none" : config);
    std::string core = openblas_corename();
    fingerprint_.set("openblas_core", core.empty() ? "none" : core);
    std::string xsmm = libxsmm_description();
    fingerprint_.set("libxsmm", xsmm.empty() ? "none" : xsmm);
    std::string blis = blis_description();
    fingerprint_.set("blis", blis.empty() ? "none" : blis);
  }
  BackendKind kind() const override {
    return BackendKind::cpu;
  }
  // No CPU candidate's can_run looks at a pointer: only the packed layout's 16 bytes count.
  std::uintptr_t selection_alignment() const override {
    return 16;
  }
  std::string_view name() const override {
    return "cpu";
  }
  const Fingerprint& fingerprint() const override {
    return fingerprint_;
  }
  std::span<const Candidate* const> candidates() const override {
    return candidates_;
  }
  const Candidate& last_resort_native() const override {
    return direct_candidate();
  }
  const Candidate& last_resort_vendor() const override {
    return openblas_candidate();
  }
  // The optional libraries' candidates depend on their library's field. Everything else runs
  // on any x86-64 this build runs on: a mismatch there is reported, and disables nothing.
  bool depends_on(const Candidate& c, std::string_view field) const override {
    if (&c == &libxsmm_candidate()) return field == "libxsmm";
    if (&c == &blis_candidate() || &c == &blis_item_candidate()) return field == "blis";
    return false;
  }
  void launch_groups(std::span<const GroupLaunch> groups, const Exec& exec) const override {
    cpu::launch_groups(groups, exec);
  }

 private:
  std::array<const Candidate*, 8> candidates_{};
  Fingerprint fingerprint_;
};

}  // namespace

std::unique_ptr<Backend> make_backend(Device) {
  return std::make_unique<CpuBackend>();
}

}  // namespace gemmroute::cpu
