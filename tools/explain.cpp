// gemmroute explain: the walk the selector takes for one problem.
#include <cstdio>

#include "core/context_state.hpp"
#include "core/select.hpp"
#include "problem_args.hpp"
#include "verbs.hpp"

namespace gemmroute::cli {

int explain(const Argv& argv) {
  Args args(
      argv,
      {"device", "dtype", "ta", "tb", "m", "n", "k", "batch", "layout", "table", "pin", "route"},
      {});
  if (args.help()) {
    std::puts(
        "usage: gemmroute explain [--device cpu] --dtype f32|f64|c32|c64 --ta N|T|C --tb N|T|C\n"
        "                         --m M --n N --k K [--batch B] [--layout packed|strided]\n"
        "                         [--table FILE] [--pin SPELLING] [--route auto|native|vendor]\n"
        "\n"
        "Prints the key, the table file, the nearest row and its distance, every entry of the\n"
        "walk (runs, or skipped: reason) and last `choice: <spelling>`. GEMMROUTE_TABLE,\n"
        "GEMMROUTE_PIN and GEMMROUTE_ROUTE apply as they do to library calls.");
    return 0;
  }
  if (!args.positional().empty()) throw UsageError("unexpected '" + args.positional()[0] + "'");
  const Device device = args.device();
  Problem p = problem_from_args(args);
  Options options;
  options.table = args.get_or("table", "");
  options.pin = args.get_or("pin", "");
  if (auto r = args.get("route")) {
    options.route = parse_route(*r);
    if (!options.route) throw UsageError("--route: expected auto, native or vendor");
  }
  Context ctx(device);
  auto& st = detail::Access::state(ctx);
  const Table* table = st.table_for(options);
  Overrides ov = st.overrides_for(options);
  Key key = key_of(p);
  Trace trace;
  Selection s = select(p, key, table, *st.backend, *st.exec, ov, &trace);
  std::fputs(format_explain(key, table, s, trace, ov).c_str(), stdout);
  return 0;
}

}  // namespace gemmroute::cli
