#include "demo_rows.hpp"

#include <algorithm>
#include <cstdio>

#include "core/dispatch.hpp"
#include "core/select.hpp"
#include "gemmroute/gemmroute.hpp"

namespace gemmroute::cli {

std::string format_us(double us) {
  char b[32];
  std::snprintf(b, sizeof b, us < 1000 ? "%.1f us" : "%.2f ms", us < 1000 ? us : us / 1000);
  return b;
}

namespace {

// One public gemm() call on the problem's operands (a strided batch): the path a program
// takes, GEMMROUTE_RECORD and GEMMROUTE_LOG included.
void call_gemm(Context& ctx, const Problem& p) {
  dispatch(p.dtype, [&]<class T>() {
    gemm<T>(ctx, p.ta, p.tb, p.m, p.n, p.k, p.alpha_as<T>(), static_cast<const T*>(p.a.base),
            p.a.ld, p.a.stride, static_cast<const T*>(p.b.base), p.b.ld, p.b.stride, p.beta_as<T>(),
            static_cast<T*>(const_cast<void*>(p.c.base)), p.c.ld, p.c.stride, p.batch);
  });
}

}  // namespace

DemoRow measure_shape(Context& ctx, const Key& key, measure::MeasureDevice& device,
                      const measure::MeasureOptions& options, measure::Arena& arena) {
  detail::ContextState& st = detail::Access::state(ctx);
  const Backend& backend = *st.backend;
  const Table* table = st.table.get();
  Options none;
  const Overrides ov = st.overrides_for(none);
  DemoRow row;
  measure::LaunchArm ours{
      "auto",
      [&](const Problem& p) {
        row.choice = std::string(
            select(p, key_of(p), table, backend, *st.exec, ov, nullptr).candidate->spelling());
        return Verdict::yes();
      },
      [&](const Problem& p) { call_gemm(ctx, p); }};
  const measure::LaunchArm arms[] = {ours,
                                     measure::arm_for(backend.last_resort_vendor(), *st.exec)};
  const measure::PointReport r = measure::measure_arms(key, arms, device, options, &arena);
  const measure::ArmResult& a = r.arms[0];
  const measure::ArmResult& v = r.arms[1];
  row.ok = a.status == measure::Status::ok && v.status == measure::Status::ok;
  if (row.ok) {
    row.ours_us = a.stats.median;
    row.vendor_us = v.stats.median;
    row.spread_pct = std::max(a.stats.spread_pct, v.stats.spread_pct);
  }
  // detail is "err/bound X" for a checked arm.
  row.err = a.detail.rfind("err/bound ", 0) == 0 ? a.detail.substr(10) : a.detail;
  char shape[96];
  std::snprintf(shape, sizeof shape, "%s %s %s %lldx%lldx%lld batch %lld%s",
                format_dtype(key.dtype).c_str(), std::string(to_string(key.ta)).c_str(),
                std::string(to_string(key.tb)).c_str(), static_cast<long long>(key.m),
                static_cast<long long>(key.n), static_cast<long long>(key.k),
                static_cast<long long>(key.batch), key.layout == Layout::strided ? " (ld+1)" : "");
  row.shape = shape;
  return row;
}

measure::MeasureOptions demo_options(int reps) {
  measure::MeasureOptions mo;
  mo.harness.repetitions = std::max(reps, 7);
  return mo;
}

std::vector<DemoRow> measure_rows(Context& ctx, std::span<const Key> shapes,
                                  measure::MeasureDevice& device,
                                  const measure::MeasureOptions& options,
                                  const std::string& vendor) {
  std::printf("ratios: vendor median / ours, both arms timed by the shared harness (%s)\n",
              measure::method_line(device, options).c_str());
  std::printf("%-40s %-18s %11s %11s %11s %7s %10s\n", "shape", "choice", "ours", vendor.c_str(),
              (vendor + "/ours").c_str(), "spread", "err/bound");
  std::vector<DemoRow> rows;
  measure::Arena arena;
  for (const Key& key : shapes) {
    rows.push_back(measure_shape(ctx, key, device, options, arena));
    print_row(rows.back());
  }
  return rows;
}

void print_row(const DemoRow& l) {
  std::printf("%-40s %-18s %11s %11s %10.2fx %6.1f%% %10s%s\n", l.shape.c_str(), l.choice.c_str(),
              l.ok ? format_us(l.ours_us).c_str() : "-",
              l.ok ? format_us(l.vendor_us).c_str() : "-", l.ok ? l.vendor_us / l.ours_us : 0.0,
              l.spread_pct, l.err.c_str(), l.ok ? "" : "  FAILED");
  std::fflush(stdout);
}

}  // namespace gemmroute::cli
