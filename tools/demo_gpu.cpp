// The GPU section of `gemmroute demo`: the same columns as the CPU section for a workload on
// cuda:0, each shape measured by the shared harness (operands rotated over 3x the L2, the
// table's choice and cuBLAS interleaved in one process, CUDA events), after both were checked
// against the long-double reference. On a machine without a GPU it prints one line.
#include <cstdio>
#include <string>

#include "core/context_state.hpp"
#include "core/select.hpp"
#include "demo_gpu.hpp"
#include "gemmroute/error.hpp"
#include "measure/measure.hpp"
#include "measure_common.hpp"

namespace gemmroute::cli {

int demo_gpu(int reps) {
  std::unique_ptr<Context> ctx;
  try {
    ctx = std::make_unique<Context>(Device::cuda(0));
  } catch (const Error& e) {
    if (e.code() != Errc::unsupported) throw;
    std::printf("GPU: none found (%s)\n", e.message().c_str());
    return -1;
  }
  detail::ContextState& st = detail::Access::state(*ctx);
  const Backend& backend = *st.backend;
  const Table* table = st.table.get();
  auto device = measure::make_measure_device(backend, *st.exec);
  measure::MeasureOptions mo;
  mo.harness.repetitions = reps < 7 ? 7 : reps;
  std::printf("\ngemmroute demo on %s (%s SMs); table %s\n",
              backend.fingerprint().get("device")->c_str(),
              backend.fingerprint().get("sms")->c_str(), table ? table->path.c_str() : "(none)");
  std::printf("(%s)\n", measure::method_line(*device, mo).c_str());
  std::printf("%-40s %-18s %11s %11s %10s %10s\n", "shape", "choice", "ours", "cublas",
              "cublas/ours", "err/bound");
  const Key shapes[] = {
      {Scalar::f32, Op::N, Op::N, Layout::packed, 4, 4, 4, 1000000},
      {Scalar::f32, Op::N, Op::T, Layout::packed, 8, 8, 8, 200000},
      {Scalar::f64, Op::T, Op::N, Layout::packed, 12, 12, 12, 100000},
      {Scalar::f64, Op::N, Op::N, Layout::strided, 16, 16, 16, 50000},
      {Scalar::c32, Op::N, Op::C, Layout::packed, 8, 8, 8, 100000},
      {Scalar::c64, Op::C, Op::N, Layout::packed, 6, 6, 6, 100000},
      {Scalar::f32, Op::N, Op::N, Layout::packed, 48, 48, 48, 8000},
      {Scalar::f32, Op::N, Op::N, Layout::packed, 2048, 2048, 2048, 1},
      {Scalar::c64, Op::N, Op::T, Layout::packed, 256, 256, 256, 16},
  };
  const Candidate& vendor = backend.last_resort_vendor();
  Options none;
  const Overrides ov = st.overrides_for(none);
  bool ok = true;
  measure::Arena arena;
  for (const Key& key : shapes) {
    std::string choice;
    measure::LaunchArm ours{
        "auto",
        [&](const Problem& p) {
          choice = std::string(
              select(p, key_of(p), table, backend, *st.exec, ov, nullptr).candidate->spelling());
          return Verdict::yes();
        },
        [&](const Problem& p) {
          Problem q = p;  // what gemm() does per call: validate, key, select, launch
          validate(q, false, backend.host_memory());
          select(q, key_of(q), table, backend, *st.exec, ov, nullptr)
              .candidate->launch(q, *st.exec);
        }};
    const measure::LaunchArm arms[] = {ours, measure::arm_for(vendor, *st.exec)};
    const measure::PointReport r = measure::measure_arms(key, arms, *device, mo, &arena);
    const measure::ArmResult& a = r.arms[0];
    const measure::ArmResult& v = r.arms[1];
    const bool good = a.status == measure::Status::ok && v.status == measure::Status::ok;
    ok = ok && good;
    auto us = [](double t) {
      char b[32];
      std::snprintf(b, sizeof b, t < 1000 ? "%.1f us" : "%.2f ms", t < 1000 ? t : t / 1000);
      return std::string(b);
    };
    char shape[96];
    std::snprintf(shape, sizeof shape, "%s %s %s %lldx%lldx%lld batch %lld%s",
                  format_dtype(key.dtype).c_str(), std::string(to_string(key.ta)).c_str(),
                  std::string(to_string(key.tb)).c_str(), static_cast<long long>(key.m),
                  static_cast<long long>(key.n), static_cast<long long>(key.k),
                  static_cast<long long>(key.batch),
                  key.layout == Layout::strided ? " (ld+1)" : "");
    // detail is "err/bound X" for a checked arm.
    const std::string err = a.detail.rfind("err/bound ", 0) == 0 ? a.detail.substr(10) : a.detail;
    std::printf("%-40s %-18s %11s %11s %9.2fx %10s%s\n", shape, choice.c_str(),
                good ? us(a.stats.median).c_str() : "-", good ? us(v.stats.median).c_str() : "-",
                good ? v.stats.median / a.stats.median : 0.0, err.c_str(), good ? "" : "  FAILED");
    std::fflush(stdout);
  }
  std::printf("%zu GPU shapes, %s\n", std::size(shapes),
              ok ? "all within the error bound" : "SOME SHAPES FAILED");
  return ok ? 0 : 1;
}

}  // namespace gemmroute::cli
