#include "measure/refine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <queue>
#include <tuple>
#include <utility>

namespace gemmroute::measure {
namespace {

std::int64_t size(const Key& k, int axis) {
  switch (axis) {
    case 0:
      return k.m;
    case 1:
      return k.n;
    case 2:
      return k.k;
    default:
      return k.batch;
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

// How much slower `spelling` is than the row's winner: infinite where it did not run, 1 where
// the row carries no times.
double slowdown(const std::vector<Entry>& entries, const std::string& spelling) {
  const Entry& first = entries.front();
  for (const Entry& e : entries) {
    if (e.spelling != spelling) continue;
    if (!e.timed || !first.timed || first.median_us <= 0) return 1.0;
    return e.median_us / first.median_us;
  }
  return std::numeric_limits<double>::infinity();
}

// What a wrong pick inside the bracket can cost: the larger of the two ends' slowdowns when
// the other end's winner runs there.
double stakes(const std::vector<Entry>& lo, const std::vector<Entry>& hi) {
  return std::max(slowdown(lo, hi.front().spelling), slowdown(hi, lo.front().spelling));
}

// A bracket waiting to be bisected; the queue takes the highest stakes first, then the
// earliest queued.
struct Bracket {
  double stakes;
  std::int64_t order;
  Key lo, hi;
  bool operator<(const Bracket& o) const {
    return stakes != o.stakes ? stakes < o.stakes : order > o.order;
  }
};

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
  std::map<std::string, std::vector<Entry>> ranked;  // key -> entries, for rows old and new
  for (const Row& r : table.rows) {
    if (!r.entries.empty()) ranked[to_string(r.key)] = r.entries;
  }
  std::priority_queue<Bracket> work;
  std::int64_t queued = 0;
  auto push = [&](const Key& lo, const Key& hi) {
    work.push({stakes(ranked[to_string(lo)], ranked[to_string(hi)]), queued++, lo, hi});
  };
  for (const Edge& e : edges) push(e.lo, e.hi);
  while (!work.empty()) {
    const Key lo = work.top().lo, hi = work.top().hi;
    work.pop();
    if (ratio(lo, hi) <= options.ratio) continue;
    const Key mk = log_midpoint(lo, hi);
    if (mk == lo || mk == hi) continue;  // no whole number between
    auto it = ranked.find(to_string(mk));
    if (it == ranked.end()) {
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
      std::map<std::string, std::optional<std::uint64_t>> digest;  // spelling -> its digest
      for (const ResultRow& r : measure(mk)) {
        if (r.status != Status::ok) continue;
        ok.push_back({r.spelling, r.median_us, r.spread_pct});
        digest[r.spelling] = r.digest;
      }
      if (ok.empty()) {
        ++report.unresolved;
        continue;
      }
      Row row;
      row.key = mk;
      row.origin = Origin::refined;
      const std::vector<Timed> ranked_here = rank_point(std::move(ok), tie_order, options.margin);
      std::vector<std::optional<std::uint64_t>> digests;
      for (const Timed& t : ranked_here) digests.push_back(digest[t.spelling]);
      const std::vector<int> groups = bits_groups(digests);
      for (std::size_t i = 0; i < ranked_here.size(); ++i) {
        Entry e;
        e.spelling = ranked_here[i].spelling;
        e.timed = true;
        e.median_us = ranked_here[i].median_us;
        e.spread_pct = ranked_here[i].spread_pct;
        e.bits = groups[i];
        row.entries.push_back(std::move(e));
      }
      it = ranked.emplace(to_string(mk), row.entries).first;
      table.rows.push_back(std::move(row));
      report.added.push_back(mk);
    }
    const std::string& w = it->second.front().spelling;
    if (w != ranked[to_string(lo)].front().spelling) push(lo, mk);
    if (w != ranked[to_string(hi)].front().spelling) push(mk, hi);
  }
  std::stable_sort(table.rows.begin(), table.rows.end(),
                   [](const Row& a, const Row& b) { return key_less(a.key, b.key); });
  table.index();
  return report;
}

}  // namespace gemmroute::measure
