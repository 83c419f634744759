// The look-up between rows. A table is measured at lattice points and most calls fall between
// them. `predict` estimates every candidate's time at the key from the rows around it and walks
// the candidates fastest first; `nearest` walks the entries of the nearest row. Both walk an
// exact row for its key before anything else. The rule, its edges and missing candidates:
// docs/table-format.md (Look-up).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/table.hpp"

namespace gemmroute {

// `model`: each candidate's own time model (core/model.hpp).
enum class Selector : std::uint8_t { nearest, predict, model };
std::string_view to_string(Selector selector) noexcept;
// "nearest", "predict", "model"
std::optional<Selector> parse_selector(std::string_view text) noexcept;
// Chosen by measurement: bench/results/cpu-amd-epyc-2c/README.md (--compare-selection on the
// table of all 8 CPU candidates): predict's regret geomean is 1.070 against nearest's 1.133 on
// offgrid, 1.082 against 1.148 on offgrid-2, 0.994 against 1.028 on cpu-small, and 1.054 against
// 1.047 on cpu-mixed (noise floor 1.038).
inline constexpr Selector kDefaultSelector = Selector::predict;

// The prediction's constants (docs/table-format.md): a corner row at L1 distance d in log2
// space weighs 1 / (d + kCornerOffset); a later candidate displaces an earlier one only when
// predicted faster by more than kPredictMargin (the tie rule's default margin); a candidate
// measured at corners holding less than kTrustedPresence of the weight ranks after the others.
inline constexpr double kCornerOffset = 0.25;
inline constexpr double kPredictMargin = 0.03;
inline constexpr double kTrustedPresence = 0.5;
// At most this many candidates are predicted and walked per key (the fastest predicted); more
// distinct spellings at a key's corners are not ranked, and the walk ends at the last resort.
inline constexpr int kMaxRanked = 24;

// What the walk follows: an exact row's entries, the nearest row's, or candidates in order of
// predicted time (predict and model); none when the table has no row for the key's dtype, forms
// and layout.
enum class Basis : std::uint8_t { none, exact, nearest, predicted };

// Left uninitialised where a Lookup is made (each call makes one): only the first `count` are
// ever written or read.
struct Ranked {
  std::uint32_t slot;  // the candidate: Table::slots
  float predicted_us;
};

struct Lookup {
  Basis basis = Basis::none;
  const Row* row = nullptr;  // exact and nearest: the row walked; predicted: the nearest corner
  double distance = 0;       // the row's L1 distance from the key in log2 space
  int corners = 0;           // predicted: the rows it was predicted from (model: the candidates)
  int count = 0;             // predicted: ranked candidates
  std::array<Ranked, kMaxRanked> ranked;

  std::size_t size() const noexcept;
  // The i-th entry of the walk (i < size()): the row's, or the ranked candidate's.
  const Entry& entry(const Table& table, std::size_t i) const noexcept;
};

// A pure function of (table, key, selector), memoised per thread (a repeated key costs a hash
// probe); no allocation for nearest and predict (model grows per-thread scratch on its first
// look-ups and fits its trends once per indexed table: core/model.hpp).
Lookup look_up(const Table& table, const Key& key, Selector selector) noexcept;
// The same, written into `out` (the call path's Selection holds one).
void look_up(const Table& table, const Key& key, Selector selector, Lookup& out) noexcept;

// What explain shows of a predicted look-up: the corner rows with their weights, and every
// candidate's prediction in walk order.
struct PredictionDetail {
  struct Corner {
    const Row* row = nullptr;
    double distance = 0;
    double weight = 0;
  };
  struct Candidate {
    std::uint32_t slot = 0;
    double predicted_us = 0;
    double presence = 0;  // the share of the corners' weight where it was measured
  };
  std::vector<Corner> corners;
  std::vector<Candidate> candidates;
};
// Computed afresh (not memoised); allocates. Empty when the look-up is not predicted.
PredictionDetail explain_prediction(const Table& table, const Key& key);

}  // namespace gemmroute
