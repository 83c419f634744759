// gemmroute explain: the walk the selector takes for one problem.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <utility>
#include <vector>

#include "core/context_state.hpp"
#include "core/select.hpp"
#include "gemmroute/error.hpp"
#include "problem_args.hpp"
#include "verbs.hpp"

namespace gemmroute::cli {
namespace {

// Where the device is not here (a CUDA table read on a laptop or in CI): the same walk over
// the backend's vocabulary. can_run needs no device; the Context's workspace is taken as none.
int explain_offline(Device device, const Problem& p, const Options& options,
                    const std::string& why) {
  bool offline = false;
  auto backend = make_backend_or_vocabulary(device, &offline);
  const Environment env = read_environment();
  std::string path = !options.table.empty() ? options.table
                     : !env.table.empty()   ? env.table
                                            : default_table_path(*backend);
  std::unique_ptr<Table> table;
  if (!path.empty()) table = std::make_unique<Table>(load_table(path, *backend));
  const Exec exec;
  Overrides ov;
  ov.route = options.route.value_or(env.route);
  ov.selector = env.selector_set ? env.selector : backend->default_selector();
  ov.deterministic = options.deterministic || env.deterministic;
  Resolved pin;
  ov.pin = options.pin.empty() ? std::string_view(env.pin) : std::string_view(options.pin);
  if (!ov.pin.empty()) {
    pin = backend->resolve(ov.pin);
    ov.pinned = pin.candidate;
    ov.pin_error = pin.error;
  }
  std::printf(
      "note: %s; the walk below is over the %s backend's vocabulary, without the "
      "device\n",
      why.c_str(), std::string(backend->name()).c_str());
  Key key = key_of(p);
  Trace trace;
  Selection s = select(p, key, table.get(), *backend, exec, ov, &trace);
  std::fputs(format_explain(key, table.get(), s, trace, ov).c_str(), stdout);
  return 0;
}

}  // namespace

int explain(const Argv& argv) {
  Args args(
      argv,
      {"device", "dtype", "ta", "tb", "m", "n", "k", "batch", "layout", "table", "pin", "route"},
      {"deterministic", "pointers"});
  if (args.help()) {
    std::puts(
        "usage: gemmroute explain [--device cpu] --dtype DTYPE --ta N|T|C --tb N|T|C\n"
        "                         --m M --n N --k K [--batch B] [--layout packed|strided]\n"
        "                         [--table FILE] [--pin SPELLING] [--route auto|native|vendor]\n"
        "                         [--deterministic] [--pointers]\n"
        "\n"
        "DTYPE: f32, f64, c32, c64, bf16, f16 (bf16 and f16: C of the same type, f32 compute),\n"
        "or in:out:compute: bf16:f32:f32, f16:f32:f32, f32:f32:tf32.\n"
        "\n"
        "Prints the key, the table file, the nearest row and its distance, every entry of the\n"
        "walk (runs, or skipped: reason) and last `choice: <spelling>`. GEMMROUTE_TABLE,\n"
        "GEMMROUTE_PIN and GEMMROUTE_ROUTE apply as they do to library calls. For a device\n"
        "this machine lacks (--device cuda without a GPU), the walk is shown over the\n"
        "backend's vocabulary, with a note saying so. --deterministic (or\n"
        "GEMMROUTE_DETERMINISTIC=1) walks as Options::deterministic does: only candidates whose\n"
        "output is the same bytes run to run. --pointers walks for a pointer-array batch whose\n"
        "items have ld == rows (as gemm_groups' groups and the pointer-array gemm take them;\n"
        "keyed strided), where --layout strided alone assumes ld = rows + 1.");
    return 0;
  }
  if (!args.positional().empty()) throw UsageError("unexpected '" + args.positional()[0] + "'");
  const Device device = args.device();
  Problem p = problem_from_args(args);
  // --pointers: the items through pointer arrays, ld == rows (never dereferenced: selection reads
  // sizes and leading dimensions, and a pointer array's entries nowhere).
  std::vector<const void*> items;
  if (args.flag("pointers")) {
    if (args.get("layout") && *args.get("layout") != "strided") {
      throw UsageError("--pointers: a pointer-array batch is keyed strided, not " +
                       *args.get("layout"));
    }
    items.assign(static_cast<std::size_t>(p.batch), p.a.base);
    for (auto [o, rows] : {std::pair{&p.a, p.rows_a()}, {&p.b, p.rows_b()}, {&p.c, p.m}}) {
      *o = Operand{nullptr, items.data(), std::max<std::int64_t>(rows, 1), 0};
    }
    std::puts("note: a pointer-array batch, ld == rows (--pointers)");
  }
  Options options;
  options.table = args.get_or("table", "");
  options.pin = args.get_or("pin", "");
  options.deterministic = args.flag("deterministic");
  if (auto r = args.get("route")) {
    options.route = parse_route(*r);
    if (!options.route) throw UsageError("--route: expected auto, native or vendor");
  }
  std::unique_ptr<Context> ctx;
  try {
    ctx = std::make_unique<Context>(device);
  } catch (const Error& e) {
    if (e.code() != Errc::unsupported || device.kind == BackendKind::cpu) throw;
    return explain_offline(device, p, options, e.message());
  }
  auto& st = detail::Access::state(*ctx);
  const Table* table = st.table_for(options);
  Overrides ov = st.overrides_for(options);
  Key key = key_of(p);
  Trace trace;
  Selection s = select(p, key, table, *st.backend, *st.exec, ov, &trace);
  std::fputs(format_explain(key, table, s, trace, ov).c_str(), stdout);
  return 0;
}

}  // namespace gemmroute::cli
