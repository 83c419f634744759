// The tie rule and table building; built tables must survive parse_table and validate_table.
#include <gtest/gtest.h>

#include "core/backend.hpp"
#include "core/predict.hpp"
#include "measure/rank.hpp"

namespace gemmroute::measure {
namespace {

const std::vector<std::string> kOrder = {"openblas", "openblas:par=item", "cpu.small",
                                         "cpu.direct"};

std::vector<std::string> names(const std::vector<Timed>& v) {
  std::vector<std::string> out;
  for (const auto& t : v) out.push_back(t.spelling);
  return out;
}

TEST(TieRule, WithinTheMarginTheEarlierCandidateKeepsItsPlace) {
  auto r = rank_point({{"cpu.small", 98, 0}, {"openblas", 100, 0}}, kOrder, 0.03);
  EXPECT_EQ(names(r), (std::vector<std::string>{"openblas", "cpu.small"}));
}

TEST(TieRule, FasterByMoreThanTheMarginDisplaces) {
  auto r = rank_point({{"openblas", 100, 0}, {"cpu.small", 96, 0}}, kOrder, 0.03);
  EXPECT_EQ(names(r), (std::vector<std::string>{"cpu.small", "openblas"}));
}

TEST(TieRule, TheChallengersSpreadWiderThanTheMarginRaisesTheBar) {
  // 10% faster, but the challenger's own repetitions spread over 12%: not shown.
  auto r = rank_point({{"openblas", 100, 1}, {"cpu.small", 90, 12}}, kOrder, 0.03);
  EXPECT_EQ(r.front().spelling, "openblas");
  // 15% faster beats its 12% spread.
  r = rank_point({{"openblas", 100, 1}, {"cpu.small", 85, 12}}, kOrder, 0.03);
  EXPECT_EQ(r.front().spelling, "cpu.small");
  // The incumbent's outliers only make it look slower: they do not protect it.
  r = rank_point({{"openblas", 100, 60}, {"cpu.small", 90, 1}}, kOrder, 0.03);
  EXPECT_EQ(r.front().spelling, "cpu.small");
}

TEST(TieRule, DisplacesIsStrictAtTheThreshold) {
  EXPECT_FALSE(displaces({"b", 97, 0}, {"a", 100, 0}, 0.03));
  EXPECT_TRUE(displaces({"b", 96.9, 0}, {"a", 100, 0}, 0.03));
  // An earlier candidate never needs to displace: the rule only promotes later ones.
  EXPECT_FALSE(displaces({"b", 100, 0}, {"a", 100, 0}, 0));
}

TEST(TieRule, TheFullRankingIsRepeatedWinnerSelection) {
  auto r = rank_point({{"cpu.direct", 50, 0},
                       {"cpu.small", 60, 0},
                       {"openblas", 100, 0},
                       {"openblas:par=item", 99, 0}},
                      kOrder, 0.03);
  EXPECT_EQ(names(r),
            (std::vector<std::string>{"cpu.direct", "cpu.small", "openblas", "openblas:par=item"}));
}

// With a confirming run, a displacement stands only where both runs show it; a candidate the
// second run did not measure displaces none that it did, and among the unmeasured the first
// run's ranking holds.
TEST(TieRule, AConfirmingRunMustAgreeWithEveryDisplacement) {
  const std::vector<Timed> first = {
      {"openblas", 100, 0}, {"cpu.small", 90, 0}, {"cpu.direct", 80, 0}};
  EXPECT_EQ(names(rank_point(first, kOrder, 0.03)),
            (std::vector<std::string>{"cpu.direct", "cpu.small", "openblas"}));
  // The second run saw cpu.small's lead over openblas, not cpu.direct's (only 1% ahead).
  const std::vector<Timed> again = {
      {"openblas", 100, 0}, {"cpu.small", 90, 0}, {"cpu.direct", 99, 0}};
  EXPECT_EQ(names(rank_point(first, kOrder, 0.03, again)),
            (std::vector<std::string>{"cpu.small", "openblas", "cpu.direct"}));
  // cpu.direct not measured again: it cannot displace the confirmed two.
  const std::vector<Timed> partial = {{"openblas", 100, 0}, {"cpu.small", 95, 0}};
  EXPECT_EQ(names(rank_point(first, kOrder, 0.03, partial)),
            (std::vector<std::string>{"cpu.small", "openblas", "cpu.direct"}));
  // openblas alone measured again: the others cannot displace it.
  const std::vector<Timed> vendor = {{"openblas", 100, 0}};
  EXPECT_EQ(names(rank_point(first, kOrder, 0.03, vendor)),
            (std::vector<std::string>{"openblas", "cpu.direct", "cpu.small"}));
}

TEST(TieRule, UnknownSpellingsGoLastInTheirGivenOrder) {
  auto r = rank_point({{"zeta", 100, 0}, {"alpha", 100, 0}, {"openblas", 100, 0}}, kOrder, 0.03);
  EXPECT_EQ(names(r), (std::vector<std::string>{"openblas", "zeta", "alpha"}));
}

ResultRow row(Key k, std::string s, double us, double spread, Status st = Status::ok,
              Origin o = Origin::measured) {
  ResultRow r;
  r.key = k;
  r.spelling = std::move(s);
  r.median_us = st == Status::ok ? us : 0;
  r.spread_pct = spread;
  r.repetitions = st == Status::ok ? 7 : 0;
  r.status = st;
  r.origin = o;
  return r;
}

Results sample_results() {
  auto backend = make_backend(Device::cpu());
  Results res;
  res.fingerprint = backend->fingerprint();
  res.meta = {{"method", "fake"}, {"spec", "test.spec"}, {"tuner", "gemmroute test"}};
  const Key a{Scalar::f32, Op::N, Op::N, Layout::packed, 16, 16, 16, 64};
  const Key b{Scalar::f32, Op::N, Op::N, Layout::packed, 4, 4, 4, 64};
  const Key c{Scalar::c64, Op::C, Op::N, Layout::strided, 8, 8, 8, 1};
  const Key d{Scalar::f64, Op::T, Op::N, Layout::packed, 9, 9, 9, 9};
  res.rows = {
      row(a, "openblas", 100, 1),
      row(a, "cpu.small", 40, 2),
      row(a, "cpu.direct", 0, 0, Status::failed),
      row(b, "openblas", 10, 1),
      row(b, "cpu.small", 9.9, 1),
      row(b, "cpu.direct", 30, 1),
      row(c, "cpu.small", 5, 1, Status::ok, Origin::refined),
      row(c, "openblas", 4, 1, Status::ok, Origin::refined),
      row(d, "cpu.direct", 0, 0, Status::error),
      row(d, "cpu.small", 0, 0, Status::not_runnable),
      // A later measurement of a pair replaces the earlier one.
      row(b, "cpu.direct", 3, 1),
  };
  return res;
}

// A confirming run measures again what led the vendor and the vendor itself: with more
// leaders than it measures, the fastest of them and still the vendor (without it, the second
// run cannot take a displacement back); what the run already has (resume) is left out.
TEST(Confirm, TheVendorIsMeasuredAgainHoweverManyLedIt) {
  auto row = [](std::vector<std::string> spellings) {
    Row r;
    for (auto& s : spellings) r.entries.push_back(Entry{.spelling = std::move(s)});
    return r;
  };
  const auto none = [](std::string_view) { return false; };
  const Row many = row({"a", "b", "c", "d", "e", "f", "g", "h", "i", "openblas", "j"});
  EXPECT_EQ(to_confirm(many, "openblas", 8, none),
            (std::vector<std::string>{"a", "b", "c", "d", "e", "f", "g", "openblas"}));
  EXPECT_EQ(to_confirm(row({"a", "b", "openblas", "c"}), "openblas", 8, none),
            (std::vector<std::string>{"a", "b", "openblas"}));
  EXPECT_TRUE(to_confirm(row({"openblas", "a"}), "openblas", 8, none).empty());
  // No vendor in the row (it failed there): the leaders alone.
  EXPECT_EQ(to_confirm(row({"a", "b"}), "openblas", 8, none),
            (std::vector<std::string>{"a", "b"}));
  // Resumed: what was measured already is not measured twice, and leaves no room for others.
  const auto done = [](std::string_view s) { return s == "b" || s == "openblas"; };
  EXPECT_EQ(to_confirm(many, "openblas", 3, done), (std::vector<std::string>{"a"}));
}

TEST(Build, RowsAreRankedSortedAndFailuresLeftOut) {
  Results res = sample_results();
  BuildSummary s;
  BuildOptions o;
  o.date = "2026-01-02";
  Table t = build_table(res, kOrder, o, &s);
  ASSERT_EQ(t.rows.size(), 3u);  // d has no ok candidate
  EXPECT_EQ(s.points_without_candidate, 1);
  EXPECT_EQ(s.failures, 2);
  EXPECT_EQ(s.refined, 1);
  EXPECT_EQ(s.measured, 2);
  // Sorted: f32 4^3, f32 16^3, c64.
  EXPECT_EQ(t.rows[0].key.m, 4);
  EXPECT_EQ(t.rows[0].entries.front().spelling, "cpu.direct");  // the later 3 us measurement
  EXPECT_EQ(t.rows[0].entries[1].spelling, "openblas");         // cpu.small within 3%
  EXPECT_EQ(t.rows[1].entries.front().spelling, "cpu.small");
  EXPECT_EQ(t.rows[1].entries.size(), 2u);  // the failed cpu.direct never appears
  EXPECT_EQ(t.rows[2].origin, Origin::refined);
  for (const Row& r : t.rows) {
    for (const Entry& e : r.entries) EXPECT_TRUE(e.timed);
  }
  EXPECT_EQ(*t.header_field("date"), "2026-01-02");
  EXPECT_EQ(*t.header_field("spec"), "test.spec");
}

// A confirming run (table build --confirm): at the points it measured, a displacement stands
// only where it holds again; the summary counts those rows and names each one whose winner the
// second run changed, with both winners.
TEST(Build, AConfirmingRunListsTheRowsWhoseWinnerItChanged) {
  const Results first = sample_results();
  Results again;
  again.fingerprint = first.fingerprint;
  const Key a{Scalar::f32, Op::N, Op::N, Layout::packed, 16, 16, 16, 64};
  const Key b{Scalar::f32, Op::N, Op::N, Layout::packed, 4, 4, 4, 64};
  again.rows = {
      row(a, "openblas", 100, 1), row(a, "cpu.small", 99, 1),  // the lead does not hold
      row(b, "openblas", 10, 1),  row(b, "cpu.direct", 3, 1),  // it holds
  };
  BuildOptions o;
  o.confirm = &again;
  BuildSummary s;
  const Table t = build_table(first, kOrder, o, &s);
  EXPECT_EQ(s.confirmed, 2);
  EXPECT_EQ(s.changed, 1);
  ASSERT_EQ(s.changes.size(), 1u);
  EXPECT_EQ(s.changes[0].key, a);
  EXPECT_EQ(s.changes[0].first, "cpu.small");
  EXPECT_EQ(s.changes[0].confirmed, "openblas");
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[0].entries.front().spelling, "cpu.direct");  // b: confirmed
  EXPECT_EQ(t.rows[1].entries.front().spelling, "openblas");    // a: not confirmed
}

TEST(Build, OutputRoundTripsThroughParseAndValidate) {
  auto backend = make_backend(Device::cpu());
  for (bool generic : {false, true}) {
    BuildOptions o;
    o.generic = generic;
    Table t = build_table(sample_results(), kOrder, o);
    const std::string text = write_table(t);
    std::vector<Diagnostic> diags;
    Table back = parse_table(text, "built.table", diags);
    validate_table(back, *backend, diags);
    for (const auto& d : diags) ADD_FAILURE() << format_diagnostic("built.table", d);
    ASSERT_EQ(back.rows.size(), t.rows.size());
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      EXPECT_EQ(back.rows[i].key, t.rows[i].key);
      EXPECT_EQ(back.rows[i].origin, t.rows[i].origin);
      ASSERT_EQ(back.rows[i].entries.size(), t.rows[i].entries.size());
      for (std::size_t j = 0; j < t.rows[i].entries.size(); ++j) {
        EXPECT_EQ(back.rows[i].entries[j].spelling, t.rows[i].entries[j].spelling);
        EXPECT_NEAR(back.rows[i].entries[j].median_us, t.rows[i].entries[j].median_us, 1e-4);
      }
    }
    EXPECT_EQ(back.fingerprint.fields.size(), generic ? 1u : backend->fingerprint().fields.size());
    EXPECT_TRUE(back.notes.empty() || generic);
  }
}

