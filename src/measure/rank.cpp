#include "measure/rank.hpp"

#include <algorithm>
#include <ctime>
#include <map>
#include <tuple>

namespace gemmroute::measure {

bool displaces(const Timed& late, const Timed& early, double margin) {
  const double threshold = std::max(margin, late.spread_pct / 100.0);
  (void)early.spread_pct;  // deliberately unused: see rank.hpp
  return late.median_us < early.median_us * (1.0 - threshold);
}

std::vector<Timed> rank_point(std::vector<Timed> timed, std::span<const std::string> tie_order,
                              double margin, std::span<const Timed> confirming) {
  auto again = [&](const std::string& spelling) -> const Timed* {
    for (const Timed& t : confirming) {
      if (t.spelling == spelling) return &t;
    }
    return nullptr;
  };
  auto wins = [&](const Timed& late, const Timed& early) {
    if (!displaces(late, early, margin)) return false;
    if (confirming.empty()) return true;
    const Timed* l = again(late.spelling);
    const Timed* e = again(early.spelling);
    if (!l) return e == nullptr;  // unconfirmed: it displaces only the unconfirmed
    return e == nullptr || displaces(*l, *e, margin);
  };
  auto position = [&](const std::string& s) {
    auto it = std::find(tie_order.begin(), tie_order.end(), s);
    return static_cast<std::size_t>(it - tie_order.begin());
  };
  std::stable_sort(timed.begin(), timed.end(), [&](const Timed& a, const Timed& b) {
    return position(a.spelling) < position(b.spelling);
  });
  std::vector<Timed> ranked;
  while (!timed.empty()) {
    std::size_t champion = 0;
    for (std::size_t i = 1; i < timed.size(); ++i) {
      if (wins(timed[i], timed[champion])) champion = i;
    }
    ranked.push_back(timed[champion]);
    timed.erase(timed.begin() + static_cast<std::ptrdiff_t>(champion));
  }
  return ranked;
}

std::vector<int> bits_groups(std::span<const std::optional<std::uint64_t>> digests) {
  std::vector<std::uint64_t> seen;  // the digest of group g + 1 at seen[g]
  std::vector<int> groups;
  for (const auto& d : digests) {
    if (!d) {
      groups.push_back(0);
      continue;
    }
    auto it = std::find(seen.begin(), seen.end(), *d);
    if (it == seen.end()) it = seen.insert(seen.end(), *d);
    groups.push_back(static_cast<int>(it - seen.begin()) + 1);
  }
  return groups;
}

bool key_less(const Key& a, const Key& b) {
  auto t = [](const Key& k) {
    return std::make_tuple(k.dtype, k.ta, k.tb, k.layout, k.m, k.n, k.k, k.batch);
  };
  return t(a) < t(b);
}

std::string today_utc() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

Table build_table(const Results& results, std::span<const std::string> tie_order,
                  const BuildOptions& options, BuildSummary* summary) {
  struct Point {
    Key key;
    bool refined = false, recorded = false;
    std::map<std::string, const ResultRow*> last;  // spelling -> last measurement
  };
  auto less = [](const Key& a, const Key& b) { return key_less(a, b); };
  std::map<Key, Point, decltype(less)> points(less);
  for (const ResultRow& r : results.rows) {
    Point& p = points[r.key];
    p.key = r.key;
    p.refined = p.refined || r.origin == Origin::refined;
    p.recorded = p.recorded || r.origin == Origin::recorded;
    p.last[r.spelling] = &r;
  }
  Table t;
  if (options.generic) {
    const std::string* be = results.fingerprint.get("backend");
    t.fingerprint.set("backend", be ? *be : "cpu");
  } else {
    t.fingerprint = results.fingerprint;
  }
  auto meta = [&](const char* name) {
    const std::string* v = results.meta_field(name);
    return v ? *v : std::string("unknown");
  };
  t.header.emplace_back("tuner", meta("tuner"));
  t.header.emplace_back("spec", meta("spec"));
  t.header.emplace_back("date", options.date.empty() ? today_utc() : options.date);
  char margin[32];
  std::snprintf(margin, sizeof margin, "%.3g%%", options.margin * 100);
  t.header.emplace_back(
      "method",
      meta("method") + "; ranked by `gemmroute table build` from " +
          (options.source.empty() ? "results" : options.source) + " with margin " + margin +
          " (tie rule of docs/measuring.md)" +
          (options.confirm ? ", displacements confirmed by " + (options.confirm_source.empty()
                                                                    ? std::string("a second run")
                                                                    : options.confirm_source)
                           : std::string()));
  if (const std::string* c = results.meta_field("clocks"); c && !c->empty()) {
    t.header.emplace_back("clocks", *c);
  }
  // The confirming run's last ok measurement per point and spelling.
  std::map<Key, std::map<std::string, Timed>, decltype(less)> confirm(less);
  if (options.confirm) {
    for (const ResultRow& r : options.confirm->rows) {
      auto& at = confirm[r.key];
      if (r.status == Status::ok) {
        at[r.spelling] = {r.spelling, r.median_us, r.spread_pct};
      } else {
        at.erase(r.spelling);
      }
    }
  }
  BuildSummary s;
  std::map<std::string, int> wins;
  for (auto& [key, p] : points) {
    std::vector<Timed> ok;
    for (const auto& [spelling, r] : p.last) {
      if (r->status == Status::ok) ok.push_back({spelling, r->median_us, r->spread_pct});
      if (r->status == Status::failed || r->status == Status::error) ++s.failures;
    }
    if (ok.empty()) {
      ++s.points_without_candidate;
      continue;
    }
    Row row;
    row.key = key;
    row.origin = p.recorded ? Origin::recorded : p.refined ? Origin::refined : Origin::measured;
    std::vector<Timed> again;
    if (auto c = confirm.find(key); c != confirm.end()) {
      for (const auto& [spelling, timed] : c->second) again.push_back(timed);
    }
    std::vector<Timed> ranked;
    if (!again.empty()) {
      ++s.confirmed;
      ranked = rank_point(ok, tie_order, options.margin, again);
      const std::string first = rank_point(ok, tie_order, options.margin).front().spelling;
      if (first != ranked.front().spelling) {
        ++s.changed;
        s.changes.push_back({key, first, ranked.front().spelling});
      }
    } else {
      ranked = rank_point(std::move(ok), tie_order, options.margin);
    }
    std::vector<std::optional<std::uint64_t>> digests;
    for (const Timed& e : ranked) digests.push_back(p.last.at(e.spelling)->digest);
    const std::vector<int> groups = bits_groups(digests);
    for (std::size_t i = 0; i < ranked.size(); ++i) {
      Entry entry;
      entry.spelling = ranked[i].spelling;
      entry.timed = true;
      entry.median_us = ranked[i].median_us;
      entry.spread_pct = ranked[i].spread_pct;
      entry.bits = groups[i];
      row.entries.push_back(std::move(entry));
    }
    ++wins[row.entries.front().spelling];
    ++(p.recorded ? s.recorded : p.refined ? s.refined : s.measured);
    t.rows.push_back(std::move(row));
  }
  s.rows = static_cast<int>(t.rows.size());
  for (const std::string& sp : tie_order) {
    if (auto it = wins.find(sp); it != wins.end()) s.winners.emplace_back(sp, it->second);
  }
  for (const auto& [sp, n] : wins) {
    if (std::find(tie_order.begin(), tie_order.end(), sp) == tie_order.end()) {
      s.winners.emplace_back(sp, n);
    }
  }
  if (summary) *summary = s;
  return t;
}

}  // namespace gemmroute::measure

