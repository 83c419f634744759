// The rows of `gemmroute demo`, CPU and GPU alike: each shape's table choice and the vendor,
// checked against the long-double reference and then timed by the shared harness
// (src/measure), interleaved in one process, so that a row where both are one candidate reads
// 1.00x within the spread.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/context_state.hpp"
#include "measure/measure.hpp"

namespace gemmroute::cli {

struct DemoRow {
  std::string shape, choice;
  double ours_us = 0, vendor_us = 0;
  double spread_pct = 0;  // the larger of the two arms' spreads
  std::string err;        // worst error over its bound, or why an arm failed
  bool ok = false;
};

// `key` through the public gemm() call (the table's choice) against the backend's last-resort
// vendor, launched directly.
DemoRow measure_shape(Context& ctx, const Key& key, measure::MeasureDevice& device,
                      const measure::MeasureOptions& options, measure::Arena& arena);

// The harness options of a demo section: medians of `reps` samples, 7 at the least.
measure::MeasureOptions demo_options(int reps);

// The one line saying how the ratios were measured and the column header (`vendor` names the
// vendor's column: "vendor", "cublas"), then each of `shapes` measured and printed in turn.
std::vector<DemoRow> measure_rows(Context& ctx, std::span<const Key> shapes,
                                  measure::MeasureDevice& device,
                                  const measure::MeasureOptions& options,
                                  const std::string& vendor);

void print_row(const DemoRow& row);

std::string format_us(double us);

}  // namespace gemmroute::cli
