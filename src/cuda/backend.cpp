// The CUDA backend: its vocabulary in tie-break order, its fingerprint, its last resorts and
// its execution resources.
//
// Tie-break order: lt.heuristic, cublas, the cuda.small family, cuda.stream, cuda.reg, cuda.wide,
// cuda.tiled, cuda.direct, then the `lt:` records a table resolves, in the order the tuner
// measured them. The vendor comes first, so a native kernel displaces it only when measured
// faster by more than the margin; lt.heuristic runs only the dtypes cuBLASLt is for (bf16, f16,
// TF32), where it is first so that cublasGemmEx and every record must beat cuBLASLt's own
// choice by the margin to displace it.
#include "cuda/backend.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "cuda/candidates.hpp"
#include "cuda/check.hpp"
#include "cuda/exec.hpp"
#include "cuda/lt.hpp"
#include "gemmroute/error.hpp"

namespace gemmroute::cuda {
namespace {

std::string version_string(int v) {  // 12040 -> "12.4"
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

class CudaBackend final : public Backend {
 public:
  // index < 0: the vocabulary alone (no device).
  explicit CudaBackend(int index) : index_(index), lt_heuristic_(make_lt_heuristic(index)) {
    candidates_.push_back(lt_heuristic_.get());
    candidates_.push_back(&cublas_candidate());
    for (const Candidate* c : small_candidates()) candidates_.push_back(c);
    for (const Candidate* c : stream_candidates()) candidates_.push_back(c);
    candidates_.push_back(&reg_candidate());
    candidates_.push_back(&reg_big_candidate());
    candidates_.push_back(&wide_candidate());
    candidates_.push_back(&tiled_candidate());
    candidates_.push_back(&direct_candidate());
    for (const Candidate* c : ab_candidates()) candidates_.push_back(c);
    fingerprint_.set("backend", "cuda");
    if (index < 0) return;
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, index), "cudaGetDeviceProperties");
    int driver = 0, runtime = 0;
    check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
    check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
    int major = 0, minor = 0, patch = 0;
    check(cublasGetProperty(MAJOR_VERSION, &major), "cublasGetProperty");
    check(cublasGetProperty(MINOR_VERSION, &minor), "cublasGetProperty");
    check(cublasGetProperty(PATCH_LEVEL, &patch), "cublasGetProperty");
    const std::size_t lt = cublasLtGetVersion();
    fingerprint_.set("device", prop.name);
    fingerprint_.set("arch", "sm_" + std::to_string(prop.major) + std::to_string(prop.minor));
    fingerprint_.set("sms", std::to_string(prop.multiProcessorCount));
    fingerprint_.set("memory", std::to_string(prop.totalGlobalMem >> 20) + " MiB");
    fingerprint_.set("l2", std::to_string(prop.l2CacheSize >> 10) + " KiB");
    fingerprint_.set("driver", "CUDA " + version_string(driver));
    fingerprint_.set("runtime", "CUDA " + version_string(runtime));
    fingerprint_.set("cublas", std::to_string(major) + "." + std::to_string(minor) + "." +
                                   std::to_string(patch));
    fingerprint_.set("cublaslt", std::to_string(lt / 10000) + "." +
                                     std::to_string((lt / 100) % 100) + "." +
                                     std::to_string(lt % 100));
  }
  BackendKind kind() const override { return BackendKind::cuda; }
  std::string_view name() const override { return "cuda"; }
  const Fingerprint& fingerprint() const override { return fingerprint_; }
  std::span<const Candidate* const> candidates() const override { return candidates_; }
  const Candidate& last_resort_native() const override { return direct_candidate(); }
  const Candidate& last_resort_vendor() const override { return cublas_candidate(); }
  // Native kernels and cuBLAS run on any GPU this build runs on; cuBLASLt algorithm records
  // hold only for the cuBLASLt version they were measured with.
  bool depends_on(const Candidate& c, std::string_view field) const override {
    return field == "cublaslt" && c.spelling().starts_with("lt:");
  }
  bool host_memory() const override { return false; }
  const Candidate& vendor_default(DType dtype) const override {
    return lt_dtype(dtype) ? *lt_heuristic_ : cublas_candidate();
  }
  // `lt:` records are made for the spelling (and checked against the device when they run).
  Resolved resolve(std::string_view spelling) const override {
    if (!spelling.starts_with("lt:")) return Backend::resolve(spelling);
    Resolved r;
    std::string why;
    const auto record = parse_lt(spelling, &why);
    if (!record) {
      r.error = "bad cuBLASLt record '" + std::string(spelling) + "': " + why;
      return r;
    }
    r.owned = make_lt_candidate(*record, index_);
    r.candidate = r.owned.get();
    return r;
  }
  SearchSpace search_space(const Problem& probe, const SearchBudget& budget) const override {
    return lt_search_space(probe, index_, budget);
  }
  // Each candidate's time model (core/model.hpp): replayed over the H200 measurements, held-out
  // training shapes 1.155 -> 1.063 and 1.102 -> 1.042 regret geomean against the nearest row,
  // off-grid 1.081 -> 1.032 and off-grid-2 1.131 -> 1.055 (bench/results/h200/README.md, "A time
  // model per candidate"). Interpolating the CPU's way (predict) chose worse than either there.
  Selector default_selector() const override { return Selector::model; }
  // Chosen by leaving each of 400 measured mixed shapes out of the H200 table in turn and
  // selecting for it from the rest (bench/results/h200/README.md, "Reach"): rows of the other
  // forms and layouts count 0.5 farther per differing field, and the farther the row, the more a
  // native kernel must have beaten cuBLAS there to be trusted here. A row of the same items at
  // another batch, both of 1024 items or more, counts its batch distance at half (the 24^3 f32
  // row at 16384 items kept cuBLAS at 29184, 1.24x slower; over the lattice's same-item pairs
  // it trusts 314 native picks instead of 297 with the same 4 slower than cuBLAS, where a
  // discount at any batch gave 58: scripts/reach_pairs.py). A key and a row that both move at
  // most 1 MiB with k <= 64 are launch-bound (a few microseconds, cuBLAS's call costing about
  // twice a native launch): only k and the forms counted in their distance, since the native
  // kernels loop over k and over nothing else. Replayed over the off-grid bench, regret 1.532 ->
  // 1.273; cuda-mixed 1.157 -> 1.100; the 400 training shapes held out 1.241 -> 1.146, with
  // the same 6 picks slower than cuBLAS (bench/results/h200/README.md, "Reach").
  // Among launch-bound rows, the nearest is found with m, n and the batch at a quarter of their
  // distance, for the same reason: with the campaign complete (2095 points), the nearest by the
  // whole distance was often a row of other forms (f64 T T 125 x 5 x 27 took N N 64 x 4 x 64,
  // not T T 32^3, and lost 2.2x); replayed over both off-grid runs 1.085 -> 1.052 and 1.156 ->
  // 1.100, held out 1.093 -> 1.089, cuda-mixed 1.057 -> 1.066 (docs/decisions.md).
  // Between two launch-bound calls the forms and the layout no longer count either (only k):
  // a native launch costs the same in every form, and in five replays of the off-grid and
  // held-out measurements each of the 5 picks this changed went from cuBLAS to cuda.tiled,
  // 1.25-2.45x faster, none slower (docs/decisions.md, "Launch-bound calls: only k counts").
  Reach reach() const override { return {0.5, 0.2, 0.5, 1024, 1 << 20, 64, 0.25}; }
  void launch_groups(std::span<const GroupLaunch> groups, const Exec& exec) const override {
    cuda::launch_groups(groups, exec);
  }
  std::string group_launch_note(std::span<const GroupLaunch> groups) const override {
    return cuda::group_launch_note(groups);
  }
#ifdef GEMMROUTE_AB_SMALL
  bool has_ab_grouped() const override { return true; }
#endif
  std::unique_ptr<Exec> make_exec(void* stream) const override {
    if (index_ < 0) {
      throw Error(Errc::unsupported, "device", "the CUDA vocabulary alone runs nothing");
    }
    return std::make_unique<CudaExec>(index_, static_cast<cudaStream_t>(stream));
  }

