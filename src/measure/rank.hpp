// Ranking one point's measurements with the tie rule (docs/measuring.md), and building a table from a
// results file.
//
// Tie rule: candidates start in the backend's tie-break order. A candidate displaces one earlier
// in that order only when it is faster by more than max(margin, spread), where spread is the
// displacing candidate's own measured spread: t_late < t_early * (1 - threshold). Its own,
// because timing noise only ever adds time: a slow candidate's outliers make it look slower,
// never faster, so they cannot create a false win, while a challenger whose repetitions
// disagree by more than its lead has not shown that lead. (docs/measuring.md has the numbers
// that made us choose this over the larger of both spreads.) The ranking picks a winner,
// removes it and repeats: the winner is found by walking the remaining candidates in tie-break
// order, keeping a champion that each later candidate may displace by that rule.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/table.hpp"
#include "measure/results.hpp"

namespace gemmroute::measure {

struct Timed {
  std::string spelling;
  double median_us = 0;
  double spread_pct = 0;
};

// Whether `late` (later in tie-break order) displaces `early`.
bool displaces(const Timed& late, const Timed& early, double margin);

// Ranks candidates; those absent from tie_order go last, in their given order. With
// `confirming` (the same point measured again, in another run): a displacement stands only
// where that run also measured both candidates and it holds there too; a candidate it did not
// measure can displace none that it did.
std::vector<Timed> rank_point(std::vector<Timed> timed, std::span<const std::string> tie_order,
                              double margin, std::span<const Timed> confirming = {});

struct BuildOptions {
  double margin = 0.03;
  bool generic = false;  // write only fingerprint.backend (the generic table for that backend)
  std::string date;      // the table's date field; empty: today (UTC)
  std::string source;    // the results file's name, for the method field
  // A second run over some of the same points (`tune --confirm`): at those points every
  // displacement must hold in both runs (rank_point's `confirming`).
  const Results* confirm = nullptr;
  std::string confirm_source;  // its file name, for the method field
};

struct BuildSummary {
  int rows = 0, measured = 0, refined = 0, recorded = 0;
  int confirmed = 0;  // rows ranked with a confirming run; changed: their winner changed by it
  int changed = 0;
  struct Change {
    Key key;
    std::string first, confirmed;  // the winner from the first run alone, and with both
  };
  std::vector<Change> changes;  // the changed rows, in key order
  int points_without_candidate = 0;  // every candidate failed, errored or could not run
  int failures = 0;                  // (point, candidate) rows with status failed or error
  std::vector<std::pair<std::string, int>> winners;  // spelling -> rows won, in tie order
};

// One row per key with at least one ok measurement (the last measurement of a pair counts),
// entries ranked by the tie rule, rows sorted by key. Fingerprint and header from the results.
// Entries with equal output digests share a bit-identity group (bits_groups).
Table build_table(const Results& results, std::span<const std::string> tie_order,
                  const BuildOptions& options, BuildSummary* summary = nullptr);

// What `tune --confirm` measures again at a row of the first run whose winner is not the
// vendor's own choice: the candidates ranked ahead of the vendor, fastest first, at most
// `most` - 1 of them, and then the vendor itself, however many were ahead of it (a confirming
// run that leaves the vendor out cannot take a displacement back). `done(spelling)`: already
// measured in the confirming run (resume), left out. Empty where the vendor leads.
std::vector<std::string> to_confirm(const Row& row, std::string_view vendor, std::size_t most,
                                    const std::function<bool(std::string_view)>& done);

// `base` with the rows of `built` merged in: a built row replaces the base's row of its key,
// or is added; rows in key order. What `table build --merge` writes: exact rows for the keys a
// program calls (tune --shapes) in a table that still answers between them. The result is
// neither validated nor indexed; *replaced counts the base rows replaced.
Table merge_rows(const Table& base, const Table& built, int* replaced = nullptr);

// Entry.bits from the output digests of ranked entries (in rank order): equal digests share a
// group, numbered 1, 2, ... in order of first appearance; no digest gives 0 (not recorded).
std::vector<int> bits_groups(std::span<const std::optional<std::uint64_t>> digests);

// The key order of built tables: dtype, ta, tb, layout, m, n, k, batch.
bool key_less(const Key& a, const Key& b);

std::string today_utc();  // "2026-12-01"

}  // namespace gemmroute::measure
