// gemmroute tune: sweeps a spec's lattice with the shared harness and appends one row per
// (point, candidate) to a results file; --refine bisects a table's edges. Method:
// docs/measuring.md; spec format: docs/tuning-spec.md.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>

#include "args.hpp"
#include "core/backend.hpp"
#include "core/files.hpp"
#include "core/spelling.hpp"
#include "core/table.hpp"
#include "gemmroute/error.hpp"
#include "measure/operands.hpp"
#include "measure/rank.hpp"
#include "measure/refine.hpp"
#include "measure/results.hpp"
#include "measure/shapes.hpp"
#include "measure/spec.hpp"
#include "measure_common.hpp"
#include "progress.hpp"
#include "verbs.hpp"

namespace gemmroute::cli {
namespace {

using namespace gemmroute::measure;

constexpr const char* kHelp =
    "usage: gemmroute tune --device cpu --spec FILE --out RESULTS.csv [--resume]\n"
    "                      [--budget-minutes N] [--refine TABLE [--margin 0.03]]\n"
    "       gemmroute tune --device cpu --shapes FILE --out RESULTS.csv [--spec FILE] ...\n"
    "\n"
    "Times every candidate at every point of the spec's lattice (docs/tuning-spec.md) with the\n"
    "shared harness (docs/measuring.md) and appends one CSV row per (point, candidate): key,\n"
    "spelling, median, spread, repetitions, status. Rows are flushed one by one: Ctrl-C stops\n"
    "after the current point and loses nothing written.\n"
    "\n"
    "  --resume            continue RESULTS.csv: skip the (point, candidate) pairs it has;\n"
    "                      refused when it was measured on another device fingerprint\n"
    "  --budget-minutes N  stop cleanly before starting a point once N minutes have passed\n"
    "  --refine TABLE      edge refinement instead of the lattice: where neighbouring rows of\n"
    "                      TABLE have different winners, measure the log-midpoint and bisect\n"
    "                      until the spec's refine-ratio; new rows (marked `refined`) go into\n"
    "                      TABLE and their measurements into RESULTS.csv\n"
    "  --margin X          tie-rule margin for ranking refined points (default 0.03)\n"
    "  --sample N          measure only every N-th point (1 to 2^30) and project the full\n"
    "                      run's time (use a throwaway --out; for sizing specs)\n"
    "  --confirm FIRST.csv at each point of FIRST.csv (of --shapes FILE, when given) where\n"
    "                      candidates displaced the vendor's own choice, measure those and\n"
    "                      that choice again, alone; then `table build FIRST.csv --confirm\n"
    "                      RESULTS.csv` keeps a displacement only where both runs agree\n"
    "  --shapes FILE       measure exactly the keys of a shapes file (as GEMMROUTE_RECORD\n"
    "                      writes them; a key listed twice is measured once) instead of the\n"
    "                      spec's lattice; their rows are `recorded`. --spec then only sets\n"
    "                      the method and candidates (default: the harness defaults, every\n"
    "                      candidate). Then `table build RESULTS.csv --merge TABLE --out FILE`\n"
    "\n"
    "RESULTS.csv is never replaced: a new run refuses an existing file (continue it with\n"
    "--resume), and a run that wrote no row to the file it created removes it again. It may\n"
    "not be the spec or TABLE. TABLE is written back whole (a temporary renamed over it).\n"
    "\n"
    "Then: gemmroute table build RESULTS.csv --out TABLE";

struct Session {
  const Backend* backend = nullptr;
  const Exec* exec = nullptr;
  MeasureDevice* device = nullptr;
  const Spec* spec = nullptr;
  std::vector<const Candidate*> candidates;
  ResultsWriter writer;
  Arena arena;
  DoneSet done;
  std::map<std::string, std::vector<ResultRow>> previous;  // key -> rows already in the file
  int ok = 0, failed = 0, error = 0, not_runnable = 0;
};

// Rough relative cost of a point, for the ETA only (calibrated by the elapsed time).
// `macs_per_us`: a rough rate of the device (the ETA's calibration absorbs its error, not its
// error from one shape to the next).
double weight(const Key& key, const Spec& spec, std::size_t arms, std::int64_t cache,
              double macs_per_us) {
  // Points of the mixed dtypes also time a search space (cuBLASLt's configurations on CUDA).
  if (!is_uniform(key.dtype)) {
    arms += static_cast<std::size_t>(spec.search.heuristic / 4 + spec.search.extended);
  }
  const double call_us = 1.0 + macs_of(key) / macs_per_us;
  const auto& h = spec.measure.harness;
  const double timing =
      static_cast<double>(arms) * (h.repetitions + 2) * std::max(h.min_sample_us, call_us) +
      static_cast<double>(arms) * h.warmup_us;
  const double bytes = static_cast<double>(checked_set_bytes(key).value_or(INT64_MAX));
  const double setup = 3.0 * std::max(static_cast<double>(cache), bytes) / 1000.0;  // ~1 GB/s fill
  const double check = static_cast<double>(arms) * std::min(macs_of(key), spec.measure.check_macs) /
                       50.0 * (is_complex(key.dtype) ? 4 : 1);
  return timing + setup + check;
}

std::string describe_point(const Key& k) {
  return to_string(k);
}

// Why a run stops before its next point (Ctrl-C, or --budget-minutes spent), or empty.
std::string stop_reason_now(const Progress& progress, double budget_s) {
  if (interrupted()) return "interrupted (Ctrl-C)";
  if (budget_s > 0 && progress.elapsed_s() >= budget_s) {
    return "time budget of " + format_duration(budget_s) + " reached";
  }
  return {};
}

// Measures the candidates of `key` not yet in the file, and what the backend's search space
// offers there; writes and returns their rows. Candidates that refuse the key's problem get
// their not-runnable rows without operands being made.
// `only`, when not empty: measure exactly these candidates (tune --confirm), with no search.
std::vector<ResultRow> measure_point(Session& s, const Key& key, Origin origin, Progress* progress,
                                     std::span<const Candidate* const> only = {}) {
  const Problem probe = probe_at(key);
  std::vector<LaunchArm> arms;
  std::vector<std::string> sources;  // per arm: where a searched candidate came from
  std::vector<ArmResult> refused;
  auto offer = [&](const Candidate& c, std::string source) {
    if (is_done(s.done, key, c.spelling())) return;
    const Verdict v = c.can_run(probe);
    if (!v.ok) {
      ArmResult r;
      r.name = std::string(c.spelling());
      r.status = Status::not_runnable;
      r.detail = v.reason;
      if (!source.empty()) r.detail += "; " + source;
      refused.push_back(std::move(r));
      return;
    }
    arms.push_back(arm_for(c, *s.exec));
    sources.push_back(std::move(source));
  };
  for (const Candidate* c : only.empty() ? std::span<const Candidate* const>(s.candidates) : only) {
    offer(*c, "");
  }
  const SearchSpace space =
      only.empty() ? s.backend->search_space(probe, s.spec->search) : SearchSpace{};
  for (std::size_t i = 0; i < space.candidates.size(); ++i) {
    offer(*space.candidates[i], space.sources[i]);
  }
  if (!space.summary.empty()) {
    if (progress) progress->clear();
    std::printf("%s: %s\n", to_string(key).c_str(), space.summary.c_str());
    std::fflush(stdout);
    s.writer.comment("search " + to_string(key) + ": " + space.summary);
  }
  std::vector<ResultRow> rows;
  PointReport report;
  if (!arms.empty()) {
    try {
      report = measure_arms(key, arms, *s.device, s.spec->measure, &s.arena);
    } catch (const std::exception& ex) {
      report.arms.clear();
      for (const LaunchArm& a : arms) {
        ArmResult r;
        r.name = a.name;
        r.status = Status::error;
        r.detail = std::string("could not measure the point: ") + ex.what();
        report.arms.push_back(r);
      }
    }
    for (std::size_t i = 0; i < report.arms.size() && i < sources.size(); ++i) {
      if (!sources[i].empty()) report.arms[i].detail += "; " + sources[i];
    }
  }
  for (ArmResult& r : refused) report.arms.push_back(std::move(r));
  for (const ArmResult& a : report.arms) {
    ResultRow r;
    r.key = key;
    r.spelling = a.name;
    r.status = a.status;
    r.origin = origin;
    r.detail = a.detail;
    r.digest = a.digest;
    if (a.status == Status::ok) {
      r.median_us = a.stats.median;
      r.spread_pct = a.stats.spread_pct;
      r.repetitions = a.stats.count;
    }
    s.writer.write(r);
    s.done.emplace(to_string(key), r.spelling);
    switch (a.status) {
      case Status::ok:
        ++s.ok;
        break;
      case Status::failed:
        ++s.failed;
        break;
      case Status::error:
        ++s.error;
        break;
      case Status::not_runnable:
        ++s.not_runnable;
        break;
    }
    if (a.status == Status::failed || a.status == Status::error) {
      if (progress) progress->clear();
      std::printf("%s: %s %s at %s: %s\n", a.status == Status::failed ? "FAILED" : "ERROR",
                  a.name.c_str(), a.status == Status::failed ? "gave a wrong result" : "threw",
                  to_string(key).c_str(), a.detail.c_str());
      std::fflush(stdout);
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

std::string counts(const Session& s) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "rows written %d: ok %d, failed %d, error %d, not runnable %d",
                s.writer.written(), s.ok, s.failed, s.error, s.not_runnable);
  return buf;
}

// Measures `points` (a spec's lattice, or a shapes file's keys) not yet in the results file.
int run_points(Session& s, std::vector<Key> points, const std::string& source, Origin origin,
               const std::string& out, double budget_s, std::int64_t sample) {
  const std::size_t full = points.size();
  if (sample > 1) {
    std::vector<Key> every;
    for (std::size_t i = 0; i < points.size(); i += static_cast<std::size_t>(sample)) {
      every.push_back(points[i]);
    }
    points = std::move(every);
  }
  std::vector<std::string> spellings;
  for (const Candidate* c : s.candidates) spellings.emplace_back(c->spelling());
  const std::vector<Key> todo = pending(points, spellings, s.done);
  std::printf("tune: %zu points x %zu candidates in %s; %zu points already in %s; %zu to measure\n",
              points.size(), s.candidates.size(), source.c_str(), points.size() - todo.size(),
              out.c_str(), todo.size());
  std::fflush(stdout);
  if (todo.empty()) {
    std::printf("tune: measured nothing: every point of the spec is already in %s\n", out.c_str());
    return 0;
  }
  std::vector<double> w;
  double total_w = 0;
  for (const Key& k : todo) {
    // About 4 GMAC/s on the CPU; on a GPU some 100 TMAC/s (bf16 runs faster, f64 slower).
    const double rate = s.backend->kind() == BackendKind::cpu ? 4000.0 : 1e8;
    w.push_back(weight(k, *s.spec, s.candidates.size(), s.device->cache_bytes(), rate));
    total_w += w.back();
  }
  Progress progress("points", static_cast<int>(todo.size()), total_w);
  double done_w = 0;
  std::size_t i = 0;
  std::string stop_reason;
  for (; i < todo.size(); ++i) {
    stop_reason = stop_reason_now(progress, budget_s);
    if (!stop_reason.empty()) break;
    progress.update(static_cast<int>(i), done_w, describe_point(todo[i]));
    measure_point(s, todo[i], origin, &progress);
    done_w += w[i];
  }
  progress.update(static_cast<int>(i), done_w, stop_reason.empty() ? "done" : "stopped");
  progress.finish();
  std::fputc('\n', stderr);
  if (!stop_reason.empty()) {
    std::printf(
        "tune: %s after %zu of %zu points (%s); %zu points not measured; continue with\n"
        "      the same command and --resume\n",
        stop_reason.c_str(), i, todo.size(), format_duration(progress.elapsed_s()).c_str(),
        todo.size() - i);
  }
  std::printf("tune: measured %zu points in %s; %s; results in %s\n", i,
              format_duration(progress.elapsed_s()).c_str(), counts(s).c_str(), out.c_str());
  if (sample > 1 && i > 0) {
    std::printf(
        "tune: sampled every %lld-th point: projected time for all %zu points: %s (%.0f s)\n",
        static_cast<long long>(sample), full,
        format_duration(progress.elapsed_s() * static_cast<double>(full) / i).c_str(),
        progress.elapsed_s() * static_cast<double>(full) / static_cast<double>(i));
  }
  if (i == 0) std::printf("tune: measured nothing\n");
  return stop_reason.empty() ? 0 : 3;
}

// The most candidates a confirming run measures at a point, the vendor's choice among them.
constexpr std::size_t kConfirmMost = 8;

// tune --confirm: at each point of `first` (of the shapes file, when given) whose ranking put a
// candidate ahead of the vendor's own choice, the fastest of those candidates and that choice
// are measured again, alone, in this run (to_confirm). `table build FIRST --confirm OUT` then
// keeps a displacement only where both runs agree.
int run_confirm(Session& s, const Results& first, const std::vector<Key>* only_keys,
                const std::string& out, double budget_s) {
  std::vector<std::string> order;
  for (const Candidate* c : s.backend->candidates()) order.emplace_back(c->spelling());
  BuildOptions o;
  const Table ranked = build_table(first, order, o);
  struct Todo {
    Key key;
    std::vector<const Candidate*> candidates;
  };
  std::vector<Todo> todo;
  std::vector<Resolved> keep;  // the candidates made for spellings, alive for the run
  keep.reserve(4096);
  for (const Row& row : ranked.rows) {
    if (only_keys && std::find(only_keys->begin(), only_keys->end(), row.key) == only_keys->end()) {
      continue;
    }
    const std::string_view vendor = s.backend->vendor_default(row.key.dtype).spelling();
    Todo t{row.key, {}};
    for (const std::string& spelling :
         to_confirm(row, vendor, kConfirmMost,
                    [&](std::string_view sp) { return is_done(s.done, row.key, sp); })) {
      keep.push_back(s.backend->resolve(spelling));
      if (keep.back().candidate) t.candidates.push_back(keep.back().candidate);
    }
    if (!t.candidates.empty()) todo.push_back(std::move(t));
  }
  std::printf(
      "tune --confirm: %zu points of %zu where a candidate displaced the vendor's own "
      "choice, still to measure again\n",
      todo.size(), ranked.rows.size());
  std::fflush(stdout);
  Progress progress("points", static_cast<int>(todo.size()), static_cast<double>(todo.size()));
  std::size_t i = 0;
  std::string stop_reason;
  for (; i < todo.size(); ++i) {
    stop_reason = stop_reason_now(progress, budget_s);
    if (!stop_reason.empty()) break;
    progress.update(static_cast<int>(i), static_cast<double>(i), describe_point(todo[i].key));
    measure_point(s, todo[i].key, Origin::recorded, &progress, todo[i].candidates);
  }
  progress.update(static_cast<int>(i), static_cast<double>(i),
                  stop_reason.empty() ? "done" : "stopped");
  progress.finish();
  std::fputc('\n', stderr);
  if (!stop_reason.empty()) {
    std::printf("tune: %s after %zu of %zu points; continue with the same command and --resume\n",
                stop_reason.c_str(), i, todo.size());
  }
  std::printf("tune --confirm: measured %zu points in %s; %s; results in %s\n", i,
              format_duration(progress.elapsed_s()).c_str(), counts(s).c_str(), out.c_str());
  return stop_reason.empty() ? 0 : 3;
}

// The table --refine updates, loaded and checked before anything is written.
Table load_refine_table(const std::string& table_path, const Backend& backend) {
  Table table = load_table(table_path, backend);
  if (!table.notes.empty()) {
    for (const auto& n : table.notes) std::printf("note: %s\n", n.c_str());
    throw Error(Errc::invalid_argument, "refine",
                table_path +
                    " was measured on another device fingerprint (notes above); refine "
                    "a table measured here");
  }
  return table;
}

constexpr std::string_view kRefinedLine = "# Refined by `gemmroute tune --refine`";

// The table as --refine writes it back: its rows, the comments that followed its first line
// (where it came from: `table build` writes them) and one line saying it was refined.
std::string refined_text(const Table& table, const std::string& table_path) {
  std::string text = write_table(table);
  std::string old, why, comments;
  if (read_input_file(table_path, old, why)) {  // it loaded a moment ago; if not, no comments
    std::size_t at = old.find('\n');
    while (at != std::string::npos && at + 1 < old.size() && old[at + 1] == '#') {
      const std::size_t end = old.find('\n', at + 1);
      const std::string line = old.substr(at + 1, end - at);  // to the end where none follows
      if (!line.starts_with(kRefinedLine)) comments += line;
      at = end;
    }
  }
  if (!comments.empty() && comments.back() != '\n') comments += '\n';
  comments.append(kRefinedLine).append(": its rows marked `refined` were measured there.\n");
  text.insert(text.find('\n') + 1, comments);
  return text;
}

int run_refine(Session& s, Table table, const std::string& table_path, const OutputRules& rules,
               double margin, const std::string& out) {
  std::vector<std::string> order;
  for (const Candidate* c : s.backend->candidates()) order.emplace_back(c->spelling());
  RefineOptions o;
  o.ratio = s.spec->refine_ratio;
  o.max_points = s.spec->refine_max_points;
  o.margin = margin;
  o.stop = [] { return interrupted(); };
  const auto edges = find_edges(table);
  std::printf(
      "refine: %zu edges between neighbouring rows of %s with different winners; "
      "bisecting to a ratio of %.3g, at most %d points\n",
      edges.size(), table_path.c_str(), o.ratio, o.max_points);
  std::fflush(stdout);
  Progress progress("refined points (upper bound)", o.max_points, o.max_points);
  int n = 0;
  Measurer measurer = [&](const Key& key) {
    progress.update(n, n, describe_point(key));
    std::vector<ResultRow> rows;
    auto it = s.previous.find(to_string(key));
    if (it != s.previous.end()) rows = it->second;  // measured by an interrupted refine
    auto fresh = measure_point(s, key, Origin::refined, &progress);
    rows.insert(rows.end(), fresh.begin(), fresh.end());
    ++n;
    return rows;
  };
  RefineReport report = refine(table, order, measurer, o);
  progress.finish();
  // Write the table back, whole, with its new rows: replacing it is what --refine is for.
  const std::string text = refined_text(table, table_path);
  OutputFile file(table_path, "refine", rules);
  file.write(text);
  file.commit();
  std::printf(
      "refine: %d edges; measured %d points, added %zu refined rows to %s; %d brackets "
      "left wider than %.3g%s; %s; results in %s\n",
      report.edges, report.measured, report.added.size(), table_path.c_str(), report.unresolved,
      o.ratio, report.stopped ? " (interrupted)" : "", counts(s).c_str(), out.c_str());
  if (report.measured == 0) std::printf("refine: measured nothing\n");
  return report.stopped ? 3 : 0;
}

}  // namespace

int tune(const Argv& argv) {
  Args args(argv,
            {"device", "spec", "out", "budget-minutes", "refine", "margin", "sample", "shapes",
             "confirm"},
            {"resume"});
  if (args.help()) {
    std::puts(kHelp);
    return 0;
  }
  if (!args.positional().empty()) throw UsageError("unexpected '" + args.positional()[0] + "'");
  const Device device = args.device();
  const std::string out = args.required("out");
  const double budget_min = args.number("budget-minutes", 0, 0, 1e6);
  const double margin = args.number("margin", 0.03, 0, 1, true);
  const std::int64_t sample = args.integer("sample", 1, 1, std::int64_t{1} << 30);
  const bool refining = args.get("refine").has_value();
  const std::string refine_path = args.get_or("refine", "");
  const std::optional<std::string> shapes_path = args.get("shapes");
  if (shapes_path && refining) throw UsageError("--shapes and --refine: one at a time");
  const std::optional<std::string> confirm_path = args.get("confirm");
  if (confirm_path && refining) throw UsageError("--confirm and --refine: one at a time");
  std::vector<Shape> shapes;
  if (shapes_path) shapes = distinct_shapes(read_shapes(*shapes_path));
  if (shapes_path && shapes.empty()) {
    throw UsageError(*shapes_path + " holds no shape: nothing to measure");
  }
  // With --shapes or --confirm the spec only sets the method and candidates: the harness
  // defaults without.
  Spec spec;
  if ((!shapes_path && !confirm_path) || args.get("spec")) {
    spec = read_spec(args.required("spec"));
  } else {
    spec.path = "(no spec: the harness defaults)";
    spec.name = "shapes";
  }
  // What the results file records as its spec.
  const std::string spec_line =
      confirm_path ? "confirming " + *confirm_path + " (method " + spec.path + ")"
      : shapes_path
          ? *shapes_path + " (" + std::to_string(shapes.size()) + " keys; method " + spec.path + ")"
          : spec.describe();

  auto backend = make_backend(device);
  auto exec = backend->make_exec(nullptr);
  auto mdev = make_measure_device(*backend, *exec);
  Session s;
  s.backend = backend.get();
  s.exec = exec.get();
  s.device = mdev.get();
  s.spec = &spec;
  if (spec.candidates.empty()) {
    for (const Candidate* c : backend->candidates()) {
      // An A/B build's patched copies (`:ab=1`) are timed only where a spec names them: `all` is
      // the shipped vocabulary, so a campaign's results never hold spellings no other build has.
      const auto spelling = parse_spelling(c->spelling());
      if (spelling && spelling->param("ab")) continue;
      s.candidates.push_back(c);
    }
  } else {
    for (const std::string& sp : spec.candidates) {
      const Candidate* c = backend->find(sp);
      if (!c) {
        throw Error(Errc::invalid_argument, "spec",
                    spec.path + ": candidate '" + sp + "' is not one of the " +
                        std::string(backend->name()) + " backend's");
      }
      s.candidates.push_back(c);
    }
  }

  // Everything that can be refused is, before the results file is made: the table to refine,
  // and both outputs (never a directory or special file, never one of the other inputs).
  std::optional<Table> refine_table;
  const OutputRules refine_rules{true, {spec.path, out}};
  if (refining) {
    refine_table = load_refine_table(refine_path, *backend);
    check_output(refine_path, "refine", refine_rules);
  }
  check_output(
      out, "out",
      {true, {spec.path, refine_path, shapes_path.value_or(""), confirm_path.value_or("")}});
  std::optional<Results> first;
  if (confirm_path) {
    first = read_results(*confirm_path);
    auto bad = fingerprint_mismatch(first->fingerprint, backend->fingerprint());
    if (!bad.empty()) {
      throw Error(Errc::invalid_argument, "confirm",
                  *confirm_path + " was measured on another device: confirm it there");
    }
  }

  const Fingerprint& fp = backend->fingerprint();
  std::error_code ec;
  const bool exists = std::filesystem::exists(out, ec);
  if (exists) {
    if (!args.flag("resume") && !refining) {
      throw UsageError(out + " exists: pass --resume to continue it, or choose another --out");
    }
    Results prev = read_results(out);
    auto bad = fingerprint_mismatch(prev.fingerprint, fp);
    if (!bad.empty()) {
      std::string why;
      for (const auto& f : bad) {
        const std::string* a = prev.fingerprint.get(f);
        const std::string* b = fp.get(f);
        why += "\n  fingerprint." + f + ": '" + (a ? *a : "(none)") + "' in the file, '" +
               (b ? *b : "(none)") + "' here";
      }
      throw Error(Errc::invalid_argument, "resume",
                  out + " was measured on another device; refusing to mix measurements:" + why);
    }
    if (const std::string* sp = prev.meta_field("spec"); sp && *sp != spec_line) {
      std::printf("note: %s was started with spec %s; continuing with %s\n", out.c_str(),
                  sp->c_str(), spec_line.c_str());
    }
    if (prev.truncated_tail) {
      std::printf("note: dropping an unfinished last line of %s (interrupted write)\n",
                  out.c_str());
    }
    s.done = done_pairs(prev);
    for (const ResultRow& r : prev.rows) s.previous[to_string(r.key)].push_back(r);
    s.writer.append(
        out, prev.complete_bytes,
        std::string(refining ? "refine" : "resumed") + " " + now_utc() + " " + spec_line,
        prev.version);
    if (prev.version < kResultsFormatVersion) {
      std::printf(
          "note: %s is results format %d: the rows added carry no output digests, so\n"
          "      a table built from it records no bit-identity groups\n",
          out.c_str(), prev.version);
    }
    std::printf("tune: resuming %s: %zu rows already measured\n", out.c_str(), prev.rows.size());
  } else {
    std::vector<std::pair<std::string, std::string>> meta = {
        {"method", method_line(*mdev, spec.measure)},
        {"spec", spec_line},
        {"tuner", tuner_version()},
        {"started", now_utc()},
        {"clocks", mdev->clocks().empty() ? "not readable" : mdev->clocks()},
    };
    s.writer.create(out, results_header(fp, meta));
  }
  std::printf("tune: device %s (%s); %s\n", fp.get("device") ? fp.get("device")->c_str() : "?",
              fp.id().c_str(), method_line(*mdev, spec.measure).c_str());
  std::fflush(stdout);
  install_interrupt_handler();
  if (refining) {
    return run_refine(s, std::move(*refine_table), refine_path, refine_rules, margin, out);
  }
  if (confirm_path) {
    std::vector<Key> keys;
    for (const Shape& sh : shapes) keys.push_back(sh.key);
    return run_confirm(s, *first, shapes_path ? &keys : nullptr, out, budget_min * 60.0);
  }
  if (shapes_path) {
    std::vector<Key> keys;
    for (const Shape& sh : shapes) keys.push_back(sh.key);
    return run_points(s, std::move(keys), *shapes_path, Origin::recorded, out, budget_min * 60.0,
                      sample);
  }
  return run_points(s, lattice(spec), spec.path, Origin::measured, out, budget_min * 60.0, sample);
}

}  // namespace gemmroute::cli