namespace gemmroute::measure {

std::vector<std::string> to_confirm(const Row& row, std::string_view vendor, std::size_t most,
                                    const std::function<bool(std::string_view)>& done) {
  std::vector<std::string> out;
  if (row.entries.empty() || row.entries.front().spelling == vendor || most == 0) return out;
  std::size_t ahead = 0;
  for (const Entry& e : row.entries) {
    const bool is_vendor = e.spelling == vendor;
    if (!is_vendor && ahead == most - 1) continue;  // enough of them: on to the vendor
    if (!is_vendor) ++ahead;
    if (!done(e.spelling)) out.push_back(e.spelling);
    if (is_vendor) break;
  }
  return out;
}

Table merge_rows(const Table& base, const Table& built, int* replaced) {
  Table t = base;
  auto less = [](const Key& a, const Key& b) { return key_less(a, b); };
  std::map<Key, std::size_t, decltype(less)> at(less);
  for (std::size_t i = 0; i < t.rows.size(); ++i) at.emplace(t.rows[i].key, i);
  int n = 0;
  for (const Row& row : built.rows) {
    auto it = at.find(row.key);
    if (it != at.end()) {
      t.rows[it->second] = row;
      ++n;
    } else {
      at.emplace(row.key, t.rows.size());
      t.rows.push_back(row);
    }
  }
  std::stable_sort(t.rows.begin(), t.rows.end(),
                   [](const Row& a, const Row& b) { return key_less(a.key, b.key); });
  for (Row& r : t.rows) {
    r.line = 0;
    for (Entry& e : r.entries) {
      e.candidate = nullptr;
      e.unrunnable.clear();
    }
  }
  t.notes.clear();
  t.owned.clear();
  t.index_id = 0;
  if (replaced) *replaced = n;
  return t;
}

}  // namespace gemmroute::measure
