// cpu.small and cpu.tile: the candidates around small_kernels.cpp. Built without ISA flags, so
// can_run is safe on any x86-64 and says why the kernels cannot run.
#include "core/candidate.hpp"
#include "cpu/batch.hpp"
#include "cpu/candidates.hpp"
#include "cpu/small_kernels.hpp"

namespace gemmroute::cpu {

bool cpu_has_avx2_fma() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
#else
  return false;
#endif
}

namespace {

class Small final : public Candidate {
 public:
  std::string_view spelling() const override { return "cpu.small"; }
  Provider provider() const override { return Provider::native; }
  Verdict can_run(const Problem& p) const override {
    if (const char* why = uniform_only(p.dtype)) return Verdict::no(why);
    if (p.m > kSmallMax || p.n > kSmallMax || p.k > kSmallMax) {
      return Verdict::no("max(m, n, k) > 16");
    }
    if (!cpu_has_avx2_fma()) return Verdict::no("this CPU lacks AVX2 and FMA");
    return Verdict::yes();
  }
  void launch(const Problem& p, const Exec& exec) const override {
    if (!can_run(p).ok) require_runnable(*this, p, exec);  // throws: no workspace is used
    const bool quick = dispatch(p.dtype, [&]<class T>() { return quick_path<T>(p); });
    if (!quick) small_gemm(p);
  }
};

// The same micro-kernels tiled over items of any size, without packing B: for the off-grid
// shapes between cpu.small and OpenBLAS's blocked kernels (a small m or n, a short k).
class Tile final : public Candidate {
 public:
  std::string_view spelling() const override { return "cpu.tile"; }
  Provider provider() const override { return Provider::native; }
  Verdict can_run(const Problem& p) const override {
    if (const char* why = uniform_only(p.dtype)) return Verdict::no(why);
    if (!cpu_has_avx2_fma()) return Verdict::no("this CPU lacks AVX2 and FMA");
    return Verdict::yes();
  }
  void launch(const Problem& p, const Exec& exec) const override {
    if (!can_run(p).ok) require_runnable(*this, p, exec);  // throws: no workspace is used
    const bool quick = dispatch(p.dtype, [&]<class T>() { return quick_path<T>(p); });
    if (!quick) tile_gemm(p);
  }
};

}  // namespace

const Candidate& small_candidate() {
  static const Small instance;
  return instance;
}

const Candidate& tile_candidate() {
  static const Tile instance;
  return instance;
}

}  // namespace gemmroute::cpu
