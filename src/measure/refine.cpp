#include "measure/refine.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <numeric>
#include <tuple>
#include <utility>

namespace gemmroute::measure {
namespace {

std::int64_t size(const Key& k, int axis) {
  switch (axis) {
    case 0: return k.m;
    case 1: return k.n;
    case 2: return k.k;
    default: return k.batch;
  }
}

bool same_bucket(const Key& a, const Key& b) {
  return a.dtype == b.dtype && a.ta == b.ta && a.tb == b.tb && a.layout == b.layout;
}

std::pair<std::int64_t, std::int64_t> reduced(std::int64_t num, std::int64_t den) {
  const std::int64_t g = std::gcd(num, den);
  return {num / g, den / g};
}

// The axes along which hi is lo scaled up by one common factor (0 when it is not).
unsigned scaled_axes(const Key& lo, const Key& hi) {
  unsigned axes = 0;
  int first = -1;
  for (int a = 0; a < 4; ++a) {
    const std::int64_t l = size(lo, a), h = size(hi, a);
    if (l == h) continue;
    if (h < l) return 0;
    if (first < 0) {
      first = a;
    } else if (reduced(h, l) != reduced(size(hi, first), size(lo, first))) {
      return 0;
    }
    axes |= 1u << a;
  }
  return axes;
}

double ratio(const Key& lo, const Key& hi) {
  double r = 1;
  for (int a = 0; a < 4; ++a) {
    r = std::max(r, static_cast<double>(size(hi, a)) / static_cast<double>(size(lo, a)));
  }
  return r;
}

const std::string* winner(const Row& r) {
  return r.entries.empty() ? nullptr : &r.entries.front().spelling;
}

}  // namespace

std::int64_t log_midpoint(std::int64_t lo, std::int64_t hi) {
  return static_cast<std::int64_t>(
      std::llround(std::sqrt(static_cast<double>(lo) * static_cast<double>(hi))));
}

Key log_midpoint(const Key& lo, const Key& hi) {
  Key m = lo;
  m.m = log_midpoint(lo.m, hi.m);
  m.n = log_midpoint(lo.n, hi.n);
  m.k = log_midpoint(lo.k, hi.k);
  m.batch = log_midpoint(lo.batch, hi.batch);
  return m;
}

std::vector<Edge> find_edges(const Table& table) {
  std::vector<Edge> edges;
  const auto& rows = table.rows;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    // For each direction from row i, the nearest row along it.
    std::map<unsigned, std::size_t> nearest;
    for (std::size_t j = 0; j < rows.size(); ++j) {
      if (i == j || !same_bucket(rows[i].key, rows[j].key)) continue;
      const unsigned axes = scaled_axes(rows[i].key, rows[j].key);
      if (axes == 0) continue;
      auto [it, fresh] = nearest.try_emplace(axes, j);
      if (!fresh && ratio(rows[i].key, rows[j].key) < ratio(rows[i].key, rows[it->second].key)) {
        it->second = j;
      }
    }
    for (const auto& [axes, j] : nearest) {
      const std::string* a = winner(rows[i]);
      const std::string* b = winner(rows[j]);
      if (a && b && *a != *b) edges.push_back({rows[i].key, rows[j].key, axes});
    }
  }
  return edges;
}

RefineReport refine(Table& table, std::span<const std::string> tie_order, const Measurer& measure,
                    const RefineOptions& options) {
  RefineReport report;
  auto edges = find_edges(table);
  report.edges = static_cast<int>(edges.size());
  std::map<std::string, std::string> winners;  // key -> first entry, for rows old and new
  for (const Row& r : table.rows) {
    if (const std::string* w = winner(r)) winners[to_string(r.key)] = *w;
  }
  std::deque<std::pair<Key, Key>> work;
  for (const Edge& e : edges) work.emplace_back(e.lo, e.hi);
  while (!work.empty()) {
    const auto [lo, hi] = work.front();
    work.pop_front();
    if (ratio(lo, hi) <= options.ratio) continue;
    const Key mk = log_midpoint(lo, hi);
    if (mk == lo || mk == hi) continue;  // no whole number between
    std::string w;
    if (auto it = winners.find(to_string(mk)); it != winners.end()) {
      w = it->second;
    } else {
      if (options.stop && options.stop()) {
        report.stopped = true;
        ++report.unresolved;
        continue;
      }
      if (report.measured >= options.max_points) {
        ++report.unresolved;
        continue;
      }
      ++report.measured;
      std::vector<Timed> ok;
      for (const ResultRow& r : measure(mk)) {
        if (r.status == Status::ok) ok.push_back({r.spelling, r.median_us, r.spread_pct});
      }
      if (ok.empty()) {
        ++report.unresolved;
        continue;
      }
      Row row;
      row.key = mk;
      row.origin = Origin::refined;
      for (const Timed& t : rank_point(std::move(ok), tie_order, options.margin)) {
        Entry e;
        e.spelling = t.spelling;
        e.timed = true;
        e.median_us = t.median_us;
        e.spread_pct = t.spread_pct;
        row.entries.push_back(std::move(e));
      }
      w = row.entries.front().spelling;
      winners[to_string(mk)] = w;
      table.rows.push_back(std::move(row));
      report.added.push_back(mk);
    }
    if (w != winners[to_string(lo)]) work.emplace_back(lo, mk);
    if (w != winners[to_string(hi)]) work.emplace_back(mk, hi);
  }
  std::stable_sort(table.rows.begin(), table.rows.end(),
                   [](const Row& a, const Row& b) { return key_less(a.key, b.key); });
  table.index();
  return report;
}

}  // namespace gemmroute::measure
