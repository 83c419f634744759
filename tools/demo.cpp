// gemmroute demo: a realistic mixed CPU workload through the public API. Per shape: the
// candidate the table chose, its time, the vendor's time (pinned), their ratio, and the
// worst error against the long-double reference as a fraction of the allowed bound.
#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "args.hpp"
#include "core/context_state.hpp"
#include "core/select.hpp"
#include "demo_gpu.hpp"
#include "gemmroute/gemmroute.hpp"
#include "problem_args.hpp"
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

// Median wall time of `reps` runs after one warm-up, in seconds.
template <class F>
double median_seconds(F&& f, int reps) {
  f();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

std::string format_time(double s) {
  char buf[32];
  if (s < 1e-3)
    std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.2f ms", s * 1e3);
  return buf;
}

struct Line {
  std::string shape, choice, t_ours, t_vendor;
  double speedup = 0, err = 0;
  bool ok = true;
};

void print(const Line& l) {
  std::printf("%-40s %-18s %11s %11s %9.2fx %10.3f%s\n", l.shape.c_str(), l.choice.c_str(),
              l.t_ours.c_str(), l.t_vendor.c_str(), l.speedup, l.err, l.ok ? "" : "  FAILED");
  std::fflush(stdout);
}

std::string chosen(Context& ctx, const Problem& p) {
  auto& st = detail::Access::state(ctx);
  Options none;
  return std::string(select(p, key_of(p), st.table_for(none), *st.backend, *st.exec,
                            st.overrides_for(none), nullptr)
                         .candidate->spelling());
}

template <class T>
Line run_strided(Context& ctx, Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k,
                 std::int64_t batch, std::mt19937_64& rng, int reps) {
  const std::int64_t rows_a = ta == Op::N ? m : k, cols_a = ta == Op::N ? k : m;
  const std::int64_t rows_b = tb == Op::N ? k : n, cols_b = tb == Op::N ? n : k;
  auto a = random_vector<T>(static_cast<std::size_t>(rows_a * cols_a * batch), rng);
  auto b = random_vector<T>(static_cast<std::size_t>(rows_b * cols_b * batch), rng);
  auto c0 = random_vector<T>(static_cast<std::size_t>(m * n * batch), rng);
  auto c = c0;
  const T alpha = random_value<T>(rng), beta = random_value<T>(rng);
  auto call = [&](const Options& o) {
    gemm<T>(ctx, ta, tb, m, n, k, alpha, a.data(), rows_a, rows_a * cols_a, b.data(), rows_b,
            rows_b * cols_b, beta, c.data(), m, m * n, batch, o);
  };
  // Correctness first: one call from C0, checked against the reference.
  call({});
  Problem got;
  got.dtype = scalar_of_v<T>;
  got.ta = fold_op(got.dtype, ta);
  got.tb = fold_op(got.dtype, tb);
  got.m = m;
  got.n = n;
  got.k = k;
  got.batch = batch;
  got.alpha = std::complex<double>(alpha);
  got.beta = std::complex<double>(beta);
  got.a = {a.data(), nullptr, rows_a, rows_a * cols_a};
  got.b = {b.data(), nullptr, rows_b, rows_b * cols_b};
  got.c = {c.data(), nullptr, m, m * n};
  Problem orig = got;
  orig.c.base = c0.data();
  auto check = reference::check_against_reference(got, orig);

  Options vendor;
  vendor.pin = std::string(detail::Access::state(ctx).backend->last_resort_vendor().spelling());
  const double t_ours = median_seconds([&] { call({}); }, reps);
  const double t_vendor = median_seconds([&] { call(vendor); }, reps);
  char shape[96];
  std::snprintf(shape, sizeof shape, "%s %s %s %lldx%lldx%lld batch %lld",
                std::string(to_string(scalar_of_v<T>)).c_str(), std::string(to_string(ta)).c_str(),
                std::string(to_string(tb)).c_str(), static_cast<long long>(m),
                static_cast<long long>(n), static_cast<long long>(k),
                static_cast<long long>(batch));
  return {
      shape,       chosen(ctx, got), format_time(t_ours), format_time(t_vendor), t_vendor / t_ours,
      check.worst, check.ok};
}

// A grouped batch of mixed sizes: every item checked, the whole call timed.
Line run_grouped(Context& ctx, std::mt19937_64& rng, int reps) {
  using T = double;
  const std::int64_t sizes[] = {3, 8, 13, 16, 24, 40, 64};
  std::uniform_int_distribution<int> pick(0, 6);
  struct Item {
    std::int64_t m, n, k;
    std::vector<T> a, b, c0, c;
  };
  std::vector<Item> items(600);
  for (auto& it : items) {
    it.m = sizes[pick(rng)];
    it.n = sizes[pick(rng)];
    it.k = sizes[pick(rng)];
    it.a = random_vector<T>(static_cast<std::size_t>(it.m * it.k), rng);
    it.b = random_vector<T>(static_cast<std::size_t>(it.k * it.n), rng);
    it.c0 = random_vector<T>(static_cast<std::size_t>(it.m * it.n), rng);
    it.c = it.c0;
  }
  const T alpha = 0.75, beta = -0.5;
  std::vector<GemmItem> list;
  for (auto& it : items) {
    list.push_back(make_item<T>(Op::N, Op::N, it.m, it.n, it.k, alpha, it.a.data(), it.m,
                                it.b.data(), it.k, beta, it.c.data(), it.m));
  }
  gemm_grouped(ctx, list);
  double worst = 0;
  bool ok = true;
  for (auto& it : items) {
    Problem got;
    got.dtype = Scalar::f64;
    got.m = it.m;
    got.n = it.n;
    got.k = it.k;
    got.batch = 1;
    got.alpha = alpha;
    got.beta = beta;
    got.a = {it.a.data(), nullptr, it.m, 0};
    got.b = {it.b.data(), nullptr, it.k, 0};
    got.c = {it.c.data(), nullptr, it.m, 0};
    Problem orig = got;
    orig.c.base = it.c0.data();
    auto check = reference::check_against_reference(got, orig);
    worst = std::max(worst, check.worst);
    ok = ok && check.ok;
  }
  Options vendor;
  vendor.pin = std::string(detail::Access::state(ctx).backend->last_resort_vendor().spelling());
  // OpenBLAS has no grouped call: the vendor's way is a loop, one call per item.
  auto vendor_loop = [&] {
    for (auto& it : items) {
      gemm<T>(ctx, Op::N, Op::N, it.m, it.n, it.k, alpha, it.a.data(), it.m, 0, it.b.data(), it.k,
              0, beta, it.c.data(), it.m, 0, 1, vendor);
    }
  };
  const double t_ours = median_seconds([&] { gemm_grouped(ctx, list); }, reps);
  const double t_vendor = median_seconds(vendor_loop, reps);
  return {"f64 N N grouped: 600 items, 7^3 sizes",
          "(per group)",
          format_time(t_ours),
          format_time(t_vendor),
          t_vendor / t_ours,
          worst,
          ok};
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
        "Times are medians of --reps runs (default 7) after a warm-up; `vendor/ours` is the\n"
        "vendor's time (openblas pinned; on the grouped line, one call per item) over the time\n"
        "of the table's choice.\n"
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
  const Table* table = detail::Access::state(ctx).table.get();
  std::printf("gemmroute demo on %s (%s threads); table %s\n",
              detail::Access::state(ctx).backend->fingerprint().get("device")->c_str(),
              detail::Access::state(ctx).backend->fingerprint().get("cores")->c_str(),
              table ? table->path.c_str() : "(none)");
  std::printf("%-40s %-18s %11s %11s %10s %10s\n", "shape", "choice", "ours", "vendor",
              "vendor/ours", "err/bound");
  std::vector<Line> lines;
  auto add = [&](Line l) {
    print(l);
    lines.push_back(std::move(l));
  };
  add(run_strided<float>(ctx, Op::N, Op::N, 4, 4, 4, 20000, rng, reps));
  add(run_strided<float>(ctx, Op::N, Op::T, 8, 8, 8, 20000, rng, reps));
  add(run_strided<double>(ctx, Op::T, Op::N, 12, 12, 12, 10000, rng, reps));
  add(run_strided<double>(ctx, Op::N, Op::N, 16, 16, 16, 10000, rng, reps));
  add(run_strided<std::complex<float>>(ctx, Op::N, Op::C, 8, 8, 8, 10000, rng, reps));
  add(run_strided<std::complex<double>>(ctx, Op::C, Op::N, 16, 16, 16, 2000, rng, reps));
  add(run_strided<float>(ctx, Op::N, Op::N, 256, 256, 256, 4, rng, reps));
  add(run_strided<double>(ctx, Op::T, Op::N, 200, 300, 100, 8, rng, reps));
  add(run_strided<std::complex<double>>(ctx, Op::N, Op::T, 96, 96, 96, 4, rng, reps));
  add(run_grouped(ctx, rng, reps));
  const bool ok = std::all_of(lines.begin(), lines.end(), [](const Line& l) { return l.ok; });
  std::printf("%zu shapes, %s\n", lines.size(),
              ok ? "all within the error bound" : "SOME SHAPES FAILED the error bound");
  const int gpu = demo_gpu(reps);
  return ok && gpu <= 0 ? 0 : 1;
}

}  // namespace gemmroute::cli
