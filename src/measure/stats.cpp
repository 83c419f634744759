#include "measure/stats.hpp"

#include <algorithm>
#include <cmath>

namespace gemmroute::measure {

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

Stats summarize(std::span<const double> samples) {
  Stats s;
  if (samples.empty()) return s;
  s.count = static_cast<int>(samples.size());
  s.median = median_of(std::vector<double>(samples.begin(), samples.end()));
  auto [lo, hi] = std::minmax_element(samples.begin(), samples.end());
  s.min = *lo;
  s.max = *hi;
  // Quartiles by linear interpolation between order statistics (h = (n - 1) p).
  std::vector<double> v(samples.begin(), samples.end());
  std::sort(v.begin(), v.end());
  auto quantile = [&](double p) {
    const double h = p * static_cast<double>(v.size() - 1);
    const auto i = static_cast<std::size_t>(h);
    const double f = h - static_cast<double>(i);
    return i + 1 < v.size() ? v[i] + f * (v[i + 1] - v[i]) : v[i];
  };
  s.spread_pct = s.median > 0 ? 100.0 * (quantile(0.75) - quantile(0.25)) / s.median : 0.0;
  return s;
}

double geomean(std::span<const double> values) {
  if (values.empty()) return 0;
  double sum = 0;
  for (double v : values) sum += std::log(v);
  return std::exp(sum / static_cast<double>(values.size()));
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double rank = std::ceil(p / 100.0 * static_cast<double>(v.size()));
  const std::size_t i = rank < 1 ? 0 : static_cast<std::size_t>(rank) - 1;
  return v[std::min(i, v.size() - 1)];
}

}  // namespace gemmroute::measure
