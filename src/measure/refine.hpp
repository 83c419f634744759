// Edge refinement: where neighbouring rows of a table have different winners, measure the
// point at the log-midpoint between them and keep bisecting towards the change until the
// bracket is within the spec's ratio. Measured points become rows marked `refined`.
//
// Neighbours: rows with the same dtype, forms and layout where one is the other scaled by one
// factor along some of the sizes (m alone; or m, n and k together, as in a lattice of squares),
// with no row between them on that line. The midpoint scales each of those sizes by the square
// root of the factor. Brackets are bisected in order of their stakes: how much slower one
// end's winner is at the other end, so a limited budget goes where a wrong pick costs most.
// The measuring is injected (a Measurer), so the search is tested with a fake timing source
// and run for real by `gemmroute tune --refine`.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/table.hpp"
#include "measure/rank.hpp"

namespace gemmroute::measure {

// Measures one point and returns its rows (any status; only ok rows are ranked).
using Measurer = std::function<std::vector<ResultRow>(const Key&)>;

struct RefineOptions {
  double ratio = 1.25;         // stop when hi / lo <= ratio (or no whole number lies between)
  int max_points = 200;        // at most this many measurements
  double margin = 0.03;        // for ranking the new points
  std::function<bool()> stop;  // checked before each measurement; true ends the search
};

struct Edge {
  Key lo, hi;     // hi is lo scaled up along `axes`
  unsigned axes;  // bit 0 m, 1 n, 2 k, 3 batch
};

struct RefineReport {
  int edges = 0;         // edges found in the table as given
  int measured = 0;      // points measured
  int unresolved = 0;    // brackets left wider than the ratio (budget or no ok candidate)
  bool stopped = false;  // options.stop said so
  std::vector<Key> added;
};

// Neighbouring rows whose first entries differ, in table order.
std::vector<Edge> find_edges(const Table& table);

// The log-midpoint of lo and hi, rounded to the nearest whole number.
std::int64_t log_midpoint(std::int64_t lo, std::int64_t hi);
// The key halfway between lo and hi in log space along every size where they differ.
Key log_midpoint(const Key& lo, const Key& hi);

// Adds refined rows to `table` (then re-sorted by key and re-indexed).
RefineReport refine(Table& table, std::span<const std::string> tie_order, const Measurer& measure,
                    const RefineOptions& options);

}  // namespace gemmroute::measure
