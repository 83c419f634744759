// Edge refinement against a fake timing source: a measurer whose winner changes at a known
// size, so the bisection's result is known exactly.
#include <gtest/gtest.h>

#include <cmath>

#include "measure/refine.hpp"

namespace gemmroute::measure {
namespace {

const std::vector<std::string> kOrder = {"openblas", "cpu.small"};

Key at(std::int64_t m, std::int64_t batch = 64) {  // squares
  return {Scalar::f32, Op::N, Op::N, Layout::packed, m, m, m, batch};
}

// cpu.small is twice as fast up to `edge` (in m), openblas twice as fast above it.
struct FakeTiming {
  std::int64_t edge = 37;
  int calls = 0;
  std::vector<Key> asked;
  std::vector<ResultRow> operator()(const Key& k) {
    ++calls;
    asked.push_back(k);
    const double base = std::pow(static_cast<double>(k.m), 3);
    const bool small_wins = k.m <= edge;
    ResultRow a, b;
    a.key = b.key = k;
    a.spelling = "openblas";
    b.spelling = "cpu.small";
    a.median_us = small_wins ? 2 * base : base;
    b.median_us = small_wins ? base : 2 * base;
    a.repetitions = b.repetitions = 7;
    a.origin = b.origin = Origin::refined;
    return {a, b};
  }
};

Row make_row(const Key& k, std::vector<std::string> order) {
  Row r;
  r.key = k;
  for (auto& s : order) {
    Entry e;
    e.spelling = s;
    e.timed = true;
    e.median_us = 1;
    r.entries.push_back(e);
  }
  return r;
}

Table lattice_table(FakeTiming& timing) {
  Table t;
  t.fingerprint.set("backend", "cpu");
  for (std::int64_t m : {4, 16, 64, 256}) {
    auto rows = timing(at(m));
    auto ranked = rank_point(
        {{rows[0].spelling, rows[0].median_us, 0}, {rows[1].spelling, rows[1].median_us, 0}},
        kOrder, 0.03);
    t.rows.push_back(make_row(at(m), {ranked[0].spelling, ranked[1].spelling}));
  }
  timing.calls = 0;
  timing.asked.clear();
  return t;
}

TEST(Refine, LogMidpoint) {
  EXPECT_EQ(log_midpoint(16, 64), 32);
  EXPECT_EQ(log_midpoint(1, 2), 1);
  EXPECT_EQ(log_midpoint(100, 10000), 1000);
}

TEST(Refine, FindsOnlyNeighboursWithDifferentWinners) {
  FakeTiming timing;
  Table t = lattice_table(timing);
  // Another scalar with one winner throughout: no edge there.
  Key a = at(16), b = at(64);
  a.dtype = b.dtype = Scalar::f64;
  t.rows.push_back(make_row(a, {"openblas"}));
  t.rows.push_back(make_row(b, {"openblas"}));
  // A row off every line through the others (m and n scaled by different factors).
  Key c = at(16);
  c.m = 20;
  c.n = 24;
  t.rows.push_back(make_row(c, {"cpu.direct"}));
  auto edges = find_edges(t);
  ASSERT_EQ(edges.size(), 1u);
  EXPECT_EQ(edges[0].lo.m, 16);
  EXPECT_EQ(edges[0].hi.m, 64);
  EXPECT_EQ(edges[0].axes, 7u);  // m, n and k together: a lattice of squares
}

TEST(Refine, OneAxisLinesAndTheMidpoint) {
  Table t;
  Key a = at(16), b = at(16);
  b.batch = 1024;
  t.rows.push_back(make_row(a, {"openblas"}));
  t.rows.push_back(make_row(b, {"cpu.small"}));
  auto edges = find_edges(t);
  ASSERT_EQ(edges.size(), 1u);
  EXPECT_EQ(edges[0].axes, 8u);
  EXPECT_EQ(log_midpoint(a, b).batch, 256);
  EXPECT_EQ(log_midpoint(a, b).m, 16);
}

TEST(Refine, BisectsToTheResolutionAroundTheTrueEdge) {
  FakeTiming timing;
  Table t = lattice_table(timing);
  RefineOptions o;
  o.ratio = 1.1;
  RefineReport r = refine(t, kOrder, std::ref(timing), o);
  EXPECT_EQ(r.edges, 1);
  EXPECT_EQ(r.measured, timing.calls);
  EXPECT_EQ(r.unresolved, 0);
  ASSERT_FALSE(r.added.empty());
  // Every point asked lies strictly between the bracket ends, on the m axis.
  for (const Key& k : timing.asked) {
    EXPECT_GT(k.m, 16);
    EXPECT_LT(k.m, 64);
    EXPECT_EQ(k.batch, 64);
  }
  // The rows now bracket the true edge (37) within the ratio.
  std::int64_t lo = 0, hi = 1 << 30;
  for (const Row& row : t.rows) {
    if (row.key.batch != 64) continue;
    const bool small = row.entries.front().spelling == "cpu.small";
    EXPECT_EQ(small, row.key.m <= 37) << row.key.m;
    if (small)
      lo = std::max(lo, row.key.m);
    else
      hi = std::min(hi, row.key.m);
  }
  EXPECT_LE(lo, 37);
  EXPECT_GT(hi, 37);
  EXPECT_LE(static_cast<double>(hi), 1.1 * static_cast<double>(lo));
  // Added rows are marked refined, and the table stays sorted.
  int refined = 0;
  for (const Row& row : t.rows) refined += row.origin == Origin::refined;
  EXPECT_EQ(refined, static_cast<int>(r.added.size()));
  for (std::size_t i = 1; i < t.rows.size(); ++i)
    EXPECT_TRUE(key_less(t.rows[i - 1].key, t.rows[i].key));
}

// Refined rows record bit-identity groups from the measurer's digests, like built ones.
TEST(Refine, RefinedRowsCarryBitIdentityGroups) {
  FakeTiming timing;
  Table t = lattice_table(timing);
  auto with_digests = [&timing](const Key& k) {
    auto rows = timing(k);
    for (ResultRow& r : rows) r.digest = 5;  // both candidates wrote the same bits
    return rows;
  };
  RefineOptions o;
  o.ratio = 1.5;
  RefineReport r = refine(t, kOrder, with_digests, o);
  ASSERT_FALSE(r.added.empty());
  int refined = 0;
  for (const Row& row : t.rows) {
    if (row.origin != Origin::refined) continue;
    ++refined;
    for (const Entry& e : row.entries) EXPECT_EQ(e.bits, 1) << to_string(row.key);
  }
  EXPECT_EQ(refined, static_cast<int>(r.added.size()));
}

TEST(Refine, SecondRunFindsNothingNewToMeasure) {
  FakeTiming timing;
  Table t = lattice_table(timing);
  RefineOptions o;
  o.ratio = 1.1;
  refine(t, kOrder, std::ref(timing), o);
  timing.calls = 0;
  RefineReport again = refine(t, kOrder, std::ref(timing), o);
  EXPECT_EQ(again.edges, 1);  // the tightened bracket
  EXPECT_EQ(again.measured, 0);
  EXPECT_EQ(timing.calls, 0);
}

TEST(Refine, ThePointBudgetIsRespected) {
  FakeTiming timing;
  Table t = lattice_table(timing);
  RefineOptions o;
  o.ratio = 1.01;
  o.max_points = 2;
  RefineReport r = refine(t, kOrder, std::ref(timing), o);
  EXPECT_EQ(r.measured, 2);
  EXPECT_EQ(timing.calls, 2);
  EXPECT_GE(r.unresolved, 1);
}

TEST(Refine, StopEndsTheSearch) {
  FakeTiming timing;
  Table t = lattice_table(timing);
  RefineOptions o;
  o.stop = [] { return true; };
  RefineReport r = refine(t, kOrder, std::ref(timing), o);
  EXPECT_TRUE(r.stopped);
  EXPECT_EQ(timing.calls, 0);
}

TEST(Refine, AThirdWinnerInTheMiddleOpensTwoBrackets) {
  Table t;
  t.rows.push_back(make_row(at(16), {"openblas", "cpu.small"}));
  t.rows.push_back(make_row(at(256), {"cpu.small", "openblas"}));
  int calls = 0;
  Measurer m = [&](const Key& k) {
    ++calls;
    ResultRow r;
    r.key = k;
    r.spelling = "cpu.direct";  // fastest alone in the middle
    r.median_us = 1;
    r.repetitions = 7;
    return std::vector<ResultRow>{r};
  };
  RefineOptions o;
  o.ratio = 1.5;
  RefineReport r = refine(t, {}, m, o);
  // 64 first, then both sides are bisected.
  bool left = false, right = false;
  for (const Key& k : r.added) {
    left = left || k.m < 64;
    right = right || k.m > 64;
  }
  EXPECT_TRUE(left);
  EXPECT_TRUE(right);
  EXPECT_EQ(calls, r.measured);
}

Row timed_row(const Key& k, std::vector<std::pair<std::string, double>> times) {
  Row r;
  r.key = k;
  for (auto& [spelling, us] : times) {
    Entry e;
    e.spelling = spelling;
    e.timed = true;
    e.median_us = us;
    r.entries.push_back(e);
  }
  return r;
}

TEST(Refine, TheBracketWithTheHigherStakesIsBisectedFirst) {
  // f32: the winners differ by 2% at both ends. f64 (after f32 in table order): losing at
  // either end costs 2x.
  Key f64_lo = at(16), f64_hi = at(256);
  f64_lo.dtype = f64_hi.dtype = Scalar::f64;
  Table t;
  t.rows.push_back(timed_row(at(16), {{"openblas", 100}, {"cpu.small", 102}}));
  t.rows.push_back(timed_row(at(256), {{"cpu.small", 100}, {"openblas", 102}}));
  t.rows.push_back(timed_row(f64_lo, {{"openblas", 100}, {"cpu.small", 200}}));
  t.rows.push_back(timed_row(f64_hi, {{"cpu.small", 100}, {"openblas", 200}}));
  FakeTiming timing;
  RefineOptions o;
  o.max_points = 1;
  RefineReport r = refine(t, kOrder, std::ref(timing), o);
  EXPECT_EQ(r.edges, 2);
  ASSERT_EQ(timing.asked.size(), 1u);
  EXPECT_EQ(timing.asked[0].dtype, Scalar::f64);
  EXPECT_EQ(timing.asked[0].m, 64);
}

TEST(Refine, APointWhereNothingRunsLeavesTheBracketUnresolved) {
  Table t;
  t.rows.push_back(make_row(at(16), {"openblas"}));
  t.rows.push_back(make_row(at(64), {"cpu.small"}));
  Measurer m = [](const Key& k) {
    ResultRow r;
    r.key = k;
    r.spelling = "openblas";
    r.status = Status::failed;
    return std::vector<ResultRow>{r};
  };
  RefineReport r = refine(t, kOrder, m, {});
  EXPECT_EQ(r.measured, 1);
  EXPECT_EQ(r.unresolved, 1);
  EXPECT_TRUE(r.added.empty());
}

}  // namespace
}  // namespace gemmroute::measure