// Rows recorded at the keys a program calls (tune --shapes) merged into a lattice table: each
// replaces the base's row of its key or is added, in key order; the exact row then answers its
// key before any prediction, and the merged table still predicts between the others.
TEST(Build, MergeReplacesRowsOfTheirKeyAndAddsTheRest) {
  auto backend = make_backend(Device::cpu());
  Table base = build_table(sample_results(), kOrder, BuildOptions{});
  ASSERT_EQ(base.rows.size(), 3u);
  Results rec;
  rec.fingerprint = backend->fingerprint();
  const Key same{Scalar::f32, Op::N, Op::N, Layout::packed, 16, 16, 16, 64};  // base has it
  const Key fresh{Scalar::f32, Op::N, Op::N, Layout::packed, 8, 8, 8, 64};
  rec.rows = {row(same, "cpu.direct", 10, 1, Status::ok, Origin::recorded),
              row(same, "openblas", 100, 1, Status::ok, Origin::recorded),
              row(fresh, "openblas", 1, 1, Status::ok, Origin::recorded),
              row(fresh, "cpu.small", 2, 1, Status::ok, Origin::recorded)};
  BuildSummary s;
  Table built = build_table(rec, kOrder, BuildOptions{}, &s);
  EXPECT_EQ(s.recorded, 2);
  int replaced = -1;
  Table merged = merge_rows(base, built, &replaced);
  EXPECT_EQ(replaced, 1);
  ASSERT_EQ(merged.rows.size(), 4u);
  std::vector<Diagnostic> diags;
  Table back = parse_table(write_table(merged), "merged.table", diags);
  validate_table(back, *backend, diags);
  for (const auto& d : diags) ADD_FAILURE() << format_diagnostic("merged.table", d);
  back.index();
  // Key order: f32 4^3, 8^3, 16^3, then c64.
  EXPECT_EQ(back.rows[0].key.m, 4);
  EXPECT_EQ(back.rows[1].key, fresh);
  EXPECT_EQ(back.rows[1].origin, Origin::recorded);
  EXPECT_EQ(back.rows[2].key, same);
  EXPECT_EQ(back.rows[2].origin, Origin::recorded);
  EXPECT_EQ(back.rows[2].entries.front().spelling, "cpu.direct");  // the base said cpu.small
  EXPECT_EQ(back.rows[3].key.dtype, Scalar::c64);                  // kept as it was
  EXPECT_EQ(back.rows[3].origin, Origin::refined);
  for (Selector sel : {Selector::nearest, Selector::predict}) {
    Lookup l = look_up(back, same, sel);
    EXPECT_EQ(l.basis, Basis::exact);
    EXPECT_EQ(l.entry(back, 0).spelling, "cpu.direct");
  }
  EXPECT_EQ(
      look_up(back, {Scalar::f32, Op::N, Op::N, Layout::packed, 6, 6, 6, 64}, Selector::predict)
          .basis,
      Basis::predicted);
}

