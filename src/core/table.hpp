// The table: one text file per device, parsed, validated, written and looked up.
// Format: docs/table-format.md.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/fingerprint.hpp"
#include "core/problem.hpp"

namespace gemmroute {

class Backend;
class Candidate;
struct ModelState;

// The newest format this build writes and reads; it also reads version 1 (version 2 adds the
// bit-identity groups of entries, docs/table-format.md).
inline constexpr int kTableFormatVersion = 2;

// The most a row may hold (docs/table-format.md): sizes, a median time per call and a spread.
// Results files, which tables are built from, are held to the same limits.
inline constexpr std::int64_t kMaxTableSize = kMaxKeySize;
inline constexpr double kMaxTableTimeUs = 1e12;
inline constexpr double kMaxTableSpreadPct = 1e6;

// How a row was made: measured at a lattice point of a spec, refined (edge bisection),
// recorded (measured at a key a program called: `tune --shapes`), or transcribed by hand.
enum class Origin : std::uint8_t { measured, refined, recorded, transcribed };
std::string_view to_string(Origin origin) noexcept;
std::optional<Origin> parse_origin(std::string_view text) noexcept;

struct Entry {
  std::string spelling;
  bool timed = false;
  double median_us = 0;   // microseconds per call (whole batch)
  double spread_pct = 0;  // interquartile range / median of the repetitions, in percent
  int column = 0;         // 1-based, for messages
  // Bit-identity group within the row: entries with the same group gave bit-identical C in
  // the tuner's check (groups numbered 1, 2, ... in order of first appearance); 0: not
  // recorded.
  int bits = 0;
  // Filled by validation against a backend:
  const Candidate* candidate = nullptr;
  std::string unrunnable;  // non-empty: the fingerprint mismatch that disables this entry
  // Filled by Table::index(), for prediction (core/predict.hpp):
  std::uint32_t slot = 0;  // the table's index of this spelling (Table::slots)
  double log2_us = 0;      // log2 of median_us, when timed
};

struct Row {
  Key key;
  Origin origin = Origin::measured;
  std::vector<Entry> entries;
  int line = 0;
};

struct Diagnostic {
  int line = 0;
  int column = 0;
  std::string message;
};

// How far a row's measurements reach beyond its own key, per backend (Backend::reach; rules and
// evidence: docs/table-format.md, Look-up). A row of the key's scalar in another form or layout
// counts `form_step` farther for each of ta, tb and layout that differs (infinity: never a
// candidate). A nearest row at distance d speaks for an entry other than the vendor only when
// it measured that entry faster than the vendor by more than (1 + margin) * exp(vendor_growth *
// d) (0: whatever the distance). Where the row's items are the key's (m, n, k, forms and layout
// equal: only the batch differs) and both batches have at least `same_item_min_batch` items,
// the log2 distance in batch counts `same_item_batch` of itself in that d. Where the key and the
// row both move at most `launch_bytes` of operands (A, B and C once, in the input scalar) with
// k <= `launch_depth`, both calls are bound by their launch, not their work: only the distance
// in k counts in d (0: never). Such a key takes the nearest launch-bound row, with
// m, n and the batch counting `launch_size_weight` of their distance in finding it (the row's
// distance is still the whole one).
struct Reach {
  double form_step = std::numeric_limits<double>::infinity();
  double vendor_growth = 0;
  double same_item_batch = 1;
  std::int64_t same_item_min_batch = 1;
  double launch_bytes = 0;
  std::int64_t launch_depth = 0;
  double launch_size_weight = 1;
  bool operator==(const Reach&) const = default;
};

struct Table {
  std::string path;
  Fingerprint fingerprint;
  // Header fields other than the fingerprint, in file order: tuner, spec, date, method, clocks.
  std::vector<std::pair<std::string, std::string>> header;
  std::vector<Row> rows;
  std::vector<std::string> notes;  // load-time reports (fingerprint mismatches), for the log
  // Candidates the backend made for this table's spellings (parameterised families); entries
  // point into them, so a table keeps them alive.
  std::vector<std::shared_ptr<const Candidate>> owned;

  // The backend's candidates in tie-break order, by spelling (set by validate_table): the tie
  // rule applied to predicted times walks them in this order.
  std::vector<std::string> tie_order;
  Reach reach;  // the backend's (set by validate_table)
  // The backend's vendor default for each dtype of the rows, by dtype_index (set by
  // validate_table; empty for dtypes without rows): the model selection's guard compares with it.
  std::array<std::string, kDTypeCount> vendor;

