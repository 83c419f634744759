// Statistics of repeated timings: the median a table records, the spread beside it, and the
// summaries a benchmark prints (geometric mean, nearest-rank percentile).
#pragma once

#include <span>
#include <vector>

namespace gemmroute::measure {

struct Stats {
  double median = 0;      // of the samples (mean of the middle two for an even count)
  double min = 0, max = 0;
  // Interquartile range over the median, in percent: the table's "±" figure. Robust to one
  // outlier at either end of seven samples (a preemption), which max - min is not.
  double spread_pct = 0;
  int count = 0;
};

// Empty samples give a zero Stats with count 0.
Stats summarize(std::span<const double> samples);

double median_of(std::vector<double> values);
// exp(mean(log x)); 0 for an empty span. Values must be > 0.
double geomean(std::span<const double> values);
// Nearest-rank percentile (p in [0, 100]): the smallest value with at least p% of the values
// at or below it. 0 for an empty span.
double percentile(std::vector<double> values, double p);

}  // namespace gemmroute::measure
