// gemmroute bench --lt: the cuBLASLt pick on the shapes an ML runtime calls (bf16, f16, TF32).
// Per shape, in one process with the shared harness, each arm checked against the long-double
// reference first:
//
//   auto          what the table chooses, selected per call as the library does
//   cublas        cublasGemmEx (the vendor's plain call)
//   lt.heuristic  cuBLASLt's heuristic, its first answer (top-1)
//   top-i         the heuristic's first N answers, each run as the record it reads as
//
// and per shape where auto's choice came from: the heuristic's own (top-1), one of its other
// answers (top-i), cublas, or a configuration the tuner found beyond them (extended). The
// summary gives auto's gain over top-1 and over cublas (t_other / t_auto), geomean, min and max,
// for decode (n <= 256 tokens) and prefill, and over top-1 apart where auto runs another
// candidate and where it runs top-1 itself (the bench's noise). --replay times the shapes file
// as one sequence (a decoder layer's GEMMs in order): top-1 and auto alternated, in ms per step.
#include <algorithm>
#include <cstdio>
#include <map>

#include "args.hpp"
#include "bench_common.hpp"
#include "core/backend.hpp"
#include "core/context_state.hpp"
#include "core/files.hpp"
#include "core/select.hpp"
#include "core/table.hpp"
#include "gemmroute/error.hpp"
#include "measure/harness.hpp"
#include "measure/measure.hpp"
#include "measure/operands.hpp"
#include "measure/stats.hpp"
#include "measure_common.hpp"
#include "progress.hpp"

namespace gemmroute::cli {

using namespace gemmroute::measure;

namespace {

// Tokens at or under this are decode steps; over it, prefill (bench/shapes/llm.txt).
constexpr std::int64_t kDecodeTokens = 256;

const Candidate& selected(const Problem& p, const Table* table, const Backend& backend,
                          const Exec& exec) {
  return *select(p, key_of(p), table, backend, exec, Overrides{}, nullptr).candidate;
}

LaunchArm auto_arm(const Table* table, const Backend& backend, const Exec& exec,
                   std::string& choice) {
  return {"auto",
          [=, &backend, &exec, &choice](const Problem& p) {
            try {
              choice = std::string(selected(p, table, backend, exec).spelling());
              return Verdict::yes();
            } catch (const std::exception&) {
              return Verdict::no("the table's walk found nothing that can run");
            }
          },
          [=, &backend, &exec](const Problem& p) {
            Problem q = p;
            validate(q, false, backend.host_memory());
            selected(q, table, backend, exec).launch(q, exec);
          }};
}

// Where auto runs top-1's own candidate, the two arms are one configuration and their ratio is
// the bench's noise (plus a table look-up of nanoseconds), not a choice; those shapes are
// summarised apart from the ones where the table chose something else.
struct Gains {
  std::vector<double> over_top1, over_cublas;
  std::vector<double> chosen_over_top1;  // auto runs another candidate than top-1
  std::vector<double> same_over_top1;    // auto runs top-1's candidate
};

void print_gains(const char* phase, const Gains& g) {
  auto line = [](const std::string& head, const std::vector<double>& v) {
    if (v.empty()) return;
    std::printf("  %s geomean %.3f  min %.3f  max %.3f  shapes %zu\n", head.c_str(), geomean(v),
                *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()),
                v.size());
  };
  char head[64];
  std::snprintf(head, sizeof head, "%-8s auto vs %-7s", phase, "top-1");
  line(head, g.over_top1);
  std::snprintf(head, sizeof head, "%-8s auto vs %-7s", phase, "cublas");
  line(head, g.over_cublas);
  line("           where auto runs another candidate than top-1 (the table's choice):",
       g.chosen_over_top1);
  line("           where auto runs top-1 itself (one candidate: the bench's noise):",
       g.same_over_top1);
}

// The shapes file as one sequence: each shape's operands made once, then top-1 (lt.heuristic
// pinned) and auto, each a whole pass over the sequence, alternated by the harness.
void replay(const std::vector<Shape>& shapes, const Table* table, const Backend& backend,
            const Exec& exec, MeasureDevice& device, const MeasureOptions& mo) {
  std::vector<std::unique_ptr<Buffer>> memory;
  std::vector<Problem> problems;
  for (const Shape& s : shapes) {
    const std::int64_t bytes = set_bytes(s.key);
    memory.push_back(device.allocate(static_cast<std::size_t>(bytes)));
    Problem p = problem_at(s.key, static_cast<char*>(memory.back()->data()));
    std::vector<char> host(static_cast<std::size_t>(bytes));
    fill_random(s.key.dtype.in, host.data(),
                bytes / static_cast<std::int64_t>(size_of(s.key.dtype.in)),
                static_cast<std::uint64_t>(problems.size()) + 17);
    device.upload(memory.back()->data(), host.data(), host.size());
    p.alpha = 1.0;
    p.beta = 0.0;
    validate(p, false, backend.host_memory());
    problems.push_back(p);
  }
  const Candidate& top1 = backend.vendor_default(shapes.front().key.dtype);
  std::vector<Arm> arms = {{"top-1",
                            [&](std::int64_t) {
                              for (const Problem& p : problems) top1.launch(p, exec);
                            }},
                           {"auto", [&](std::int64_t) {
                              for (const Problem& p : problems)
                                selected(p, table, backend, exec).launch(p, exec);
                            }}};
  HarnessOptions h = mo.harness;
  h.repetitions = std::max(h.repetitions, 21);
  h.sets = 1;
  const auto t = time_arms(arms, h, device);
  std::printf(
      "replay: %zu GEMMs a step (%s first); top-1 %.4f ms/step (±%.1f%%), auto %.4f ms/step "
      "(±%.1f%%); top-1 / auto %.4f (median of %d alternated repetitions)\n",
      problems.size(), shapes.front().text.c_str(), t[0].stats.median / 1e3, t[0].stats.spread_pct,
      t[1].stats.median / 1e3, t[1].stats.spread_pct, t[0].stats.median / t[1].stats.median,
      h.repetitions);
  for (const Problem& p : problems) {
    std::printf("replay:   %-40s auto runs %s\n", to_string(key_of(p)).c_str(),
                std::string(selected(p, table, backend, exec).spelling()).c_str());
  }
}

}  // namespace

