// gemmroute: the command-line tool. `gemmroute --help` lists the verbs.
#include <cstdio>
#include <exception>
#include <string>

#include "args.hpp"
#include "gemmroute/error.hpp"
#include "verbs.hpp"

namespace {

constexpr const char* kUsage =
    "usage: gemmroute <verb> [options]   (gemmroute <verb> --help for each)\n"
    "\n"
    "verbs:\n"
    "  explain       show how the table chooses a candidate for one problem\n"
    "  table check   validate a table file\n"
    "  table build   rank a tune run's results into a table\n"
    "  tune          measure every candidate over a spec's lattice (or refine a table's edges)\n"
    "  bench         time auto, the vendor and every candidate on a shapes file\n"
    "  demo          run a mixed CPU workload, checked against the reference, with timings\n";

}  // namespace

int main(int argc, char** argv) {
  using namespace gemmroute::cli;
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  std::string verb = argv[1];
  Argv rest(argv + 2, argv + argc);
  try {
    if (verb == "--help" || verb == "-h" || verb == "help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (verb == "explain") return explain(rest);
    if (verb == "table") return table(rest);
    if (verb == "demo") return demo(rest);
    if (verb == "tune") return tune(rest);
    if (verb == "bench") return bench(rest);
    std::fprintf(stderr, "gemmroute: unknown verb '%s'\n%s", verb.c_str(), kUsage);
    return 2;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "gemmroute %s: %s (see gemmroute %s --help)\n", verb.c_str(), e.what(),
                 verb.c_str());
    return 2;
  } catch (const gemmroute::Error& e) {
    std::fprintf(stderr, "gemmroute %s: %s\n", verb.c_str(), e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemmroute %s: %s\n", verb.c_str(), e.what());
    return 1;
  }
}
