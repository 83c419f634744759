// The `model` selection (core/model.hpp): per-candidate trends, fitted once per indexed table,
// corrected at each key by the candidate's nearest rows. Rules: docs/table-format.md (Look-up).
#include "core/model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "core/predict.hpp"
#include "core/table.hpp"

namespace gemmroute {
namespace {

constexpr int kFeatures = 4;
using Features = std::array<double, kFeatures>;

// (1, MB moved, GFLOP, k / 100): a launch, the bytes, the arithmetic, and the steps along k that
// a small kernel runs one after another. A and B in the input scalar, C in the output one.
Features features(const Key& key) noexcept {
  const double m = double(key.m), n = double(key.n), k = double(key.k), b = double(key.batch);
  const double bytes = b * ((m * k + k * n) * double(size_of(key.dtype.in)) +
                            m * n * double(size_of(key.dtype.out)));
  const double flops = b * 2 * m * n * k * (is_complex(key.dtype) ? 4 : 1);
  return {1.0, bytes * 1e-6, flops * 1e-9, k * 1e-2};
}

// Least relative squared error over the rows with every coefficient >= 0: with a_i = x_i / t_i
// the error is sum (a_i . c - 1)^2, whose normal equations need only G = sum a a^T and h =
// sum a. Each support (a non-empty subset of the features) is solved on its own; the feasible
// one of least error wins, ties to the first in support order. Four features: 15 supports.
struct Fit {
  std::array<std::array<double, kFeatures>, kFeatures> g{};
  Features h{};
  int rows = 0;
  void add(const Features& x, double t) noexcept {
    Features a;
    for (int i = 0; i < kFeatures; ++i) a[i] = x[i] / t;
    for (int i = 0; i < kFeatures; ++i) {
      h[i] += a[i];
      for (int j = 0; j < kFeatures; ++j) g[i][j] += a[i] * a[j];
    }
    ++rows;
  }
  Trend solve() const noexcept;
};

Trend Fit::solve() const noexcept {
  Trend best;
  double best_error = std::numeric_limits<double>::infinity();
  for (unsigned support = 1; support < (1u << kFeatures); ++support) {
    int index[kFeatures], n = 0;
    for (int i = 0; i < kFeatures; ++i) {
      if (support & (1u << i)) index[n++] = i;
    }
    // Gaussian elimination with partial pivoting on the support's block.
    double a[kFeatures][kFeatures + 1];
    for (int r = 0; r < n; ++r) {
      for (int c = 0; c < n; ++c) a[r][c] = g[index[r]][index[c]];
      a[r][n] = h[index[r]];
    }
    bool singular = false;
    for (int c = 0; c < n && !singular; ++c) {
      int pivot = c;
      for (int r = c + 1; r < n; ++r) {
        if (std::abs(a[r][c]) > std::abs(a[pivot][c])) pivot = r;
      }
      if (!(std::abs(a[pivot][c]) > 1e-300)) {
        singular = true;
        break;
      }
      if (pivot != c) {
        for (int k = 0; k <= n; ++k) std::swap(a[c][k], a[pivot][k]);
      }
      for (int r = c + 1; r < n; ++r) {
        const double f = a[r][c] / a[c][c];
        for (int k = c; k <= n; ++k) a[r][k] -= f * a[c][k];
      }
    }
    if (singular) continue;
    Features coef{};
    bool feasible = true;
    for (int r = n - 1; r >= 0; --r) {
      double v = a[r][n];
      for (int k = r + 1; k < n; ++k) v -= a[r][k] * coef[index[k]];
      coef[index[r]] = v / a[r][r];
      feasible = feasible && coef[index[r]] >= 0 && std::isfinite(coef[index[r]]);
    }
    if (!feasible) continue;
    // sum (a . c - 1)^2 = c^T G c - 2 c^T h + rows
    double error = double(rows);
    for (int i = 0; i < kFeatures; ++i) {
      error -= 2 * coef[i] * h[i];
      for (int j = 0; j < kFeatures; ++j) error += coef[i] * g[i][j] * coef[j];
    }
    if (error < best_error) {
      best_error = error;
      best.coef = coef;
      best.rows = rows;
    }
  }
  return best;
}

void fit_all(const Table& table, ModelState& state) {
  const std::size_t slots = table.slots.size();
  std::vector<Fit> fits(kDTypeCount * slots);
  for (const Row& row : table.rows) {
    const Features x = features(row.key);
    const std::size_t d = dtype_index(row.key.dtype);
    for (const Entry& e : row.entries) {
      if (e.timed && e.median_us > 0) fits[d * slots + e.slot].add(x, e.median_us);
    }
  }
  state.trends.resize(fits.size());
  for (std::size_t i = 0; i < fits.size(); ++i) {
    if (fits[i].rows > 0) state.trends[i] = fits[i].solve();
  }
  state.first_residual.reserve(table.rows.size());
  for (const Row& row : table.rows) {
    state.first_residual.push_back(static_cast<std::uint32_t>(state.residual.size()));
    const std::size_t d = dtype_index(row.key.dtype);
    for (const Entry& e : row.entries) {
      const Trend& trend = state.trends[d * slots + e.slot];
      const double at_row = trend.rows > 0 ? trend.at(row.key) : 0;
      state.residual.push_back(at_row > 0 && e.median_us > 0
                                   ? std::log(e.median_us / at_row)
                                   : std::numeric_limits<double>::quiet_NaN());
    }
  }
  state.vendor_slot.fill(-1);
  for (std::size_t d = 0; d < kDTypeCount; ++d) {
    const std::string& vendor = table.vendor[d];
    for (std::size_t s = 0; s < slots && !vendor.empty(); ++s) {
      if (table.slot_entry(s).spelling == vendor) state.vendor_slot[d] = std::int64_t(s);
    }
  }
}

const ModelState& state_of(const Table& table) {
  ModelState& state = *table.model;
  std::call_once(state.once, [&] { fit_all(table, state); });
  return state;
}

// One candidate's nearest rows, nearest first (ties to the earlier row of the file).
struct Neighbours {
  std::uint32_t slot = 0;
  int count = 0;
  std::array<std::tuple<double, std::uint32_t, double>, kModelNeighbours> rows;  // d, row, log
  void offer(double d, std::uint32_t row, double log_ratio) noexcept {
    const auto item = std::make_tuple(d, row, log_ratio);
    if (count == kModelNeighbours && !(item < rows[count - 1])) return;
    int i = count < kModelNeighbours ? count++ : count - 1;
    while (i > 0 && item < rows[i - 1]) {
      rows[i] = rows[i - 1];
      --i;
    }
    rows[i] = item;
  }
};

struct Modelled {
  std::uint32_t slot, tie;
  double predicted, trend, correction, nearest;
  int rows;
  bool guarded;
};

// Scratch per thread, reused (grown once, never shrunk): a look-up's neighbours by slot, each
// slot's place among them, and the ranking.
thread_local std::vector<Neighbours> scratch;
thread_local std::vector<std::int32_t> slot_position;
thread_local std::vector<Modelled> ranked;

}  // namespace

double Trend::at(const Key& key) const noexcept {
  const Features x = features(key);
  double t = 0;
  for (int i = 0; i < kFeatures; ++i) t += coef[i] * x[i];
  return t;
}

bool model_look_up(const Table& table, const Key& key, Lookup& out, ModelDetail* detail) {
  if (!table.model) return false;  // an unindexed table
  const double q[4] = {log2_size(key.m), log2_size(key.n), log2_size(key.k), log2_size(key.batch)};
  for (const Table::Indexed& x : table.buckets[bucket_index(key)]) {
    if (x.log2_sizes[0] == q[0] && x.log2_sizes[1] == q[1] && x.log2_sizes[2] == q[2] &&
        x.log2_sizes[3] == q[3]) {  // the exact row first, whatever it holds
      out.basis = Basis::exact;
      out.row = &table.rows[x.row];
      out.distance = 0;
      out.corners = 0;
      out.count = 0;
      return true;
    }
  }
  const ModelState& state = state_of(table);
  const std::size_t d_index = dtype_index(key.dtype);
  const std::size_t slots = table.slots.size();
  if (slot_position.size() < slots) slot_position.resize(slots, -1);
  scratch.clear();
  const double step = table.reach.form_step;
  const Row* nearest = nullptr;
  double nearest_distance = 0;
  // The key's own forms and layout, then (where the reach lets other forms speak) the others,
  // each differing field `step` farther. Ties go to the earlier row, whatever the bucket order.
  const int most_differing = std::isfinite(step) ? 3 : 0;
  for (int differing = 0; differing <= most_differing; ++differing) {
    const double offset = differing > 0 ? step * differing : 0.0;
    for_each_bucket_differing(key, differing, [&](std::size_t bucket) {
      for (const Table::Indexed& x : table.buckets[bucket]) {
        if (!x.timed) continue;
        const double d = offset + std::abs(x.log2_sizes[0] - q[0]) +
                         std::abs(x.log2_sizes[1] - q[1]) + std::abs(x.log2_sizes[2] - q[2]) +
                         std::abs(x.log2_sizes[3] - q[3]);
        const Row& row = table.rows[x.row];
        if (!nearest || d < nearest_distance ||
            (d == nearest_distance && x.row < std::uint32_t(nearest - table.rows.data()))) {
          nearest = &row;
          nearest_distance = d;
        }
        const double* residual = &state.residual[state.first_residual[x.row]];
        for (std::size_t j = 0; j < row.entries.size(); ++j) {
          if (std::isnan(residual[j])) continue;
          const std::uint32_t slot = row.entries[j].slot;
          std::int32_t& pos = slot_position[slot];
          if (pos < 0) {
            pos = std::int32_t(scratch.size());
            scratch.push_back({});
            scratch.back().slot = slot;
          }
          scratch[std::size_t(pos)].offer(d, x.row, residual[j]);
        }
      }
    });
  }
  ranked.clear();
  for (const Neighbours& nb : scratch) {
    slot_position[nb.slot] = -1;
    double sum = 0, weight = 0;
    for (int i = 0; i < nb.count; ++i) {
      const auto& [d, row, log_ratio] = nb.rows[std::size_t(i)];
      const double w = 1.0 / ((d + kModelOffset) * (d + kModelOffset));
      sum += w * log_ratio;
      weight += w;
    }
    // A trend is a sum of terms >= 0 with a launch term fitted to times > 0; the floor only
    // keeps a degenerate fit (every term 0 at this key) from predicting nothing.
    const double trend = std::max(state.trends[d_index * slots + nb.slot].at(key), 1e-6);
    const double correction = std::exp(sum / weight);
    ranked.push_back({nb.slot, table.slots[nb.slot].tie_position, trend * correction, trend,
                      correction, std::get<0>(nb.rows[0]), nb.count, false});
  }
  if (ranked.empty()) return false;  // no timed row of the dtype within reach
  // The vendor guard, then the predicted time; ties in tie-break order.
  const std::int64_t vendor = state.vendor_slot[d_index];
  const Modelled* v = nullptr;
  for (const Modelled& r : ranked) {
    if (std::int64_t(r.slot) == vendor) v = &r;
  }
  if (v) {
    const double vendor_us = v->predicted;
    for (Modelled& r : ranked) {
      r.guarded = std::int64_t(r.slot) != vendor &&
                  !(r.predicted * std::exp(kModelGrowth * r.nearest) < vendor_us);
    }
  }
  std::sort(ranked.begin(), ranked.end(), [](const Modelled& a, const Modelled& b) {
    return std::tie(a.guarded, a.predicted, a.tie, a.slot) <
           std::tie(b.guarded, b.predicted, b.tie, b.slot);
  });
  out.count = 0;
  for (const Modelled& r : ranked) {
    if (out.count < kMaxRanked) {
      out.ranked[std::size_t(out.count++)] = {r.slot, static_cast<float>(r.predicted)};
    }
    if (detail) {
      detail->candidates.push_back(
          {r.slot, r.predicted, r.trend, r.correction, r.nearest, r.rows, r.guarded});
    }
  }
  if (detail) detail->vendor_slot = vendor;
  out.basis = Basis::predicted;
  out.row = nearest;
  out.distance = nearest_distance;
  out.corners = int(ranked.size());
  return true;
}

}  // namespace gemmroute