 private:
  int index_;
  std::unique_ptr<Candidate> lt_heuristic_;
  Fingerprint fingerprint_;
  std::vector<const Candidate*> candidates_;
};

}  // namespace

std::span<const Candidate* const> ab_candidates() {
  static const std::vector<const Candidate*> all = [] {
    std::vector<const Candidate*> out;
#ifdef GEMMROUTE_AB_SMALL
    for (const Candidate* c : small_candidates_ab()) out.push_back(c);
#endif
#ifdef GEMMROUTE_AB_STREAM
    for (const Candidate* c : stream_candidates_ab()) out.push_back(c);
#endif
#ifdef GEMMROUTE_AB_REG
    out.push_back(&reg_candidate_ab());
    out.push_back(&reg_big_candidate_ab());
    out.push_back(&wide_candidate_ab());
#endif
    return out;
  }();
  return all;
}

#ifndef GEMMROUTE_AB_SMALL
// No patched copy of small.cu in this build: use_ab_grouped() is false, so these never run.
std::span<const Candidate* const> small_candidates_ab() {
  return {};
}
bool fusable_ab(const GroupLaunch& group) {
  return fusable(group);
}
void launch_fused_groups_ab(std::span<const GroupLaunch* const> groups, const CudaExec& exec) {
  launch_fused_groups(groups, exec);
}
#endif

bool use_ab_grouped() {
#ifdef GEMMROUTE_AB_SMALL
  return ab_grouped();
#else
  return false;
#endif
}

std::unique_ptr<Backend> make_vocabulary() {
  return std::make_unique<CudaBackend>(-1);
}

std::unique_ptr<Backend> make_backend(Device device) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();  // clear it: the process may still use the CPU
    throw Error(Errc::unsupported, "device",
                std::string("no CUDA device: cudaGetDeviceCount failed: ") +
                    cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
  }
  if (count == 0) throw Error(Errc::unsupported, "device", "no CUDA device: none is visible");
  if (device.index < 0 || device.index >= count) {
    throw Error(Errc::unsupported, "device",
                "no CUDA device " + std::to_string(device.index) + ": " + std::to_string(count) +
                    " visible (cuda:0 to cuda:" + std::to_string(count - 1) + ")");
  }
  return std::make_unique<CudaBackend>(device.index);
}

}  // namespace gemmroute::cuda