  // Rows by (dtype, ta, tb, layout) with log2 of their sizes, filled by index(): the look-up
  // then costs four log2 per call and a few adds per row.
  struct Indexed {
    std::uint32_t row;
    std::array<double, 4> log2_sizes;  // m, n, k, batch
    double log2_best = 0;              // log2 of the row's fastest time, when timed
    bool timed = false;                // every entry has a time: the row can be predicted from
    bool launch_bound = false;         // under the table's reach (launch_bound below)
  };
  std::array<std::vector<Indexed>, kDTypeCount * 3 * 3 * 2> buckets;
  // The distinct spellings of the rows, in order of first appearance: an entry's `slot` indexes
  // these. Each names its first entry (candidate, unrunnable: the same for every entry of a
  // spelling) by position, so copies of a table stay valid, and its place in tie_order.
  struct Slot {
    std::uint32_t row = 0;
    std::uint32_t entry = 0;
    std::uint32_t tie_position = 0;
  };
  std::vector<Slot> slots;
  const Entry& slot_entry(std::size_t slot) const {
    return rows[slots[slot].row].entries[slots[slot].entry];
  }
  // Unique per index() call: look-ups memoise per thread under this id (see nearest_row).
  std::uint64_t index_id = 0;
  // The model selection's trends (core/model.hpp), fitted on first use; made by index().
  std::shared_ptr<ModelState> model;
  // Fills the buckets, slots and each entry's slot and log2 time; call again after any change
  // to rows (the memos key on index_id).
  void index();

  const std::string* header_field(std::string_view key) const;
};

// Syntax, duplicate keys and a table without rows (an error: it would send every call to the
// last resort). Diagnostics are appended in line order; the table holds what parsed.
Table parse_table(std::string_view text, std::string path, std::vector<Diagnostic>& diagnostics);
// Spellings against the backend, fingerprint backend; marks entries that depend on mismatched
// fingerprint fields as not runnable and records a note.
void validate_table(Table& table, const Backend& backend, std::vector<Diagnostic>& diagnostics);
// Reads (a regular file of at most input_limit_bytes(), core/files.hpp), parses, validates and
// indexes; throws Error(bad_table) listing every "path:line:col: message" when anything is
// wrong.
Table load_table(const std::string& path, const Backend& backend);
std::string format_diagnostic(const std::string& path, const Diagnostic& d);

std::string write_table(const Table& table);
std::string format_entry(const Entry& entry);  // "cpu.small@12.1us±0.8%"

// The nearest row: L1 distance over log2 of m, n, k, batch (each clamped to >= 1), plus
// table.reach.form_step for each of ta, tb and layout that differs from the key's; ties to a row
// of the key's own forms and layout, then to the row whose (m, n, k, batch) is lexicographically
// smallest. A launch-bound key (launch_bound below) takes the nearest launch-bound row, where
// there is one within reach. nullptr when no row is within reach (the dtype always matches). A
// pure function of (table, key), memoised in a small per-thread cache (no allocation, no lock),
// so a repeated shape costs a hash probe, not a scan.
struct Nearest {
  const Row* row = nullptr;
  double distance = 0;
};
Nearest nearest_row(const Table& table, const Key& key) noexcept;
double key_distance(const Key& a, const Key& b) noexcept;

// A key whose call is bound by its launch, not its work, under a reach (Reach::launch_bytes).
bool launch_bound(const Key& key, const Reach& reach) noexcept;

// Which of Table::buckets holds a key's rows; log2 of a size clamped to >= 1 (k == 0 looks up
// as 1).
std::size_t bucket_index(const Key& key) noexcept;
double log2_size(std::int64_t size) noexcept;

// Calls fn(bucket) for each bucket of the key's dtype whose ta, tb and layout differ from the
// key's in exactly `differing` of the three (0: the key's own bucket), in (ta, tb, layout) order.
template <class Fn>
void for_each_bucket_differing(const Key& key, int differing, Fn&& fn) {
  for (int ta = 0; ta < 3; ++ta) {
    for (int tb = 0; tb < 3; ++tb) {
      for (int layout = 0; layout < 2; ++layout) {
        Key other = key;
        other.ta = static_cast<Op>(ta);
        other.tb = static_cast<Op>(tb);
        other.layout = static_cast<Layout>(layout);
        if ((other.ta != key.ta) + (other.tb != key.tb) + (other.layout != key.layout) ==
            differing) {
          fn(bucket_index(other));
        }
      }
    }
  }
}

}  // namespace gemmroute
