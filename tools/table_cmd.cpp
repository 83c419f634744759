// gemmroute table check FILE: parse and validate a table against this device's backend.
// gemmroute table build RESULTS.csv --out FILE: rank a tune run's measurements into a table.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "args.hpp"
#include "core/backend.hpp"
#include "core/table.hpp"
#include "gemmroute/error.hpp"
#include "measure/rank.hpp"
#include "measure/results.hpp"
#include "verbs.hpp"

namespace gemmroute::cli {
namespace {

int check(const Argv& argv) {
  Args args(argv, {"device"}, {});
  if (args.help() || args.positional().size() != 1) {
    std::puts(
        "usage: gemmroute table check FILE [--device cpu]\n"
        "\n"
        "Prints `ok: N rows` and exits 0, or one `FILE:LINE:COL: message` line per problem\n"
        "and exits 1.");
    return args.help() ? 0 : 2;
  }
  const std::string& path = args.positional()[0];
  const Device device = args.device();
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::printf("%s:0:0: cannot open the table file\n", path.c_str());
    return 1;
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  std::vector<Diagnostic> diags;
  Table t = parse_table(buf.str(), path, diags);
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

int build(const Argv& argv) {
  Args args(argv, {"out", "margin", "date"}, {"generic"});
  if (args.help() || args.positional().size() != 1) {
    std::puts(
        "usage: gemmroute table build RESULTS.csv --out FILE [--margin 0.03] [--generic]\n"
        "\n"
        "Ranks each point's ok measurements with the tie rule (docs/measuring.md): a candidate\n"
        "displaces one earlier in the backend's tie-break order only when it is faster by more\n"
        "than max(margin, the larger measured spread). Failed, erroring and not-runnable\n"
        "candidates never appear. Rows are `measured`, or `refined` where `tune --refine` made\n"
        "them. The table's header records the results' fingerprint, tuner, spec and method.\n"
        "\n"
        "  --margin X   tie-rule margin as a fraction (default 0.03)\n"
        "  --generic    write only fingerprint.backend: a generic table for that backend\n"
        "  --date D     the table's date field (default: today, UTC)");
    return args.help() ? 0 : 2;
  }
  const std::string& in = args.positional()[0];
  const std::string out = args.required("out");
  measure::BuildOptions o;
  o.margin = args.number("margin", 0.03);
  if (o.margin < 0 || o.margin >= 1) throw UsageError("--margin must be in [0, 1)");
  o.generic = args.flag("generic");
  o.date = args.get_or("date", "");
  o.source = std::filesystem::path(in).filename().string();
  measure::Results results = measure::read_results(in);
  const std::string* be = results.fingerprint.get("backend");
  auto device = parse_device(be ? *be : "");
  if (!device) {
    throw Error(Errc::invalid_argument, "results",
                in + ": no usable fingerprint.backend line ('" + (be ? *be : "") + "')");
  }
  bool offline = false;  // the results' device need not be here: its vocabulary suffices
  auto backend = make_backend_or_vocabulary(*device, &offline);
  std::vector<std::string> order;
  for (const Candidate* c : backend->candidates()) order.emplace_back(c->spelling());
  measure::BuildSummary summary;
  Table t = measure::build_table(results, order, o, &summary);
  std::string text = write_table(t);
  // Comments after the magic line: where this came from.
  const std::size_t nl = text.find('\n') + 1;
  char margin[32];
  std::snprintf(margin, sizeof margin, "%.3g", o.margin);
  std::string comment = "# Built by `gemmroute table build ";
  comment.append(o.source).append(" --margin ").append(margin);
  if (o.generic) comment.append(" --generic");
  comment.append("`. Entries: spelling@median\xC2\xB1spread,\n");
  comment.append("# medians in time per call (whole batch), spread interquartile range / median.\n");
  text.insert(nl, comment);
  // What we write must load: parse and validate before touching the output file.
  std::vector<Diagnostic> diags;
  Table again = parse_table(text, out, diags);
  if (diags.empty()) validate_table(again, *backend, diags);
  if (!diags.empty()) {
    std::string message = "the built table does not validate (a bug):";
    for (const auto& d : diags) message.append("\n").append(format_diagnostic(out, d));
    throw Error(Errc::internal, "table", message);
  }
  const std::string tmp = out + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << text;
    if (!f) throw Error(Errc::invalid_argument, "out", tmp + ": cannot write");
  }
  std::filesystem::rename(tmp, out);
  std::printf("table build: %zu result rows from %s -> %s\n", results.rows.size(), in.c_str(),
              out.c_str());
  if (results.truncated_tail) std::printf("note: ignored an unfinished last line of %s\n", in.c_str());
  std::printf("rows: %d (measured %d, refined %d)\n", summary.rows, summary.measured,
              summary.refined);
  std::printf("points left out (no candidate measured ok): %d\n", summary.points_without_candidate);
  std::printf("failed or erroring (point, candidate) pairs, never ranked: %d\n", summary.failures);
  std::string winners;
  for (const auto& [sp, n] : summary.winners) {
    winners += (winners.empty() ? "" : ", ") + sp + " " + std::to_string(n);
  }
  std::printf("winners (rows won per candidate): %s\n", winners.empty() ? "none" : winners.c_str());
  if (summary.rows == 0) {
    std::printf("table build: no rows: %s holds no ok measurement\n", in.c_str());
    return 1;
  }
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
