// gemmroute bench: per shape, times `auto` (what the table chooses, through selection), the
// vendor and every runnable candidate in one process with the shared harness; writes a CSV and
// prints the regret and speedup summary last. --plot runs scripts/plot_bench.py.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string_view>

#include "args.hpp"
#include "bench_common.hpp"
#include "core/backend.hpp"
#include "core/context_state.hpp"
#include "core/files.hpp"
#include "core/predict.hpp"
#include "core/select.hpp"
#include "core/table.hpp"
#include "gemmroute/error.hpp"
#include "measure/measure.hpp"
#include "measure/shapes.hpp"
#include "measure/stats.hpp"
#include "measure_common.hpp"
#include "progress.hpp"
#include "verbs.hpp"

namespace gemmroute::cli {
namespace {

using namespace gemmroute::measure;

}  // namespace

int bench_peers(const Args& args);     // bench_peers.cpp
int bench_overhead(const Args& args);  // bench_overhead.cpp
int bench_lt(const Args& args);        // bench_lt.cpp
int bench_grouped(const Args& args);   // bench_grouped.cpp

namespace {

constexpr const char* kHelp =
    "usage: gemmroute bench --device cpu --shapes FILE --out BENCH.csv [--plot DIR]\n"
    "                       [--table FILE] [--select nearest|predict|model]\n"
    "                       [--compare-selection] [--candidates LIST]\n"
    "                       [--reps N] [--min-sample-us X] [--force]\n"
    "                       [--peers [--scalars random|unit] | --overhead]\n"
    "\n"
    "For each shape in FILE (one key a line, `dtype ta tb layout m n k batch`, '#' comments:\n"
    "docs/measuring.md), times in one process with the shared harness: `auto` (the\n"
    "table's choice, selected per call as the library does), every runnable candidate (the\n"
    "vendor among them), and every candidate again as a second arm; each is checked once\n"
    "against the long-double reference first. Writes BENCH.csv and prints the regret per scalar\n"
    "of each selection and the noise floor (the best candidate's second arm over its first: the\n"
    "regret a perfect selector shows on this run), then, last:\n"
    "  regret geomean X p95 Y max Z | speedup vs vendor geomean W min V | shapes N\n"
    "where regret = t_auto / t_best (best over the candidates) and speedup = t_vendor / t_auto,\n"
    "both ratios of median times per call.\n"
    "\n"
    "  --table FILE         the table auto selects from (default: GEMMROUTE_TABLE, else the\n"
    "                       shipped table for this device, else the generic one)\n"
    "  --select S           how auto reads the table between rows: nearest, predict or\n"
    "                       model (default: GEMMROUTE_SELECT, else the backend's: predict on\n"
    "                       the CPU, model on CUDA; docs/table-format.md)\n"
    "  --compare-selection  time all three selections, each as its own arm of every shape\n"
    "  --candidates LIST    time only these candidates beside auto (spellings, ',' between\n"
    "                       them); the vendor is always timed. best and regret are then over\n"
    "                       the candidates timed: for runs that need only auto against the\n"
    "                       vendor (a roofline target), in a fraction of the time\n"
    "  --plot DIR           write speedup_vs_vendor.png and regret.png there\n"
    "                       (scripts/plot_bench.py)\n"
    "  --force              replace BENCH.csv and the PNGs when they exist (never an input)\n"
    "  --reps N             repetitions per arm, 7 to 1000 (default 7)\n"
    "  --min-sample-us X    each repetition times calls lasting at least X us, 1 to 1e7\n"
    "                       (default 300)\n"
    "  --peers              time `auto` (the public gemm() call) against the other libraries,\n"
    "                       each called the way its own users call it (OpenBLAS, LIBXSMM,\n"
    "                       BLIS: tools/peers.hpp lists the arms), instead of against our\n"
    "                       candidates; --plot writes peers.png; prints, last:\n"
    "  peers: auto vs fastest library geomean X min Y below-0.97 N | vs <library> ... | shapes N\n"
    "                       where each ratio is t_library / t_auto (above 1: auto is faster)\n"
    "  --scalars S          random (default: random nonzero alpha and beta, as tune measures)\n"
    "                       or unit (alpha = beta = 1, the case LIBXSMM runs without an\n"
    "                       epilogue)\n"
    "  --overhead           per shape, the candidate the table chooses timed as the library\n"
    "                       call itself, its launch(), gemm() pinned to it and gemm() routed;\n"
    "                       prints the call path's cost (routed - direct, pinned - direct) in ns\n"
    "                       (defaults here: --reps 21, --min-sample-us 1000)\n"
    "  --lt [--top N] [--replay]\n"
    "                       cuBLASLt's pick (bf16, f16, TF32 shapes, bench/shapes/llm.txt):\n"
    "                       per shape auto, cublas, lt.heuristic (top-1) and the heuristic's\n"
    "                       first N answers (default 8) as records, with where auto's choice\n"
    "                       came from; prints auto's gain over top-1 and cublas for decode\n"
    "                       (n <= 256) and prefill. --replay then times the whole file as one\n"
    "                       sequence (a decoder layer), top-1 against auto, in ms per step\n"
    "  --grouped [--items N,N,..] [--sizes N,N,..] [--seed S] [--copy-gbs X] [--tflops-f32 X]\n"
    "            [--tflops-f64 X]\n"
    "                       heterogeneous batches of small square GEMMs (gemm_grouped, one\n"
    "                       group per size; f32 and f64; n uniform in 1..64, and 80% of items\n"
    "                       in 1..16): auto, the vendor pinned (one grouped call; one batched\n"
    "                       call a size) and auto a group at a time, each against the roofline\n"
    "                       max(bytes / copy bandwidth, flops / GEMM rate); no --shapes\n"
    "                       (defaults: 10000,100000,1000000 items; the H200's 4252 GB/s,\n"
    "                       51.0 and 57.7 TFLOP/s; --reps 11, --min-sample-us 2000);\n"
    "                       --sizes: instead of the two mixes, every item of one size (1..64),\n"
    "                       each size its own run: a pointer-array batch of one group;\n"
    "                       --plot DIR writes grouped.png there (scripts/plot_grouped.py)\n"
    "\n"
    "BENCH.csv is written to a temporary beside it and renamed when the run ends (Ctrl-C ends\n"
    "it early, keeping the shapes measured); an existing file is replaced only with --force.";

// What scripts/plot_bench.py writes into the --plot folder.
constexpr const char* kPlots[] = {"speedup_vs_vendor.png", "regret.png"};

// The arm that does per call what gemm() does after building the problem: validate, key,
// select (with this selection), launch. `choice` receives what it selects for the shape.
LaunchArm selection_arm(Selector selector, const Table* table, const Backend& backend,
                        const Exec& exec, std::string& choice) {
  Overrides ov;
  ov.selector = selector;
  return {"auto:" + std::string(to_string(selector)),
          [=, &backend, &exec, &choice](const Problem& p) {
            try {
              choice = std::string(
                  select(p, key_of(p), table, backend, exec, ov, nullptr).candidate->spelling());
              return Verdict::yes();
            } catch (const std::exception&) {
              return Verdict::no("the table's walk found nothing that can run");
            }
          },
          [=, &backend, &exec](const Problem& p) {
            Problem q = p;
            validate(q, false, backend.host_memory());
            select(q, key_of(q), table, backend, exec, ov, nullptr).candidate->launch(q, exec);
          }};
}

// Regret summaries: per scalar and overall, for one column of ratios.
struct Ratios {
  std::map<std::string, std::vector<double>> by_scalar;
  std::vector<double> all;
  void add(const std::string& scalar, double v) {
    by_scalar[scalar].push_back(v);
    all.push_back(v);
  }
};

// The candidates a bench times: every one of the backend's, or those LIST names (the vendor
// always among them), in the backend's order. An unknown spelling is a usage error, before
// anything is written.
std::vector<const Candidate*> candidates_to_time(const Backend& backend,
                                                 const std::optional<std::string>& list,
                                                 const std::string& vendor) {
  const std::span<const Candidate* const> all = backend.candidates();
  if (!list) return {all.begin(), all.end()};
  std::vector<std::string> wanted{vendor};
  std::string::size_type start = 0;
  while (start <= list->size()) {
    const auto end = std::min(list->find(',', start), list->size());
    const std::string name = list->substr(start, end - start);
    if (name.empty()) throw UsageError("--candidates: an empty name in '" + *list + "'");
    if (backend.find(name) == nullptr) {
      std::string names;
      for (const Candidate* c : all) {
        if (!names.empty()) names += ' ';
        names += c->spelling();
      }
      throw UsageError("--candidates: '" + name + "' is not a candidate of this backend, whose "
                       "candidates are: " + names);
    }
    wanted.push_back(name);
    start = end + 1;
  }
  std::vector<const Candidate*> chosen;
  for (const Candidate* c : all) {
    if (std::find(wanted.begin(), wanted.end(), c->spelling()) != wanted.end()) {
      chosen.push_back(c);
    }
  }
  return chosen;
}

void print_summary(const std::string& name, const Ratios& r) {
  auto line = [&](const std::string& scalar, const std::vector<double>& v) {
    std::printf("  %-28s %-4s shapes %3zu  geomean %.3f  p95 %.3f  max %.3f\n", name.c_str(),
                scalar.c_str(), v.size(), geomean(v), percentile(v, 95),
                *std::max_element(v.begin(), v.end()));
  };
  for (const auto& [scalar, v] : r.by_scalar) line(scalar, v);
  if (!r.all.empty()) line("all", r.all);
}

}  // namespace

int bench(const Argv& argv) {
  Args args(
      argv,
      {"device", "shapes", "out", "plot", "table", "select", "reps", "min-sample-us", "candidates",
       "scalars", "top", "items", "sizes", "seed", "copy-gbs", "tflops-f32", "tflops-f64"},
      {"force", "compare-selection", "peers", "overhead", "lt", "replay", "grouped"});
  if (args.help()) {
    std::puts(kHelp);
    return 0;
  }
  if (args.get("candidates") && (args.flag("peers") || args.flag("overhead") ||
                                 args.flag("lt") || args.flag("grouped"))) {
    throw UsageError("--candidates is for a --shapes bench, not --peers, --overhead, --lt or "
                     "--grouped");
  }
  if (args.flag("peers")) return bench_peers(args);
  if (args.flag("overhead")) return bench_overhead(args);
  if (args.flag("lt")) return bench_lt(args);
  if (args.flag("grouped")) return bench_grouped(args);
  for (const char* o : {"items", "sizes", "seed", "copy-gbs", "tflops-f32", "tflops-f64"}) {
    if (args.get(o)) throw UsageError(std::string("--") + o + " needs --grouped");
  }
  if (args.get("top") || args.flag("replay")) throw UsageError("--top and --replay need --lt");
  if (args.get("scalars")) throw UsageError("--scalars needs --peers");
  if (!args.positional().empty()) throw UsageError("unexpected '" + args.positional()[0] + "'");
  const Device device = args.device();
  const std::string shapes_path = args.required("shapes");
  const std::string out = args.required("out");
  MeasureOptions mo;
  // The ranges a tuning spec allows for the same settings (docs/tuning-spec.md).
  mo.harness.repetitions = static_cast<int>(args.integer("reps", 7, 7, 1000));
  mo.harness.min_sample_us = args.number("min-sample-us", mo.harness.min_sample_us, 1, 1e7);
  const auto shapes = read_shapes(shapes_path);
  const Environment environment = read_environment();
  std::optional<Selector> selector_arg;
  if (environment.selector_set) selector_arg = environment.selector;
  if (auto v = args.get("select")) {
    selector_arg = parse_selector(*v);
    if (!selector_arg)
      throw UsageError("--select: expected nearest, predict or model, got '" + *v + "'");
  }
  const bool compare = args.flag("compare-selection");

  auto backend = make_backend(device);
  const std::string vendor(backend->last_resort_vendor().spelling());
  const std::vector<const Candidate*> timed =
      candidates_to_time(*backend, args.get("candidates"), vendor);
  const Selector selector = selector_arg.value_or(backend->default_selector());
  std::vector<Selector> selections = {selector};
  if (compare) {
    for (Selector other : {Selector::nearest, Selector::predict, Selector::model}) {
      if (other != selector) selections.push_back(other);
    }
  }
  auto exec = backend->make_exec(nullptr);
  auto mdev = make_measure_device(*backend, *exec);
  std::string table_path = args.get_or("table", "");
  if (table_path.empty()) {
    const char* env = std::getenv("GEMMROUTE_TABLE");
    table_path = env && *env ? env : default_table_path(*backend);
  }
  std::unique_ptr<Table> table;
  if (!table_path.empty()) table = std::make_unique<Table>(load_table(table_path, *backend));
  // Every output is checked before anything is measured, and written whole or not at all.
  const OutputRules rules{args.flag("force"), {shapes_path, table_path}};
  const std::optional<std::string> plot_dir = args.get("plot");
  if (plot_dir) {
    OutputRules png_rules = rules;
    png_rules.inputs.push_back(out);
    for (const char* png : kPlots) {
      check_output((std::filesystem::path(*plot_dir) / png).string(), "plot", png_rules);
    }
  }
  OutputFile csv_file(out, "out", rules);
  std::FILE* csv = csv_file.stream();
  for (const auto& n : table ? table->notes : std::vector<std::string>{}) {
    std::printf("note: table %s: %s\n", table_path.c_str(), n.c_str());
  }
  const Fingerprint& fp = backend->fingerprint();
  install_interrupt_handler();  // before the first line, which tells a caller it may signal
  std::printf("bench: %zu shapes from %s on %s (%s)\n", shapes.size(), shapes_path.c_str(),
              fp.get("device") ? fp.get("device")->c_str() : "?", fp.id().c_str());
  std::printf("bench: auto selects from %s with selection %s%s; vendor is %s\n",
              table ? table_path.c_str() : "no table (last resort only)",
              std::string(to_string(selector)).c_str(),
              compare ? (", compared with " + std::string(to_string(selections[1])) + " and " +
                         std::string(to_string(selections[2])))
                            .c_str()
                      : "",
              vendor.c_str());
  std::printf("bench: %s\n", method_line(*mdev, mo).c_str());
  if (timed.size() != backend->candidates().size()) {
    std::printf("bench: %zu of the %zu candidates timed (--candidates): best and regret are over "
                "those\n",
                timed.size(), backend->candidates().size());
  }
  std::printf("times are medians per call (whole batch); ratios are unitless\n");
  std::fflush(stdout);

  write_csv_preamble(csv, "gemmroute-bench", fp);
  std::fprintf(csv, "# table %s\n# method %s\n# tuner %s\n# date %s\n",
               table ? table_path.c_str() : "none", method_line(*mdev, mo).c_str(),
               tuner_version().c_str(), now_utc().c_str());
  std::fprintf(csv,
               "shape,dtype,ta,tb,m,n,k,batch,layout,auto_spelling,t_auto_us,auto_spread_pct,"
               "t_vendor_us,best_spelling,t_best_us,auto_over_best,vendor_over_auto,auto_gflops,"
               "auto_gbs,status,candidates_us,selection,t_best_again_us,noise_over_best,"
               "nearest_spelling,t_nearest_us,nearest_over_best,predict_spelling,t_predict_us,"
               "predict_over_best,model_spelling,t_model_us,model_over_best\n");
  csv_file.flush();

  Arena arena;
  std::vector<double> regrets, speedups;
  std::map<Selector, Ratios> regret_of;
  Ratios noise;
  int problems = 0;
  double total_w = 0;
  for (const Shape& s : shapes) total_w += 1 + macs_of(s.key) / 1e5;
  Progress progress("shapes", static_cast<int>(shapes.size()), total_w);
  double done_w = 0;
  std::size_t measured = 0;
  const std::size_t n_sel = selections.size();
  const std::size_t n_cand = timed.size();
  for (std::size_t si = 0; si < shapes.size(); ++si) {
    const Shape& s = shapes[si];
    if (interrupted()) {
      progress.clear();
      std::printf("bench: interrupted (Ctrl-C) after %zu of %zu shapes\n", si, shapes.size());
      break;
    }
    progress.update(static_cast<int>(si), done_w, s.text);
    // Arms: each selection, each candidate, each candidate again (the noise floor).
    std::vector<std::string> choice(n_sel);
    std::vector<LaunchArm> arms;
    for (std::size_t i = 0; i < n_sel; ++i) {
      arms.push_back(selection_arm(selections[i], table.get(), *backend, *exec, choice[i]));
    }
    for (const Candidate* c : timed) arms.push_back(arm_for(*c, *exec));
    for (const Candidate* c : timed) {
      arms.push_back(arm_for(*c, *exec));
      arms.back().name += " (again)";
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
    const ArmResult* best = nullptr;
    const ArmResult* vend = nullptr;
    std::size_t best_index = 0;
    std::string cands, failures;
    for (std::size_t i = n_sel; i < n_sel + n_cand; ++i) {
      const ArmResult& c = r.arms[i];
      if (c.name == vendor) vend = &c;
      if (c.status == Status::ok) {
        cands += (cands.empty() ? "" : ";") + c.name + "=" + num(c.stats.median);
        if (!best || c.stats.median < best->stats.median) {
          best = &c;
          best_index = i;
        }
      } else if (c.status != Status::not_runnable) {
        failures += " " + c.name + " " + std::string(to_string(c.status)) + " (" + c.detail + ")";
      }
    }
    const ArmResult* again = best ? &r.arms[best_index + n_cand] : nullptr;
    const bool again_ok = again && again->status == Status::ok;
    const double t_best = best ? best->stats.median : 0;
    const double noise_floor = again_ok ? again->stats.median / t_best : 0;
    // Per selection: its time and regret; the first selection is `auto`.
    struct Sel {
      bool ok = false;
      double t = 0, regret = 0;
    };
    std::vector<Sel> sel(n_sel);
    for (std::size_t i = 0; i < n_sel; ++i) {
      const ArmResult& a = r.arms[i];
      sel[i].ok = a.status == Status::ok;
      sel[i].t = sel[i].ok ? a.stats.median : 0;
      sel[i].regret = sel[i].ok && best ? sel[i].t / t_best : 0;
      if (sel[i].regret > 0) regret_of[selections[i]].add(format_dtype(s.key.dtype), sel[i].regret);
    }
    if (noise_floor > 0) noise.add(format_dtype(s.key.dtype), noise_floor);
    const ArmResult& a = r.arms[0];
    const bool auto_ok = sel[0].ok;
    const bool vendor_ok = vend && vend->status == Status::ok;
    const double t_auto = sel[0].t;
    const double t_vendor = vendor_ok ? vend->stats.median : 0;
    const double regret = sel[0].regret;
    const double speedup = auto_ok && vendor_ok ? t_vendor / t_auto : 0;
    const double gflops = auto_ok ? flops_of(s.key) / (t_auto * 1e3) : 0;
    const double gbs = auto_ok ? bytes_of(s.key) / (t_auto * 1e3) : 0;
    std::string status = auto_ok ? "ok" : "auto-" + std::string(to_string(a.status));
    if (!failures.empty()) status += " (candidate failures)";
    if (auto_ok && best) regrets.push_back(regret);
    if (auto_ok && vendor_ok) speedups.push_back(speedup);
    if (auto_ok) ++measured;
    if (!auto_ok || !failures.empty()) ++problems;
    // nearest_*, predict_* and model_* columns: filled for the selections timed.
    std::string per_selection;
    for (Selector which : {Selector::nearest, Selector::predict, Selector::model}) {
      std::string spelling, t, ratio;
      for (std::size_t i = 0; i < n_sel; ++i) {
        if (selections[i] != which || !sel[i].ok) continue;
        spelling = choice[i];
        t = num(sel[i].t);
        ratio = sel[i].regret > 0 ? num(sel[i].regret, "%.4f") : "";
      }
      per_selection += "," + spelling + "," + t + "," + ratio;
    }
    const Key& k = s.key;
    std::fprintf(
        csv, "%s,%s,%s,%s,%lld,%lld,%lld,%lld,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s%s\n",
        s.text.c_str(), format_dtype(k.dtype).c_str(), std::string(to_string(k.ta)).c_str(),
        std::string(to_string(k.tb)).c_str(), static_cast<long long>(k.m),
        static_cast<long long>(k.n), static_cast<long long>(k.k), static_cast<long long>(k.batch),
        std::string(to_string(k.layout)).c_str(), choice[0].c_str(),
        auto_ok ? num(t_auto).c_str() : "", auto_ok ? num(a.stats.spread_pct, "%.2f").c_str() : "",
        vendor_ok ? num(t_vendor).c_str() : "", best ? best->name.c_str() : "",
        best ? num(t_best).c_str() : "", regret > 0 ? num(regret, "%.4f").c_str() : "",
        speedup > 0 ? num(speedup, "%.4f").c_str() : "", auto_ok ? num(gflops, "%.4g").c_str() : "",
        auto_ok ? num(gbs, "%.4g").c_str() : "", status.c_str(), cands.c_str(),
        std::string(to_string(selector)).c_str(), again_ok ? num(again->stats.median).c_str() : "",
        noise_floor > 0 ? num(noise_floor, "%.4f").c_str() : "", per_selection.c_str());
    csv_file.flush();
    progress.clear();
    if (auto_ok) {
      std::printf(
          "%-34s auto %-18s %10s (±%.1f%%)  vendor %10s  best %-18s %10s  auto/best %.3f"
          "  vendor/auto %.3f  auto %.3g GFLOP/s %.3g GB/s",
          s.text.c_str(), choice[0].c_str(), fmt_us(t_auto).c_str(), a.stats.spread_pct,
          vendor_ok ? fmt_us(t_vendor).c_str() : "n/a", best ? best->name.c_str() : "n/a",
          best ? fmt_us(t_best).c_str() : "n/a", regret, speedup, gflops, gbs);
      for (std::size_t i = 1; i < n_sel; ++i) {
        std::printf("  %s %s/best %.3f", std::string(to_string(selections[i])).c_str(),
                    choice[i].c_str(), sel[i].regret);
      }
      std::printf("  noise %.3f\n", noise_floor);
    } else {
      std::printf("%-34s auto (%s) %s: %s\n", s.text.c_str(), choice[0].c_str(),
                  std::string(to_string(a.status)).c_str(), a.detail.c_str());
    }
    if (!failures.empty()) std::printf("  FAILURES:%s\n", failures.c_str());
    std::fflush(stdout);
  }
  progress.finish();
  csv_file.commit();
  std::printf("bench: wrote %s (%zu shapes measured%s)\n", out.c_str(), measured,
              problems ? ", some with failures: see FAILURES above" : "");
  if (plot_dir) plot("bench", "plot_bench.py", out, *plot_dir);
  if (regrets.empty()) {
    std::printf("bench: measured nothing: no shape has both an auto time and a best time\n");
    return 1;
  }
  std::printf(
      "regret per selection (t_selection / t_best) and the noise floor (the best\n"
      "candidate's second arm over its first: what a perfect selector shows here):\n");
  for (Selector which : selections) {
    print_summary(std::string(to_string(which)) + (which == selector ? " (auto)" : ""),
                  regret_of[which]);
  }
  print_summary("noise floor", noise);
  std::printf("(regret = t_auto / t_best, speedup = t_vendor / t_auto: ratios of median times)\n");
  std::printf(
      "regret geomean %.3f p95 %.3f max %.3f | speedup vs vendor geomean %.3f min %.3f | "
      "shapes %zu\n",
      geomean(regrets), percentile(regrets, 95), *std::max_element(regrets.begin(), regrets.end()),
      speedups.empty() ? 0.0 : geomean(speedups),
      speedups.empty() ? 0.0 : *std::min_element(speedups.begin(), speedups.end()), regrets.size());
  return problems ? 1 : 0;
}

}  // namespace gemmroute::cli
