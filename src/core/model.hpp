// The `model` selection: each candidate's time at a key from a model of that candidate, not
// from one row. Per (dtype, candidate) a trend is fitted over every row that timed it,
//
//   t = launch + bytes / rate + flops / rate' + k * step   (four coefficients, none negative,
//                                                          least relative squared error)
//
// and the trend is corrected by the candidate's own rows nearest the key: the prediction is the
// trend at the key times the weighted geometric mean of (time / trend) over those rows, each
// weighing 1 / (distance + kModelOffset)^2. So a candidate keeps what its nearest rows measured
// (its form, its size regime), and the trend carries that across the distance in size, which
// one row read as it is cannot. A candidate other than the vendor's default ranks ahead of the
// vendor only where predicted faster by exp(kModelGrowth * d), d the distance of its nearest
// row: the farther its evidence, the more it must win by. Evidence and constants:
// docs/table-format.md (Look-up) and bench/results/h200/README.md ("A time model per
// candidate").
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <vector>

#include "core/key.hpp"

namespace gemmroute {

struct Table;
struct Lookup;

inline constexpr int kModelNeighbours = 8;    // rows per candidate that correct its trend
inline constexpr double kModelOffset = 0.5;   // weight 1 / (distance + offset)^2
inline constexpr double kModelGrowth = 0.05;  // the vendor guard's growth per log2 step

// One candidate's trend for one dtype: coefficients of (1, MB moved, GFLOP, k / 100) in
// microseconds, all >= 0.
struct Trend {
  std::array<double, 4> coef{};
  int rows = 0;  // rows it was fitted to (0: none; predicts nothing)
  double at(const Key& key) const noexcept;
};

// Fitted once per indexed table, on the first look-up that needs it (copies of a table share
// it, as they share the index id).
struct ModelState {
  std::once_flag once;
  std::vector<Trend> trends;  // [dtype_index * slots + slot]
  // log(time / its trend at the row) of every entry, row after row (row r's first at
  // first_residual[r]); NaN where the entry is untimed or its candidate has no trend. What a
  // look-up's neighbours average, so a look-up computes none of it.
  std::vector<std::uint32_t> first_residual;
  std::vector<double> residual;
  // The vendor default's slot by dtype_index; -1 where the vendor has no entry.
  std::array<std::int64_t, kDTypeCount> vendor_slot{};
};

// What explain shows of a modelled look-up: each ranked candidate's figures, in walk order.
struct ModelDetail {
  struct Candidate {
    std::uint32_t slot = 0;
    double predicted_us = 0;
    double trend_us = 0;    // the trend alone at the key
    double correction = 0;  // the neighbours' geometric mean of time / trend
    double nearest = 0;     // distance of its nearest row
    int rows = 0;           // rows that corrected it
    bool guarded = false;   // ranked after the vendor by the guard
  };
  std::vector<Candidate> candidates;
  std::int64_t vendor_slot = -1;
};
// Fills `out` for the model selection (basis exact or predicted) and returns true; `detail`, when
// given, gets each ranked candidate's figures appended. False, `out` untouched, where there is
// nothing to model (an unindexed table, no timed row of the dtype within reach): the caller
// walks the nearest row.
bool model_look_up(const Table& table, const Key& key, Lookup& out, ModelDetail* detail);

}  // namespace gemmroute
