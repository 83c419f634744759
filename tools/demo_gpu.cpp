// The GPU section of `gemmroute demo`: the same columns as the CPU section for a workload on
// cuda:0, each shape measured by the shared harness (operands rotated over 3x the L2, the
// table's choice and cuBLAS interleaved in one process, CUDA events), after both were checked
// against the long-double reference. On a machine without a GPU it prints one line.
#include <algorithm>
#include <cstdio>
#include <string>

#include "core/context_state.hpp"
#include "demo_gpu.hpp"
#include "demo_rows.hpp"
#include "gemmroute/error.hpp"
#include "measure/measure.hpp"

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
  const measure::MeasureOptions mo = demo_options(reps);
  std::printf("\ngemmroute demo on %s (%s SMs); table %s\n",
              backend.fingerprint().get("device")->c_str(),
              backend.fingerprint().get("sms")->c_str(), table ? table->path.c_str() : "(none)");
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
  const std::vector<DemoRow> rows = measure_rows(*ctx, shapes, *device, mo, "cublas");
  const bool ok = std::all_of(rows.begin(), rows.end(), [](const DemoRow& r) { return r.ok; });
  std::printf("%zu GPU shapes, %s\n", std::size(shapes),
              ok ? "all within the error bound" : "SOME SHAPES FAILED");
  return ok ? 0 : 1;
}

}  // namespace gemmroute::cli