int bench_lt(const Args& args) {
  if (!args.positional().empty()) throw UsageError("unexpected '" + args.positional()[0] + "'");
  if (args.get("plot")) throw UsageError("--plot is not used with --lt");
  const Device device = args.device();
  if (device.kind != BackendKind::cuda) {
    throw UsageError("--lt compares cuBLASLt's configurations: it needs --device cuda:N");
  }
  const std::string shapes_path = args.required("shapes");
  const std::string out = args.required("out");
  const int top = static_cast<int>(args.integer("top", 8, 1, 64));
  MeasureOptions mo;
  mo.harness.repetitions = static_cast<int>(args.integer("reps", 7, 7, 1000));
  mo.harness.min_sample_us = args.number("min-sample-us", mo.harness.min_sample_us, 1, 1e7);
  const auto shapes = read_shapes(shapes_path);
  if (shapes.empty()) throw UsageError(shapes_path + " holds no shape");
  auto backend = make_backend(device);
  auto exec = backend->make_exec(nullptr);
  auto mdev = make_measure_device(*backend, *exec);
  std::string table_path = args.get_or("table", "");
  if (table_path.empty()) {
    const char* env = std::getenv("GEMMROUTE_TABLE");
    table_path = env && *env ? env : default_table_path(*backend);
  }
  std::unique_ptr<Table> table;
  if (!table_path.empty()) table = std::make_unique<Table>(load_table(table_path, *backend));
  OutputFile csv_file(out, "out", {args.flag("force"), {shapes_path, table_path}});
  std::FILE* csv = csv_file.stream();
  for (const auto& n : table ? table->notes : std::vector<std::string>{}) {
    std::printf("note: table %s: %s\n", table_path.c_str(), n.c_str());
  }
  install_interrupt_handler();
  const Fingerprint& fp = backend->fingerprint();
  std::printf("bench --lt: %zu shapes from %s on %s (%s); auto selects from %s\n", shapes.size(),
              shapes_path.c_str(), fp.get("device") ? fp.get("device")->c_str() : "?",
              fp.id().c_str(), table ? table_path.c_str() : "no table (last resort only)");
  std::printf("bench --lt: %s\n", method_line(*mdev, mo).c_str());
  std::fflush(stdout);
  write_csv_preamble(csv, "gemmroute-bench-lt", fp);
  std::fprintf(csv, "# table %s\n# method %s\n# tuner %s\n# date %s\n",
               table ? table_path.c_str() : "none", method_line(*mdev, mo).c_str(),
               tuner_version().c_str(), now_utc().c_str());
  std::fprintf(csv,
               "shape,dtype,ta,tb,m,n,k,batch,phase,auto_spelling,auto_source,t_auto_us,"
               "t_cublas_us,t_top1_us,best_topn_spelling,best_topn_source,t_best_topn_us,"
               "top1_over_auto,cublas_over_auto,best_topn_over_auto,auto_tflops,topn_timed,"
               "status\n");
  csv_file.flush();

  Arena arena;
  std::map<std::string, Gains> gains;  // "decode", "prefill"
  int problems = 0;
  Progress progress("shapes", static_cast<int>(shapes.size()), static_cast<double>(shapes.size()));
  for (std::size_t si = 0; si < shapes.size(); ++si) {
    const Shape& s = shapes[si];
    if (interrupted()) {
      progress.clear();
      std::printf("bench --lt: interrupted (Ctrl-C) after %zu of %zu shapes\n", si, shapes.size());
      break;
    }
    progress.update(static_cast<int>(si), static_cast<double>(si), s.text);
    // The heuristic's first `top` answers, as records.
    SearchBudget budget;
    budget.heuristic = top;
    budget.checks = 0;
    budget.extended = 0;
    const SearchSpace space = backend->search_space(probe_at(s.key), budget);
    std::string choice;
    const Candidate& top1 = backend->vendor_default(s.key.dtype);
    const std::string top1_spelling(top1.spelling());
    std::vector<LaunchArm> arms = {auto_arm(table.get(), *backend, *exec, choice),
                                   arm_for(*backend->find("cublas"), *exec),
                                   arm_for(top1, *exec)};
    for (const auto& c : space.candidates) arms.push_back(arm_for(*c, *exec));
    PointReport r;
    try {
      r = measure_arms(s.key, arms, *mdev, mo, &arena);
    } catch (const std::exception& ex) {
      progress.clear();
      std::printf("%s: could not measure: %s\n", s.text.c_str(), ex.what());
      ++problems;
      continue;
    }
    auto time_of = [&](std::size_t i) {
      return r.arms[i].status == Status::ok ? r.arms[i].stats.median : 0.0;
    };
    const double t_auto = time_of(0), t_cublas = time_of(1), t_top1 = time_of(2);
    std::size_t best = 0;
    for (std::size_t i = 3; i < r.arms.size(); ++i) {
      if (time_of(i) > 0 && (best == 0 || time_of(i) < time_of(best))) best = i;
    }
    std::string source = choice == "cublas"         ? "cublas"
                         : choice == "lt.heuristic" ? "top-1"
                                                    : "extended";
    for (std::size_t i = 0; i < space.candidates.size(); ++i) {
      if (space.candidates[i]->spelling() == choice) source = space.sources[i];
    }
    if (!choice.starts_with("lt") && choice != "cublas") source = "native";
    std::string status = "ok";
    for (const ArmResult& a : r.arms) {
      if (a.status == Status::failed || a.status == Status::error) {
        status = "failures";
        progress.clear();
        std::printf("  FAILURE %s: %s (%s)\n", a.name.c_str(),
                    std::string(to_string(a.status)).c_str(), a.detail.c_str());
      }
    }
    if (t_auto <= 0) status = "auto-" + std::string(to_string(r.arms[0].status));
    if (status != "ok") ++problems;
    const char* phase = s.key.n <= kDecodeTokens ? "decode" : "prefill";
    const double tflops = t_auto > 0 ? flops_of(s.key) / (t_auto * 1e6) : 0;
    auto ratio = [&](double other) { return other > 0 && t_auto > 0 ? other / t_auto : 0.0; };
    if (t_auto > 0 && t_top1 > 0) {
      gains[phase].over_top1.push_back(ratio(t_top1));
      (choice == top1_spelling ? gains[phase].same_over_top1 : gains[phase].chosen_over_top1)
          .push_back(ratio(t_top1));
    }
    if (t_auto > 0 && t_cublas > 0) gains[phase].over_cublas.push_back(ratio(t_cublas));
    const Key& k = s.key;
    std::fprintf(
        csv, "%s,%s,%s,%s,%lld,%lld,%lld,%lld,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%zu,%s\n",
        s.text.c_str(), format_dtype(k.dtype).c_str(), std::string(to_string(k.ta)).c_str(),
        std::string(to_string(k.tb)).c_str(), static_cast<long long>(k.m),
        static_cast<long long>(k.n), static_cast<long long>(k.k), static_cast<long long>(k.batch),
        phase, choice.c_str(), source.c_str(), num(t_auto).c_str(), num(t_cublas).c_str(),
        num(t_top1).c_str(), best ? r.arms[best].name.c_str() : "",
        best ? space.sources[best - 3].c_str() : "", best ? num(time_of(best)).c_str() : "",
        num(ratio(t_top1), "%.4f").c_str(), num(ratio(t_cublas), "%.4f").c_str(),
        num(best ? ratio(time_of(best)) : 0, "%.4f").c_str(), num(tflops, "%.4g").c_str(),
        space.candidates.size(), status.c_str());
    csv_file.flush();
    progress.clear();
    std::printf(
        "%-36s auto %s (%s) %s  top-1 %s  cublas %s  best of top-%d %s (%s)  top-1/auto "
        "%.3f  cublas/auto %.3f  %.0f TFLOP/s\n",
        s.text.c_str(), choice.substr(0, 60).c_str(), source.c_str(), fmt_us(t_auto).c_str(),
        fmt_us(t_top1).c_str(), fmt_us(t_cublas).c_str(), top,
        best ? fmt_us(time_of(best)).c_str() : "n/a", best ? space.sources[best - 3].c_str() : "-",
        ratio(t_top1), ratio(t_cublas), tflops);
    std::fflush(stdout);
  }
  progress.finish();
  csv_file.commit();
  std::printf("bench --lt: wrote %s\n", out.c_str());
  std::printf("auto's gain (t_other / t_auto; above 1: auto is faster):\n");
  for (const auto& [phase, g] : gains) print_gains(phase.c_str(), g);
  if (args.flag("replay") && !interrupted()) {
    replay(shapes, table.get(), *backend, *exec, *mdev, mo);
  }
  return problems ? 1 : 0;
}

}  // namespace gemmroute::cli
