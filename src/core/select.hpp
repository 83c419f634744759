// Selection: the pure function (key, table, device, overrides) -> candidate.
#pragma once

#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/predict.hpp"
#include "core/table.hpp"
#include "gemmroute/options.hpp"

namespace gemmroute {

// Views into the Options or the Context's environment, which outlive the call.
struct Overrides {
  Overrides() = default;
  Overrides(std::string_view pin_spelling, Route walk_route)
      : pin(pin_spelling), route(walk_route) {}

  std::string_view pin;  // the spelling as given; empty: no pin
  Route route = Route::automatic;
  Selector selector = kDefaultSelector;  // how the table is read between its rows
  bool deterministic = false;            // only candidates reproducible run to run
  const Candidate* pinned = nullptr;     // what the pin resolved to (null: it names nothing)
  std::string_view pin_error;            // why it names nothing
};

enum class Source { pin, table, last_resort };

struct Selection {
  const Candidate* candidate = nullptr;
  Source source = Source::table;
  Lookup lookup;  // basis none: no row for this key (or a pin)
};

// Filled only when asked for (explain, GEMMROUTE_LOG): the selection path itself allocates
// nothing.
struct WalkStep {
  std::string spelling;
  std::string reason;  // empty: runs
  std::string from;    // "row", "last resort"
};
struct Trace {
  std::vector<WalkStep> steps;
};

// Throws Error(not_runnable) for a pin that names nothing or cannot run, and when the route
// leaves no candidate that can run.
// A candidate is taken only where it can run the problem with the Exec's workspace.
// `lookup`, when given, is look_up(*table, key, overrides.selector) computed beforehand (a
// grouped call looks each distinct key up once).
Selection select(const Problem& problem, const Key& key, const Table* table, const Backend& backend,
                 const Exec& exec, const Overrides& overrides, Trace* trace,
                 const Lookup* lookup = nullptr);

// One line for GEMMROUTE_LOG, and the multi-line walk that `gemmroute explain` prints.
std::string format_log_line(const Key& key, const Table* table, const Selection& s,
                            const Trace& trace, const Overrides& overrides);
std::string format_explain(const Key& key, const Table* table, const Selection& s,
                           const Trace& trace, const Overrides& overrides);

}  // namespace gemmroute
