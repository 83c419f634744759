// Prediction between rows: the corner rows of a key, each candidate's time interpolated from
// them, and the tie rule applied to the predictions. Rules: docs/table-format.md (Look-up).
#include "core/predict.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "core/model.hpp"

namespace gemmroute {
namespace {

constexpr int kOrthants = 16;  // one per sign pattern of (m, n, k, batch) around the key
constexpr int kMaxAccumulated = 64;

struct Accumulated {
  std::uint32_t slot = 0;
  std::uint32_t tie_position = 0;
  double sum = 0;     // weighted log2 time relative to its row's fastest
  double weight = 0;  // weight of the corners that measured it
  double log2_us = 0;
  bool trusted = false;
};

auto lex(const Key& k) {
  return std::tie(k.m, k.n, k.k, k.batch);
}

// Everything a look-up computes; `detail` (explain) is filled when given.
void compute(const Table& table, const Key& key, Selector selector, Lookup& out,
             PredictionDetail* detail) {
  out.basis = Basis::none;  // field by field: `ranked` is written only as far as `count`
  out.row = nullptr;
  out.distance = 0;
  out.corners = 0;
  out.count = 0;
  if (selector == Selector::nearest) {
    Nearest n = nearest_row(table, key);
    out.row = n.row;
    out.distance = n.distance;
    out.basis = !n.row ? Basis::none : n.distance == 0 ? Basis::exact : Basis::nearest;
    return;
  }
  if (selector == Selector::model) {
    // Nothing to model: the nearest row, as nearest walks it.
    if (!model_look_up(table, key, out, nullptr)) {
      compute(table, key, Selector::nearest, out, nullptr);
    }
    return;
  }
  const auto& bucket = table.buckets[bucket_index(key)];
  if (bucket.empty()) {  // nothing to predict from: the nearest row within the table's reach
    compute(table, key, Selector::nearest, out, nullptr);
    return;
  }
  const double q[4] = {log2_size(key.m), log2_size(key.n), log2_size(key.k), log2_size(key.batch)};
  struct Best {
    int index = -1;  // into bucket
    double distance = 0;
  };
  std::array<Best, kOrthants> best{};
  auto better = [&](const Best& b, int i, double d) {
    return b.index < 0 || d < b.distance ||
           (d == b.distance &&
            lex(table.rows[bucket[static_cast<std::size_t>(i)].row].key) <
                lex(table.rows[bucket[static_cast<std::size_t>(b.index)].row].key));
  };
  for (std::size_t i = 0; i < bucket.size(); ++i) {
    const Table::Indexed& x = bucket[i];
    double delta[4];
    for (int d = 0; d < 4; ++d) delta[d] = x.log2_sizes[static_cast<std::size_t>(d)] - q[d];
    // The same sum, in the same order, as key_distance.
    const double dist =
        std::abs(delta[0]) + std::abs(delta[1]) + std::abs(delta[2]) + std::abs(delta[3]);
    if (dist == 0) {  // the exact row: walked as it is, whatever it holds
      out.basis = Basis::exact;
      out.row = &table.rows[x.row];
      return;
    }
    if (!x.timed) continue;
    // The orthants holding this row: a size equal to the key's is on both sides of it.
    unsigned below = 0, above = 0;
    for (int d = 0; d < 4; ++d) {
      if (delta[d] < 0) below |= 1u << d;
      if (delta[d] > 0) above |= 1u << d;
    }
    for (unsigned o = 0; o < kOrthants; ++o) {
      if ((o & below) != 0 || (~o & above & 0xFu) != 0) continue;
      if (better(best[o], static_cast<int>(i), dist)) best[o] = {static_cast<int>(i), dist};
    }
  }
  // The corners: each orthant's nearest timed row, each row once, in orthant order.
  std::array<Best, kOrthants> corners{};
  int n_corners = 0;
  for (const Best& b : best) {
    if (b.index < 0) continue;
    bool seen = false;
    for (int c = 0; c < n_corners; ++c)
      seen = seen || corners[static_cast<std::size_t>(c)].index == b.index;
    if (!seen) corners[static_cast<std::size_t>(n_corners++)] = b;
  }
  if (n_corners == 0) {  // no timed row: the nearest row's entries, as they are
    compute(table, key, Selector::nearest, out, nullptr);
    return;
  }
  std::array<Accumulated, kMaxAccumulated> acc{};
  int n_acc = 0;
  double total = 0, baseline = 0;
  const Best* nearest = nullptr;
  for (int c = 0; c < n_corners; ++c) {
    const Best& b = corners[static_cast<std::size_t>(c)];
    const Table::Indexed& x = bucket[static_cast<std::size_t>(b.index)];
    const Row& row = table.rows[x.row];
    if (!nearest || better(*nearest, b.index, b.distance)) nearest = &b;
    const double w = 1.0 / (b.distance + kCornerOffset);
    total += w;
    baseline += w * x.log2_best;
    if (detail) detail->corners.push_back({&row, b.distance, w});
    for (const Entry& e : row.entries) {
      int a = 0;
      while (a < n_acc && acc[static_cast<std::size_t>(a)].slot != e.slot) ++a;
      if (a == n_acc) {
        if (n_acc == kMaxAccumulated) continue;
        acc[static_cast<std::size_t>(n_acc++)] = {e.slot, table.slots[e.slot].tie_position};
      }
      Accumulated& t = acc[static_cast<std::size_t>(a)];
      t.sum += w * (e.log2_us - x.log2_best);
      t.weight += w;
    }
  }
  baseline /= total;
  for (int a = 0; a < n_acc; ++a) {
    Accumulated& t = acc[static_cast<std::size_t>(a)];
    t.log2_us = baseline + t.sum / t.weight;
    t.trusted = t.weight >= kTrustedPresence * total;
  }
  // Tie-break order first (insertion sort: a handful of candidates), then the tie rule on the
  // predictions, trusted candidates before the others: the champion of what is left, walking
  // in tie-break order, is displaced only by one predicted faster by more than the margin.
  for (int a = 1; a < n_acc; ++a) {
    for (int b = a; b > 0 && std::tie(acc[static_cast<std::size_t>(b)].tie_position,
                                      acc[static_cast<std::size_t>(b)].slot) <
                                 std::tie(acc[static_cast<std::size_t>(b - 1)].tie_position,
                                          acc[static_cast<std::size_t>(b - 1)].slot);
         --b) {
      std::swap(acc[static_cast<std::size_t>(b)], acc[static_cast<std::size_t>(b - 1)]);
    }
  }
  const double displace = std::log2(1.0 - kPredictMargin);
  std::array<bool, kMaxAccumulated> taken{};
  for (bool trusted : {true, false}) {
    for (;;) {
      int champion = -1;
      for (int a = 0; a < n_acc; ++a) {
        const Accumulated& t = acc[static_cast<std::size_t>(a)];
        if (taken[static_cast<std::size_t>(a)] || t.trusted != trusted) continue;
        if (champion < 0 ||
            t.log2_us < acc[static_cast<std::size_t>(champion)].log2_us + displace) {
          champion = a;
        }
      }
      if (champion < 0) break;
      taken[static_cast<std::size_t>(champion)] = true;
      const Accumulated& t = acc[static_cast<std::size_t>(champion)];
      if (out.count < kMaxRanked) {
        out.ranked[static_cast<std::size_t>(out.count++)] = {
            t.slot, static_cast<float>(std::exp2(t.log2_us))};
      }
      if (detail) detail->candidates.push_back({t.slot, std::exp2(t.log2_us), t.weight / total});
    }
  }
  out.basis = Basis::predicted;
  out.row = &table.rows[bucket[static_cast<std::size_t>(nearest->index)].row];
  out.distance = nearest->distance;
  out.corners = n_corners;
}

// Direct-mapped, per thread: 64 slots of (table index id, key) -> look-up, the row by index
// (copies of a table share the id).
struct Memo {
  std::uint64_t table_id = 0;  // 0: empty
  Selector selector = Selector::predict;
  Key key;
  std::uint32_t row = 0;
  bool has_row = false;
  Lookup lookup;  // its row pointer unset
};

// local-dynamic, as nearest_row's memo (src/core/table.cpp): one module base per function, not
// a __tls_get_addr call per access.
[[gnu::tls_model("local-dynamic")]] thread_local std::array<Memo, 64> memo;

}  // namespace

std::string_view to_string(Selector s) noexcept {
  return s == Selector::nearest ? "nearest" : s == Selector::predict ? "predict" : "model";
}

std::optional<Selector> parse_selector(std::string_view t) noexcept {
  if (t == "nearest") return Selector::nearest;
  if (t == "predict") return Selector::predict;
  if (t == "model") return Selector::model;
  return std::nullopt;
}

std::size_t Lookup::size() const noexcept {
  if (basis == Basis::predicted) return static_cast<std::size_t>(count);
  return row ? row->entries.size() : 0;
}

const Entry& Lookup::entry(const Table& table, std::size_t i) const noexcept {
  if (basis == Basis::predicted) return table.slot_entry(ranked[i].slot);
  return row->entries[i];
}

Lookup look_up(const Table& table, const Key& key, Selector selector) noexcept {
  Lookup out;
  look_up(table, key, selector, out);
  return out;
}

void look_up(const Table& table, const Key& key, Selector selector, Lookup& out) noexcept {
  // nearest_row keeps a memo of its own.
  if (selector == Selector::nearest || table.index_id == 0) {
    compute(table, key, selector, out, nullptr);
    return;
  }
  Memo& m = memo[key_memo_slot(key)];
  if (m.table_id == table.index_id && m.selector == selector && same_key(m.key, key)) [[likely]] {
    // Field by field and only the ranked entries in use: a whole Lookup is 224 bytes, most of
    // them unused ranks, and copying them was a tenth of a routed call's overhead.
    const Lookup& l = m.lookup;
    out.basis = l.basis;
    out.row = m.has_row ? &table.rows[m.row] : nullptr;
    out.distance = l.distance;
    out.corners = l.corners;
    out.count = l.count;
    std::copy_n(l.ranked.begin(), l.count, out.ranked.begin());
    return;
  }
  compute(table, key, selector, out, nullptr);
  m.table_id = table.index_id;
  m.selector = selector;
  m.key = key;
  m.has_row = out.row != nullptr;
  m.row = out.row ? static_cast<std::uint32_t>(out.row - table.rows.data()) : 0;
  m.lookup = out;
  m.lookup.row = nullptr;
}

PredictionDetail explain_prediction(const Table& table, const Key& key) {
  PredictionDetail detail;
  Lookup out;
  compute(table, key, Selector::predict, out, &detail);
  if (out.basis != Basis::predicted) return {};
  return detail;
}

}  // namespace gemmroute
