// gemmroute table check FILE: parse and validate a table against this device's backend.
// gemmroute table build RESULTS.csv --out FILE: rank a tune run's measurements into a table.
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>

#include "args.hpp"
#include "core/backend.hpp"
#include "core/files.hpp"
#include "core/table.hpp"
#include "gemmroute/error.hpp"
#include "measure/rank.hpp"
#include "measure/results.hpp"
#include "verbs.hpp"

namespace gemmroute::cli {
namespace {

constexpr const char* kCheckHelp =
    "usage: gemmroute table check FILE [--device cpu]\n"
    "\n"
    "Prints `ok: N rows` and exits 0, or one `FILE:LINE:COL: message` line per problem\n"
    "and exits 1. FILE must be a regular file of at most 256 MiB (GEMMROUTE_MAX_INPUT_MB).";

int check(const Argv& argv) {
  Args args(argv, {"device"}, {});
  if (args.help()) {
    std::puts(kCheckHelp);
    return 0;
  }
  if (args.positional().size() != 1) {
    std::fprintf(stderr, "%s\n", kCheckHelp);
    return 2;
  }
  const std::string& path = args.positional()[0];
  const Device device = args.device();
  std::string text, why;
  if (!read_input_file(path, text, why)) {
    std::printf("%s:0:0: the table file: %s\n", path.c_str(), why.c_str());
    return 1;
  }
  std::vector<Diagnostic> diags;
  Table t = parse_table(text, path, diags);
  bool offline = false;
  auto backend = make_backend_or_vocabulary(device, &offline);
  if (offline) {
    std::printf("note: no %s device here: syntax, spellings and keys checked against the "
                "backend's vocabulary; the fingerprint is not compared\n",
                std::string(backend->name()).c_str());
  }
  if (diags.empty()) validate_table(t, *backend, diags);
  for (const Diagnostic& d : diags) std::printf("%s\n", format_diagnostic(path, d).c_str());
  if (!diags.empty()) return 1;
  for (const std::string& n : t.notes) std::printf("note: %s\n", n.c_str());
  std::printf("ok: %zu rows\n", t.rows.size());
  return 0;
}

constexpr const char* kBuildHelp =
    "usage: gemmroute table build RESULTS.csv --out FILE [--margin 0.03] [--generic]\n"
    "                             [--merge TABLE] [--confirm CONFIRM.csv] [--force]\n"
    "\n"
    "Ranks each point's ok measurements with the tie rule (docs/measuring.md): a candidate\n"
    "displaces one earlier in the backend's tie-break order only when it is faster by more\n"
    "than max(margin, its measured spread). Failed, erroring and not-runnable candidates\n"
    "never appear. Rows are `measured`, `refined` where `tune --refine` made them, or\n"
    "`recorded` where `tune --shapes` did. The table's header records the results'\n"
    "fingerprint, tuner, spec and method. FILE is written whole or not at all, and only when\n"
    "the table has rows.\n"
    "\n"
    "  --margin X     tie-rule margin as a fraction, in [0, 1) (default 0.03)\n"
    "  --generic      write only fingerprint.backend: a generic table for that backend\n"
    "  --merge TABLE  write TABLE with these rows merged in: a row replaces TABLE's row of its\n"
    "                 key, or is added (exact rows for the keys a program calls, in a table\n"
    "                 that still answers between them); TABLE's header is kept. RESULTS.csv\n"
    "                 must be measured on TABLE's device (any, for a generic TABLE)\n"
    "  --confirm CONFIRM.csv\n"
    "                 a second run over some of the points (`tune --confirm RESULTS.csv`): at\n"
    "                 those points a candidate displaces an earlier one only where both runs\n"
    "                 say so; one the second run did not measure displaces none it did\n"
    "  --date D       the table's date field (default: today, UTC)\n"
    "  --force        replace FILE when it exists (never when it is an input)";

// Every ok row names a candidate of the backend, reported at its own line and column: a
// table's spellings must resolve, and only the results file says where one came from.
void check_spellings(const std::string& path, const measure::Results& results,
                     const Backend& backend) {
  std::string message;
  std::map<std::string, Resolved, std::less<>> seen;
  for (const measure::ResultRow& r : results.rows) {
    if (r.status != measure::Status::ok) continue;
    auto it = seen.find(r.spelling);
    if (it == seen.end()) it = seen.emplace(r.spelling, backend.resolve(r.spelling)).first;
    if (it->second.candidate) continue;
    if (!message.empty()) message += '\n';
    message += format_diagnostic(path, {r.line, r.spelling_column, it->second.error});
  }
  if (!message.empty()) throw Error(Errc::invalid_argument, "results", message);
}

int build(const Argv& argv) {
  Args args(argv, {"out", "margin", "date", "merge", "confirm"}, {"generic", "force"});
  if (args.help()) {
    std::puts(kBuildHelp);
    return 0;
  }
  if (args.positional().size() != 1) {
    std::fprintf(stderr, "%s\n", kBuildHelp);
    return 2;
  }
  const std::string& in = args.positional()[0];
  const std::string out = args.required("out");
  measure::BuildOptions o;
  o.margin = args.number("margin", 0.03, 0, 1, true);
  o.generic = args.flag("generic");
  o.date = args.get_or("date", "");
  o.source = std::filesystem::path(in).filename().string();
  const std::string merge_path = args.get_or("merge", "");
  if (args.get("merge") && merge_path.empty()) throw UsageError("--merge: expected a table");
  if (!merge_path.empty() && o.generic)
    throw UsageError("--merge keeps TABLE's header: no --generic");
  const std::string confirm_path = args.get_or("confirm", "");
  if (args.get("confirm") && confirm_path.empty())
    throw UsageError("--confirm: expected a results file");
  OutputRules rules{args.flag("force"), {in}};
  if (!merge_path.empty()) rules.inputs.push_back(merge_path);
  if (!confirm_path.empty()) rules.inputs.push_back(confirm_path);
  check_output(out, "out", rules);  // before the work: a refused --out costs nothing
  measure::Results results = measure::read_results(in);
  const std::string* be = results.fingerprint.get("backend");
  auto device = parse_device(be ? *be : "");
  if (!device) {
    throw Error(Errc::invalid_argument, "results",
                in + ": no usable fingerprint.backend line ('" + (be ? *be : "") + "')");
  }
  bool offline = false;  // the results' device need not be here: its vocabulary suffices
  auto backend = make_backend_or_vocabulary(*device, &offline);
  check_spellings(in, results, *backend);
  std::optional<measure::Results> confirm;
  if (!confirm_path.empty()) {
    confirm = measure::read_results(confirm_path);
    auto bad = mismatched_fields(confirm->fingerprint, results.fingerprint);
    if (!bad.empty()) {
      std::string why;
      for (const auto& f : bad) why += " fingerprint." + f;
      throw Error(Errc::invalid_argument, "confirm",
                  confirm_path + " was measured on another device than " + in + " (" +
                      why.substr(1) + "); a confirming run must be of the same device");
    }
    check_spellings(confirm_path, *confirm, *backend);
    o.confirm = &*confirm;
    o.confirm_source = std::filesystem::path(confirm_path).filename().string();
  }
  std::vector<std::string> order;
  for (const Candidate* c : backend->candidates()) order.emplace_back(c->spelling());
  measure::BuildSummary summary;
  Table t = measure::build_table(results, order, o, &summary);
  std::printf("table build: %zu result rows from %s\n", results.rows.size(), in.c_str());
  if (results.truncated_tail)
    std::printf("note: ignored an unfinished last line of %s\n", in.c_str());
  std::printf("rows: %d (measured %d, refined %d, recorded %d)\n", summary.rows, summary.measured,
              summary.refined, summary.recorded);
  if (confirm) {
    std::printf("confirmed by %s: %d rows ranked with both runs, %d of them with another winner\n",
                confirm_path.c_str(), summary.confirmed, summary.changed);
    for (const measure::BuildSummary::Change& c : summary.changes) {
      std::printf("  %s: %s -> %s\n", to_string(c.key).c_str(), c.first.c_str(),
                  c.confirmed.c_str());
    }
  }
  std::printf("points left out (no candidate measured ok): %d\n", summary.points_without_candidate);
  std::printf("failed or erroring (point, candidate) pairs, never ranked: %d\n", summary.failures);
  std::string winners;
  for (const auto& [sp, n] : summary.winners) {
    winners += (winners.empty() ? "" : ", ") + sp + " " + std::to_string(n);
  }
  std::printf("winners (rows won per candidate): %s\n", winners.empty() ? "none" : winners.c_str());
  if (summary.rows == 0) {
    throw Error(Errc::invalid_argument, "results",
                in +
                    " holds no ok measurement: a table without rows would send every call to "
                    "the last resort; " +
                    out + " was not written");
  }
  std::optional<Table> merged;
  if (!merge_path.empty()) {
    Table base = load_table(merge_path, *backend);
    auto bad = mismatched_fields(base.fingerprint, results.fingerprint);
    if (!bad.empty()) {
      std::string why;
      for (const auto& f : bad) why += " fingerprint." + f;
      throw Error(Errc::invalid_argument, "merge",
                  in + " was measured on another device than " + merge_path + " (" + why.substr(1) +
                      "); merge measurements into a table of their own device");
    }
    int replaced = 0;
    merged = measure::merge_rows(base, t, &replaced);
    for (auto& [name, value] : merged->header) {
      if (name == "method") {
        value += "; " + std::to_string(summary.rows) + " rows merged from " + o.source +
                 " (table build --merge)";
      }
    }
    std::printf("merge: %d rows into %s's %zu: %d replace rows of their key, %d are new\n",
                summary.rows, merge_path.c_str(), base.rows.size(), replaced,
                summary.rows - replaced);
  }
  std::string text = write_table(merged ? *merged : t);
  // Comments after the magic line: where this came from.
  const std::size_t nl = text.find('\n') + 1;
  char margin[32];
  std::snprintf(margin, sizeof margin, "%.3g", o.margin);
  std::string comment = "# Built by `gemmroute table build ";
  comment.append(o.source).append(" --margin ").append(margin);
  if (o.generic) comment.append(" --generic");
  if (merged) {
    comment.append(" --merge ").append(std::filesystem::path(merge_path).filename().string());
  }
  if (confirm) comment.append(" --confirm ").append(o.confirm_source);
  comment.append("`. Entries: spelling@median\xC2\xB1spread,\n");
  comment.append(
      "# medians in time per call (whole batch), spread interquartile range / median.\n");
  text.insert(nl, comment);
  // What we write must load. Every input problem was reported above at its own line, so a
  // diagnostic here is a bug of the builder.
  std::vector<Diagnostic> diags;
  Table again = parse_table(text, out, diags);
  if (diags.empty()) validate_table(again, *backend, diags);
  if (!diags.empty()) {
    std::string message = "the built table does not validate (a bug; nothing was written):";
    for (const auto& d : diags) message.append("\n").append(format_diagnostic("(built table)", d));
    throw Error(Errc::internal, "table", message);
  }
  OutputFile file(out, "out", rules);
  file.write(text);
  file.commit();
  std::printf("table build: wrote %s\n", out.c_str());
  return 0;
}

}  // namespace

int table(const Argv& argv) {
  if (argv.empty() || argv[0] == "--help" || argv[0] == "-h") {
    std::puts(
        "usage: gemmroute table check FILE [--device cpu]\n"
        "       gemmroute table build RESULTS.csv --out FILE [--margin 0.03] [--generic]");
    return argv.empty() ? 2 : 0;
  }
  Argv rest(argv.begin() + 1, argv.end());
  if (argv[0] == "check") return check(rest);
  if (argv[0] == "build") return build(rest);
  throw UsageError("unknown table verb '" + argv[0] + "' (check, build)");
}

}  // namespace gemmroute::cli
