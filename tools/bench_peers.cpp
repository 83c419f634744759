// gemmroute bench --peers: per shape, times `auto` (the public gemm() call, validation,
// selection and all) against every other library called the way its own users call it
// (peers.hpp), in one process with the shared harness, each arm checked first. A library's
// time is its fastest arm; the question each row answers is whether auto is at least as fast
// as the fastest library, and by how much it beats each one.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>

#include "args.hpp"
#include "bench_common.hpp"
#include "core/context_state.hpp"
#include "core/dispatch.hpp"
#include "core/files.hpp"
#include "core/select.hpp"
#include "gemmroute/error.hpp"
#include "gemmroute/gemm.hpp"
#include "measure/measure.hpp"
#include "measure/stats.hpp"
#include "measure_common.hpp"
#include "peers.hpp"
#include "progress.hpp"

namespace gemmroute::cli {

using namespace gemmroute::measure;

namespace {

constexpr const char* kLibraries[] = {"openblas", "libxsmm", "blis"};
constexpr const char* kPlot = "auto_vs_libraries.png";  // what scripts/plot_peers.py writes

// The auto arm: what a user's program does, the public strided gemm() through `ctx`.
LaunchArm auto_arm(Context& ctx, std::string& choice) {
  detail::ContextState& st = detail::Access::state(ctx);
  return {"auto",
          [&st, &choice](const Problem& p) {
            if (const char* why = uniform_only(p.dtype)) return Verdict::no(why);
            try {
              // The Context's own overrides: GEMMROUTE_PIN and _ROUTE steer auto here too.
              auto s = select(p, key_of(p), st.table.get(), *st.backend, *st.exec,
                              st.overrides_for(Options{}), nullptr);
              choice = std::string(s.candidate->spelling());
              return Verdict::yes();
            } catch (const std::exception&) {
              return Verdict::no("the table's walk found nothing that can run");
            }
          },
          [&ctx](const Problem& p) {
            dispatch(p.dtype, [&]<class T>() {
              gemm<T>(ctx, p.ta, p.tb, p.m, p.n, p.k, p.alpha_as<T>(), p.item_a<T>(0), p.a.ld,
                      p.a.stride, p.item_b<T>(0), p.b.ld, p.b.stride, p.beta_as<T>(),
                      p.item_c<T>(0), p.c.ld, p.c.stride, p.batch);
            });
          }};
}

// The machine's copy bandwidth, the ceiling for batches of tiny items: every OpenMP thread
// memcpy()s its share of a buffer of 3x the last-level cache (at least 64 MiB), median of 7,
// counting the bytes read and the bytes written (not the write-allocate reads).
double copy_bandwidth_gbs(std::int64_t cache_bytes) {
  const std::size_t bytes = std::max<std::size_t>(std::size_t(3 * cache_bytes), 64u << 20);
  std::vector<char> from(bytes, 1), to(bytes, 2);
  std::vector<double> gbs;
  for (int rep = 0; rep < 8; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel
    {
      const std::size_t t = omp_get_thread_num(), threads = omp_get_num_threads();
      const std::size_t lo = bytes * t / threads, hi = bytes * (t + 1) / threads;
      std::memcpy(to.data() + lo, from.data() + lo, hi - lo);
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (rep > 0) gbs.push_back(2.0 * static_cast<double>(bytes) / s / 1e9);  // first: warm-up
  }
  return median_of(gbs);
}

struct Summary {
  std::vector<double> vs_fastest;
  std::map<std::string, std::vector<double>> vs_library;
  int below = 0;  // shapes where auto is slower than 0.97x the fastest library
};

std::string ratio_text(const std::vector<double>& v) {
  if (v.empty()) return "n/a";
  char b[96];
  std::snprintf(b, sizeof b, "geomean %.3f min %.3f (%zu shapes)", geomean(v),
                *std::min_element(v.begin(), v.end()), v.size());
  return b;
}

}  // namespace

int bench_peers(const Args& args) {
  if (!args.positional().empty()) throw UsageError("unexpected '" + args.positional()[0] + "'");
  const Device device = args.device();
  const std::string shapes_path = args.required("shapes");
  const std::string out = args.required("out");
  MeasureOptions mo;
  // The ranges a tuning spec allows for the same settings (docs/tuning-spec.md).
  mo.harness.repetitions = static_cast<int>(args.integer("reps", 7, 7, 1000));
  mo.harness.min_sample_us = args.number("min-sample-us", mo.harness.min_sample_us, 1, 1e7);
  const auto shapes = read_shapes(shapes_path);
  const std::string scalars = args.get_or("scalars", "random");
  if (scalars != "random" && scalars != "unit") throw UsageError("--scalars: random or unit");
  mo.operands.unit_scalars = scalars == "unit";

  // The Context reads GEMMROUTE_TABLE when made, as in any program.
  if (auto t = args.get("table")) setenv("GEMMROUTE_TABLE", t->c_str(), 1);
  Context ctx(device);
  detail::ContextState& st = detail::Access::state(ctx);
  auto mdev = make_measure_device(*st.backend, *st.exec);
  const Table* table = st.table.get();
  const Fingerprint& fp = st.backend->fingerprint();
  // Every output is checked before anything is measured, and written whole or not at all.
  const OutputRules rules{args.flag("force"), {shapes_path, table ? table->path : ""}};
  const std::optional<std::string> plot_dir = args.get("plot");
  if (plot_dir) {
    OutputRules png_rules = rules;
    png_rules.inputs.push_back(out);
    check_output((std::filesystem::path(*plot_dir) / kPlot).string(), "plot", png_rules);
  }
  OutputFile csv_file(out, "out", rules);
  std::FILE* csv = csv_file.stream();
  for (const auto& n : table ? table->notes : std::vector<std::string>{}) {
    std::printf("note: table %s: %s\n", table->path.c_str(), n.c_str());
  }
  std::printf("peers: %zu shapes from %s on %s (%s)\n", shapes.size(), shapes_path.c_str(),
              fp.get("device") ? fp.get("device")->c_str() : "?", fp.id().c_str());
  std::printf("peers: auto is gemm() selecting from %s\n",
              table ? table->path.c_str() : "no table (last resort only)");
  for (const char* f : {"openblas", "libxsmm", "blis"}) {
    std::printf("peers: %s %s\n", f, fp.get(f) ? fp.get(f)->c_str() : "?");
  }
  std::printf("peers: %s\n", method_line(*mdev, mo).c_str());
  const double copy_gbs = copy_bandwidth_gbs(mdev->cache_bytes());
  std::printf("peers: copy bandwidth %.1f GB/s (memcpy on every thread, read + write)\n", copy_gbs);
  std::printf("ratios are t_library / t_auto (above 1: auto is faster)\n");
  std::fflush(stdout);

  write_csv_preamble(csv, "gemmroute-bench-peers", fp);
  std::fprintf(csv,
               "# table %s\n# scalars %s\n# copy_bandwidth_gbs %.2f\n# method %s\n# tuner %s\n"
               "# date %s\n",
               table ? table->path.c_str() : "none", scalars.c_str(), copy_gbs,
               method_line(*mdev, mo).c_str(), tuner_version().c_str(), now_utc().c_str());
  std::fprintf(csv,
               "shape,dtype,ta,tb,m,n,k,batch,layout,auto_spelling,t_auto_us,auto_spread_pct,"
               "fastest_library,fastest_arm,t_fastest_us,auto_vs_fastest,t_openblas_us,"
               "t_libxsmm_us,t_blis_us,auto_vs_openblas,auto_vs_libxsmm,auto_vs_blis,auto_gbs,"
               "status,arms_us\n");
  csv_file.flush();

  install_interrupt_handler();
  Arena arena;
  Summary sum;
  int problems = 0;
  double total_w = 0;
  for (const Shape& s : shapes) total_w += 1 + macs_of(s.key) / 1e5;
  Progress progress("shapes", static_cast<int>(shapes.size()), total_w);
  double done_w = 0;
  for (std::size_t si = 0; si < shapes.size(); ++si) {
    const Shape& s = shapes[si];
    if (interrupted()) {
      progress.clear();
      std::printf("peers: interrupted (Ctrl-C) after %zu of %zu shapes\n", si, shapes.size());
      break;
    }
    progress.update(static_cast<int>(si), done_w, s.text);
    std::string choice;
    std::vector<LaunchArm> arms{auto_arm(ctx, choice)};
    std::vector<std::string> library_of{""};
    for (PeerArm& pa : make_peer_arms(s.key)) {
      arms.push_back(std::move(pa.arm));
      library_of.push_back(pa.library);
    }
    PointReport r;
    try {
      r = measure_arms(s.key, arms, *mdev, mo, &arena);
    } catch (const std::exception& ex) {
      progress.clear();
      std::printf("%s: could not measure: %s\n", s.text.c_str(), ex.what());
      ++problems;
      done_w += 1 + macs_of(s.key) / 1e5;
      continue;
    }
    done_w += 1 + macs_of(s.key) / 1e5;
    const ArmResult& a = r.arms[0];
    std::map<std::string, const ArmResult*> best;  // per library, its fastest arm
    std::string arms_text, failures;
    for (std::size_t i = 1; i < r.arms.size(); ++i) {
      const ArmResult& c = r.arms[i];
      if (c.status == Status::ok) {
        arms_text += (arms_text.empty() ? "" : ";") + c.name + "=" + num(c.stats.median);
        const ArmResult*& b = best[library_of[i]];
        if (!b || c.stats.median < b->stats.median) b = &c;
      } else if (c.status != Status::not_runnable) {
        failures += " " + c.name + " " + std::string(to_string(c.status)) + " (" + c.detail + ")";
      }
    }
    const bool auto_ok = a.status == Status::ok;
    const ArmResult* fastest = nullptr;
    std::string fastest_library;
    for (const auto& [lib, arm] : best) {
      if (!fastest || arm->stats.median < fastest->stats.median) {
        fastest = arm;
        fastest_library = lib;
      }
    }
    const double t_auto = auto_ok ? a.stats.median : 0;
    auto vs = [&](const ArmResult* x) { return auto_ok && x ? x->stats.median / t_auto : 0.0; };
    const double vs_fastest = vs(fastest);
    if (vs_fastest > 0) {
      sum.vs_fastest.push_back(vs_fastest);
      if (vs_fastest < 0.97) ++sum.below;
    }
    std::string lib_times, lib_ratios;
    for (const char* lib : kLibraries) {
      const ArmResult* b = best.count(lib) ? best[lib] : nullptr;
      lib_times += "," + (b ? num(b->stats.median) : std::string());
      lib_ratios += "," + (vs(b) > 0 ? num(vs(b), "%.4f") : std::string());
      if (vs(b) > 0) sum.vs_library[lib].push_back(vs(b));
    }
    std::string status = auto_ok ? "ok" : "auto-" + std::string(to_string(a.status));
    if (!failures.empty()) status += " (peer failures)";
    if (!auto_ok || !failures.empty()) ++problems;
    const double gbs = auto_ok ? bytes_of(s.key) / (t_auto * 1e3) : 0;
    const Key& k = s.key;
    std::fprintf(
        csv, "%s,%s,%s,%s,%lld,%lld,%lld,%lld,%s,%s,%s,%s,%s,%s,%s,%s%s%s,%s,%s,%s\n",
        s.text.c_str(), std::string(to_string(k.dtype)).c_str(),
        std::string(to_string(k.ta)).c_str(), std::string(to_string(k.tb)).c_str(),
        static_cast<long long>(k.m), static_cast<long long>(k.n), static_cast<long long>(k.k),
        static_cast<long long>(k.batch), std::string(to_string(k.layout)).c_str(), choice.c_str(),
        auto_ok ? num(t_auto).c_str() : "", auto_ok ? num(a.stats.spread_pct, "%.2f").c_str() : "",
        fastest_library.c_str(), fastest ? fastest->name.c_str() : "",
        fastest ? num(fastest->stats.median).c_str() : "",
        vs_fastest > 0 ? num(vs_fastest, "%.4f").c_str() : "", lib_times.c_str(),
        lib_ratios.c_str(), auto_ok ? num(gbs, "%.4g").c_str() : "", status.c_str(),
        arms_text.c_str());
    csv_file.flush();
    progress.clear();
    if (auto_ok) {
      std::printf("%-34s auto %-14s %10s (±%.1f%%)  fastest %-15s %10s  ratio %.3f%s\n",
                  s.text.c_str(), choice.c_str(), fmt_us(t_auto).c_str(), a.stats.spread_pct,
                  fastest ? fastest->name.c_str() : "n/a",
                  fastest ? fmt_us(fastest->stats.median).c_str() : "n/a", vs_fastest,
                  vs_fastest > 0 && vs_fastest < 0.97 ? "  BELOW 0.97" : "");
    } else {
      std::printf("%-34s auto (%s) %s: %s\n", s.text.c_str(), choice.c_str(),
                  std::string(to_string(a.status)).c_str(), a.detail.c_str());
    }
    if (!failures.empty()) std::printf("  FAILURES:%s\n", failures.c_str());
    std::fflush(stdout);
  }
  progress.finish();
  csv_file.commit();
  std::printf("peers: wrote %s\n", out.c_str());
  if (plot_dir) plot("peers", "plot_peers.py", out, *plot_dir);
  if (sum.vs_fastest.empty()) {
    std::printf("peers: measured nothing: no shape has both an auto time and a library time\n");
    return 1;
  }
  std::string line = "peers: auto vs fastest library " + ratio_text(sum.vs_fastest) +
                     " below-0.97 " + std::to_string(sum.below);
  for (const char* lib : kLibraries) {
    line += " | vs " + std::string(lib) + " " + ratio_text(sum.vs_library[lib]);
  }
  std::printf("%s | shapes %zu\n", line.c_str(), sum.vs_fastest.size());
  return problems ? 1 : 0;
}

}  // namespace gemmroute::cli
