// gemmroute demo: a realistic mixed CPU workload through the public API. Per shape: the
// candidate the table chose, its time, the vendor's time (pinned), their ratio, the larger
// spread of the two, and the worst error against the long-double reference as a fraction of
// the allowed bound. Both arms of a row are timed by the shared harness (demo_rows.hpp).
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "args.hpp"
#include "core/context_state.hpp"
#include "demo_gpu.hpp"
#include "demo_rows.hpp"
#include "gemmroute/gemmroute.hpp"
#include "measure/harness.hpp"
#include "measure/measure.hpp"
#include "reference/reference.hpp"
#include "verbs.hpp"

namespace gemmroute::cli {
namespace {

template <class T>
T random_value(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(d(rng));
  } else {
    using R = typename T::value_type;
    return T(static_cast<R>(d(rng)), static_cast<R>(d(rng)));
  }
}

template <class T>
std::vector<T> random_vector(std::size_t n, std::mt19937_64& rng) {
  std::vector<T> v(n);
  for (auto& x : v) x = random_value<T>(rng);
  return v;
}

// A grouped batch of mixed sizes (600 f64 items, each dimension one of 7 sizes) against the
// vendor's way, one OpenBLAS call per item (it has no grouped call). Both arms are checked
// item by item against the reference, then timed by the shared harness over enough copies of
// the items to rotate through rotation_factor x the cache.
DemoRow run_grouped(Context& ctx, std::mt19937_64& rng, measure::MeasureDevice& device,
                    const measure::MeasureOptions& mo) {
  using T = double;
  const std::int64_t sizes[] = {3, 8, 13, 16, 24, 40, 64};
  std::uniform_int_distribution<int> pick(0, 6);
  struct Shape {
    std::int64_t m, n, k;
  };
  std::vector<Shape> shapes(600);
  double set_bytes = 0;
  for (auto& s : shapes) {
    s = {sizes[pick(rng)], sizes[pick(rng)], sizes[pick(rng)]};
    set_bytes += static_cast<double>(s.m * s.k + s.k * s.n + s.m * s.n) * sizeof(T);
  }
  const auto set_count = static_cast<std::size_t>(
      std::clamp(std::ceil(mo.operands.rotation_factor * static_cast<double>(device.cache_bytes()) /
                           set_bytes),
                 1.0, 64.0));
  struct Set {
    std::vector<std::vector<T>> a, b, c;
    std::vector<GemmItem> list;
  };
  std::vector<Set> sets(set_count);
  const T alpha = 0.75, beta = -0.5;
  for (Set& set : sets) {
    for (const Shape& s : shapes) {
      set.a.push_back(random_vector<T>(static_cast<std::size_t>(s.m * s.k), rng));
      set.b.push_back(random_vector<T>(static_cast<std::size_t>(s.k * s.n), rng));
      set.c.push_back(random_vector<T>(static_cast<std::size_t>(s.m * s.n), rng));
    }
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      const Shape& s = shapes[i];
      set.list.push_back(make_item<T>(Op::N, Op::N, s.m, s.n, s.k, alpha, set.a[i].data(), s.m,
                                      set.b[i].data(), s.k, beta, set.c[i].data(), s.m));
    }
  }
  Options vendor;
  vendor.pin = std::string(detail::Access::state(ctx).backend->last_resort_vendor().spelling());
  const measure::Arm arms[] = {
      {"auto", [&](std::int64_t s) { gemm_grouped(ctx, sets[static_cast<std::size_t>(s)].list); }},
      {"vendor loop",
       [&](std::int64_t s) {
         Set& set = sets[static_cast<std::size_t>(s)];
         for (std::size_t i = 0; i < shapes.size(); ++i) {
           const Shape& sh = shapes[i];
           gemm<T>(ctx, Op::N, Op::N, sh.m, sh.n, sh.k, alpha, set.a[i].data(), sh.m, 0,
                   set.b[i].data(), sh.k, 0, beta, set.c[i].data(), sh.m, 0, 1, vendor);
         }
       }},
  };
  // Each arm once on set 0, every item checked; C restored afterwards.
  DemoRow row;
  row.shape = "f64 N N grouped: 600 items, 7^3 sizes";
  row.choice = "(per group)";
  row.ok = true;
  double worst = 0;
  for (const measure::Arm& arm : arms) {
    const std::vector<std::vector<T>> c0 = sets[0].c;
    arm.run(0);
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      const Shape& s = shapes[i];
      Problem got;
      got.dtype = Scalar::f64;
      got.m = s.m;
      got.n = s.n;
      got.k = s.k;
      got.batch = 1;
      got.alpha = alpha;
      got.beta = beta;
      got.a = {sets[0].a[i].data(), nullptr, s.m, 0};
      got.b = {sets[0].b[i].data(), nullptr, s.k, 0};
      got.c = {sets[0].c[i].data(), nullptr, s.m, 0};
      Problem orig = got;
      orig.c.base = c0[i].data();
      const auto check = reference::check_against_reference(got, orig);
      worst = std::max(worst, check.worst);
      row.ok = row.ok && check.ok;
    }
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      std::copy(c0[i].begin(), c0[i].end(), sets[0].c[i].begin());
    }
  }
  char err[32];
  std::snprintf(err, sizeof err, "%.3f", worst);
  row.err = err;
  measure::HarnessOptions h = mo.harness;
  h.sets = static_cast<std::int64_t>(set_count);
  const std::vector<measure::ArmTiming> t = measure::time_arms(arms, h, device);
  row.ours_us = t[0].stats.median;
  row.vendor_us = t[1].stats.median;
  row.spread_pct = std::max(t[0].stats.spread_pct, t[1].stats.spread_pct);
  return row;
}

}  // namespace