TEST(BitsGroups, EqualDigestsShareAGroupNumberedInRankOrder) {
  using D = std::optional<std::uint64_t>;
  const std::vector<D> digests = {D(7), D(), D(3), D(7), D(3), D(9)};
  EXPECT_EQ(bits_groups(digests), (std::vector<int>{1, 0, 2, 1, 2, 3}));
  EXPECT_TRUE(bits_groups(std::vector<D>{}).empty());
}

// Digests in the results become each row's groups; a table without any stays format 1.
TEST(Build, OutputDigestsBecomeBitIdentityGroups) {
  Results res = sample_results();
  EXPECT_TRUE(
      write_table(build_table(res, kOrder, BuildOptions{})).starts_with("gemmroute-table 1\n"));
  for (ResultRow& r : res.rows) {
    if (r.status != Status::ok) continue;
    // openblas alone; the native kernels of a point agree.
    r.digest = r.spelling == "openblas" ? 100 + r.key.m : 200 + r.key.m;
  }
  Table t = build_table(res, kOrder, BuildOptions{});
  ASSERT_EQ(t.rows.size(), 3u);
  // f32 4^3: cpu.direct, openblas, cpu.small.
  EXPECT_EQ(t.rows[0].entries[0].bits, 1);
  EXPECT_EQ(t.rows[0].entries[1].bits, 2);
  EXPECT_EQ(t.rows[0].entries[2].bits, 1);
  const std::string text = write_table(t);
  EXPECT_TRUE(text.starts_with("gemmroute-table 2\n"));
  EXPECT_NE(text.find("%=1 openblas@"), std::string::npos);
  std::vector<Diagnostic> diags;
  Table back = parse_table(text, "built.table", diags);
  for (const auto& d : diags) ADD_FAILURE() << format_diagnostic("built.table", d);
  ASSERT_EQ(back.rows.size(), 3u);
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    for (std::size_t j = 0; j < t.rows[i].entries.size(); ++j) {
      EXPECT_EQ(back.rows[i].entries[j].bits, t.rows[i].entries[j].bits);
    }
  }
}

}  // namespace
}  // namespace gemmroute::measure
