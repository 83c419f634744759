// gemmroute bench --overhead: what the call path (validate, key, select, dispatch) costs on
// top of the candidate it runs. Per shape, the candidate the table chooses is timed four ways,
// interleaved in one process with the shared harness, each checked first:
//
//   direct   the library call itself (cblas_?gemm for the OpenBLAS candidates); for other
//            candidates the same as launch
//   launch   the candidate's launch() alone
//   pinned   gemm() with Options{pin = that candidate}
//   routed   gemm() as a program calls it, the table choosing
//
// and the overheads routed - direct and pinned - direct are printed in ns per call, twice: as
// the difference of the arms' medians, and as the median of the differences repetition by
// repetition (`paired`: sample r of every arm comes from repetition r, the arms interleaved, so
// what drifts between repetitions, such as a shared machine's load, cancels in each pair).
#include <cstdio>
#include <cstdlib>
#include <vector>

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

namespace gemmroute::cli {

using namespace gemmroute::measure;

namespace {

// The median over repetitions of (sample of x - sample of y), in ns per call.
double paired_ns(const ArmResult& x, const ArmResult& y) {
  std::vector<double> d;
  for (std::size_t r = 0; r < x.samples_us.size() && r < y.samples_us.size(); ++r) {
    d.push_back((x.samples_us[r] - y.samples_us[r]) * 1e3);
  }
  return median_of(std::move(d));
}

// gemm() with the problem's own operands, as a program would call it.
template <class T>
void call_gemm(Context& ctx, const Problem& p, const Options& o) {
  gemm<T>(ctx, p.ta, p.tb, p.m, p.n, p.k, p.alpha_as<T>(), p.item_a<T>(0), p.a.ld, p.a.stride,
          p.item_b<T>(0), p.b.ld, p.b.stride, p.beta_as<T>(), p.item_c<T>(0), p.c.ld, p.c.stride,
          p.batch, o);
}

}  // namespace

int bench_overhead(const Args& args) {
  if (!args.positional().empty()) throw UsageError("unexpected '" + args.positional()[0] + "'");
  if (args.get("plot")) throw UsageError("--plot is not used with --overhead");
  if (args.get("scalars")) throw UsageError("--scalars needs --peers");
  const Device device = args.device();
  const std::string shapes_path = args.required("shapes");
  const std::string out = args.required("out");
  MeasureOptions mo;
  mo.harness.repetitions = static_cast<int>(args.integer("reps", 21, 7, 1000));
  mo.harness.min_sample_us = args.number("min-sample-us", 1000, 1, 1e7);
  const auto shapes = read_shapes(shapes_path);
  if (auto t = args.get("table")) setenv("GEMMROUTE_TABLE", t->c_str(), 1);
  Context ctx(device);
  detail::ContextState& st = detail::Access::state(ctx);
  OutputFile csv_file(
      out, "out", OutputRules{args.flag("force"), {shapes_path, st.table ? st.table->path : ""}});
  std::FILE* csv = csv_file.stream();
  auto mdev = make_measure_device(*st.backend, *st.exec);
  std::printf("overhead: %zu shapes; auto selects from %s\n", shapes.size(),
              st.table ? st.table->path.c_str() : "no table");
  std::printf("overhead: %s\n", method_line(*mdev, mo).c_str());
  std::fprintf(csv, "# gemmroute-bench-overhead 1\n# method %s\n# tuner %s\n# date %s\n",
               method_line(*mdev, mo).c_str(), tuner_version().c_str(), now_utc().c_str());
  std::fprintf(
      csv,
      "shape,candidate,t_direct_us,t_launch_us,t_pinned_us,t_routed_us,"
      "routed_minus_direct_ns,pinned_minus_direct_ns,routed_minus_launch_ns,spreads_pct,"
      "routed_minus_direct_paired_ns,pinned_minus_direct_paired_ns\n");
  Arena arena;
  int problems = 0;
  for (const Shape& s : shapes) {
    // The candidate routing chooses for this shape, found as the library finds it.
    Problem probe = problem_at(s.key, nullptr);
    std::string chosen;
    const Candidate* cand = nullptr;
    try {
      Overrides none = st.overrides_for(Options{});
      cand = select(probe, s.key, st.table.get(), *st.backend, *st.exec, none, nullptr).candidate;
      chosen = std::string(cand->spelling());
    } catch (const std::exception& e) {
      std::printf("%s: no choice: %s\n", s.text.c_str(), e.what());
      ++problems;
      continue;
    }
    Options pin;
    pin.pin = chosen;
    const bool cblas = chosen.rfind("openblas", 0) == 0 && s.key.batch == 1;
    std::vector<LaunchArm> arms;
    arms.push_back({"direct", nullptr, [&](const Problem& p) {
                      if (cblas) {
                        cblas_item(p, 0);  // batch 1 only
                      } else {
                        cand->launch(p, *st.exec);
                      }
                    }});
    arms.push_back({"launch", nullptr, [&](const Problem& p) { cand->launch(p, *st.exec); }});
    arms.push_back({"pinned", nullptr, [&](const Problem& p) {
                      dispatch(p.dtype, [&]<class T>() { call_gemm<T>(ctx, p, pin); });
                    }});
    arms.push_back({"routed", nullptr, [&](const Problem& p) {
                      dispatch(p.dtype, [&]<class T>() { call_gemm<T>(ctx, p, Options{}); });
                    }});
    PointReport r = measure_arms(s.key, arms, *mdev, mo, &arena);
    bool ok = true;
    double t[4] = {0, 0, 0, 0};
    std::string spreads;
    for (int i = 0; i < 4; ++i) {
      ok = ok && r.arms[i].status == Status::ok;
      t[i] = r.arms[i].stats.median;
      spreads += (i ? "/" : "") + num(r.arms[i].stats.spread_pct, "%.1f");
      if (r.arms[i].status != Status::ok) {
        std::printf("%s: %s %s: %s\n", s.text.c_str(), r.arms[i].name.c_str(),
                    std::string(to_string(r.arms[i].status)).c_str(), r.arms[i].detail.c_str());
      }
    }
    if (!ok) {
      ++problems;
      continue;
    }
    const double routed_ns = (t[3] - t[0]) * 1e3, pinned_ns = (t[2] - t[0]) * 1e3;
    const double routed_launch_ns = (t[3] - t[1]) * 1e3;
    const double routed_paired = paired_ns(r.arms[3], r.arms[0]);
    const double pinned_paired = paired_ns(r.arms[2], r.arms[0]);
    std::printf(
        "%-30s %-18s direct %8.3f us  launch %8.3f  pinned %8.3f  routed %8.3f | "
        "routed-direct %+6.1f ns (paired %+6.1f)  pinned-direct %+6.1f ns (paired %+6.1f)  "
        "(spreads %s %%)\n",
        s.text.c_str(), chosen.c_str(), t[0], t[1], t[2], t[3], routed_ns, routed_paired,
        pinned_ns, pinned_paired, spreads.c_str());
    std::fprintf(csv, "%s,%s,%s,%s,%s,%s,%.1f,%.1f,%.1f,%s,%.1f,%.1f\n", s.text.c_str(),
                 chosen.c_str(), num(t[0]).c_str(), num(t[1]).c_str(), num(t[2]).c_str(),
                 num(t[3]).c_str(), routed_ns, pinned_ns, routed_launch_ns, spreads.c_str(),
                 routed_paired, pinned_paired);
    std::fflush(stdout);
    csv_file.flush();
  }
  csv_file.commit();
  return problems ? 1 : 0;
}

}  // namespace gemmroute::cli