int demo(const Argv& argv) {
  Args args(argv, {"reps", "seed"}, {});
  if (args.help()) {
    std::puts(
        "usage: gemmroute demo [--reps N] [--seed S]\n"
        "\n"
        "Runs a mixed CPU workload through the library: small batched squares, medium shapes\n"
        "and a grouped batch of mixed sizes. Every shape is checked against the long-double\n"
        "reference; `err/bound` is the worst |C - Cref| over its allowed bound (pass: <= 1).\n"
        "`vendor/ours` is the vendor's time (openblas pinned; on the grouped line, one call per\n"
        "item) over the time of the table's choice, both timed by the shared harness as tune\n"
        "and bench are (docs/measuring.md): interleaved arms in one process, an untimed lead-in\n"
        "call before each sample, operands rotated past the cache, medians of --reps samples\n"
        "(default and least 7); `spread` is the larger of the two arms' spreads. A row where\n"
        "both arms run one candidate reads 1.00x within it. --seed draws the grouped line's\n"
        "sizes and operands.\n"
        "\n"
        "Then, on a machine with a CUDA GPU, the same columns for a GPU workload on cuda:0\n"
        "against cuBLAS, measured by the shared harness (docs/measuring.md); without one, a\n"
        "line saying so.");
    return 0;
  }
  if (!args.positional().empty()) throw UsageError("unexpected '" + args.positional()[0] + "'");
  const int reps = static_cast<int>(args.integer("reps", 7, 1, 1000));
  std::mt19937_64 rng(static_cast<std::uint64_t>(
      args.integer("seed", 2026, 0, std::numeric_limits<std::int64_t>::max())));
  Context ctx;
  detail::ContextState& st = detail::Access::state(ctx);
  const Table* table = st.table.get();
  auto device = measure::make_measure_device(*st.backend, *st.exec);
  const measure::MeasureOptions mo = demo_options(reps);
  std::printf("gemmroute demo on %s (%s threads); table %s\n",
              st.backend->fingerprint().get("device")->c_str(),
              st.backend->fingerprint().get("cores")->c_str(),
              table ? table->path.c_str() : "(none)");
  const Key shapes[] = {
      {Scalar::f32, Op::N, Op::N, Layout::packed, 4, 4, 4, 20000},
      {Scalar::f32, Op::N, Op::T, Layout::packed, 8, 8, 8, 20000},
      {Scalar::f64, Op::T, Op::N, Layout::packed, 12, 12, 12, 10000},
      {Scalar::f64, Op::N, Op::N, Layout::packed, 16, 16, 16, 10000},
      {Scalar::c32, Op::N, Op::C, Layout::packed, 8, 8, 8, 10000},
      {Scalar::c64, Op::C, Op::N, Layout::packed, 16, 16, 16, 2000},
      {Scalar::f32, Op::N, Op::N, Layout::packed, 256, 256, 256, 4},
      {Scalar::f64, Op::T, Op::N, Layout::packed, 200, 300, 100, 8},
      {Scalar::c64, Op::N, Op::T, Layout::packed, 96, 96, 96, 4},
  };
  std::vector<DemoRow> rows = measure_rows(ctx, shapes, *device, mo, "vendor");
  rows.push_back(run_grouped(ctx, rng, *device, mo));
  print_row(rows.back());
  const bool ok = std::all_of(rows.begin(), rows.end(), [](const DemoRow& r) { return r.ok; });
  std::printf("%zu shapes, %s\n", rows.size(),
              ok ? "all within the error bound" : "SOME SHAPES FAILED the error bound");
  const int gpu = demo_gpu(reps);
  return ok && gpu <= 0 ? 0 : 1;
}

}  // namespace gemmroute::cli
