// gemmroute table check FILE: parse and validate a table against this device's backend.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/backend.hpp"
#include "core/table.hpp"
#include "verbs.hpp"
#include "args.hpp"

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
  auto device = parse_device(args.get_or("device", "cpu"));
  if (!device) throw UsageError("--device: expected cpu or cuda[:N]");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::printf("%s:0:0: cannot open the table file\n", path.c_str());
    return 1;
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  std::vector<Diagnostic> diags;
  Table t = parse_table(buf.str(), path, diags);
  auto backend = make_backend(*device);
  if (diags.empty()) validate_table(t, *backend, diags);
  for (const Diagnostic& d : diags) std::printf("%s\n", format_diagnostic(path, d).c_str());
  if (!diags.empty()) return 1;
  for (const std::string& n : t.notes) std::printf("note: %s\n", n.c_str());
  std::printf("ok: %zu rows\n", t.rows.size());
  return 0;
}

}  // namespace

int table(const Argv& argv) {
  if (argv.empty() || argv[0] == "--help" || argv[0] == "-h") {
    std::puts("usage: gemmroute table check FILE");
    return argv.empty() ? 2 : 0;
  }
  Argv rest(argv.begin() + 1, argv.end());
  if (argv[0] == "check") return check(rest);
  throw UsageError("unknown table verb '" + argv[0] + "' (check)");
}

}  // namespace gemmroute::cli
