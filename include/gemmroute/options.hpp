// Per-call overrides of the table's choice. Empty fields fall back to the environment
// (GEMMROUTE_PIN, GEMMROUTE_ROUTE, GEMMROUTE_TABLE, GEMMROUTE_DETERMINISTIC) read when the
// Context was made.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gemmroute {

// Which candidates the walk may take: all of them, only our own kernels, or only the vendor's.
enum class Route { automatic, native, vendor };

std::string_view to_string(Route route) noexcept;
std::optional<Route> parse_route(std::string_view text) noexcept;  // "auto", "native", "vendor"

struct Options {
  std::string pin;             // a candidate spelling that must run, or an Error says why not
  std::optional<Route> route;  // restricts the walk; unset means the environment, else auto
  std::string table;           // a table file used instead of the device's default
  // f32 calls compute in TF32 (dtype f32:f32:tf32): each product's operands rounded to 10
  // mantissa bits, summed in f32. Faster on tensor cores, less exact; never used unless set
  // here. Other scalars are unaffected.
  bool tf32 = false;
  // Only candidates whose output is the same bytes run to run (no split-K reductions; the
  // table's walk skips the others, saying why). Also set for every call of a Context by
  // GEMMROUTE_DETERMINISTIC=1.
  bool deterministic = false;
};

}  // namespace gemmroute
