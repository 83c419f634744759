// The model selection (core/model.hpp): a candidate's trend carries its rows' measurements
// across the distance in size, its nearest rows correct the trend, the vendor guard, exact rows
// first, determinism, and what explain shows.
#include "core/model.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "core/predict.hpp"
#include "core/select.hpp"
#include "core/table.hpp"
#include "lookup_fixture.hpp"

namespace gemmroute {
namespace {

// The CPU backend: its vendor default for f32 is openblas, and its reach keeps rows to their own
// forms and layout (the CUDA backend's form step is tested through the shipped tables).
using ModelTest = test::LookupFixture<Selector::model>;

// Rows on a line of batches: cpu.small costs 1 us a call plus 1 us per 64 items, openblas 10 us
// plus 0.25 us per 64 items (times linear in the bytes, as the trend's terms are). At 64 and 640
// items cpu.small is ahead; the nearest row of a key at 65536 items (640) says cpu.small, but
// both trends say openblas (257 us against 1025 us), and the model follows them.
TEST_F(ModelTest, TheTrendCarriesEachCandidateBeyondItsRows) {
  Table t = load(
      "row f32 N N packed 8 8 8 64 measured cpu.small@2us+-1% openblas@10.25us+-1%\n"
      "row f32 N N packed 8 8 8 128 measured cpu.small@3us+-1% openblas@10.5us+-1%\n"
      "row f32 N N packed 8 8 8 640 measured cpu.small@11us+-1% openblas@12.5us+-1%\n");
  const Key far = key(8, 8, 8, 65536);
  Lookup l = look_up(t, far, Selector::model);
  ASSERT_EQ(l.basis, Basis::predicted);
  EXPECT_EQ(walk(t, far), (W{"openblas", "cpu.small"}));
  EXPECT_NEAR(l.ranked[0].predicted_us, 10 + 0.25 * 1024, 1.0);
  EXPECT_NEAR(l.ranked[1].predicted_us, 1 + 1024, 5.0);
  // Nearest reads the 640-item row as it is.
  EXPECT_EQ(nearest_row(t, far).row->key.batch, 640);
  // Between the rows, cpu.small stays ahead, as measured.
  EXPECT_EQ(walk(t, key(8, 8, 8, 256)).front(), "cpu.small");
}

// The trend is corrected by the candidate's own nearest rows: a candidate measured 2x slower
// than its trend near the key is predicted 2x slower there.
TEST_F(ModelTest, NearestRowsCorrectTheTrend) {
  Table t = load(
      "row f32 N N packed 4 4 4 1 measured cpu.tile@1us+-1% openblas@5us+-1%\n"
      "row f32 N N packed 64 64 64 1 measured cpu.tile@1us+-1% openblas@5us+-1%\n"
      "row f32 N N packed 4 4 4 1024 measured openblas@5us+-1% cpu.tile@8us+-1%\n"
      "row f32 N N packed 64 64 64 1024 measured cpu.tile@1us+-1% openblas@5us+-1%\n");
  ModelDetail d;
  Lookup l;
  model_look_up(t, key(4, 4, 4, 512), l, &d);
  ASSERT_EQ(d.candidates.size(), 2u);
  for (const auto& c : d.candidates) {
    EXPECT_NEAR(c.predicted_us, c.trend_us * c.correction, 1e-9 * c.predicted_us);
    EXPECT_EQ(c.rows, 4);
    EXPECT_GT(c.nearest, 0.9);
    EXPECT_LT(c.nearest, 1.1);  // the 1024-item row, one log2 step away
  }
  // cpu.tile's nearest row measured it slow: its correction is above 1 and openblas leads.
  EXPECT_EQ(walk(t, key(4, 4, 4, 512)), (W{"openblas", "cpu.tile"}));
}

// A candidate other than the vendor ranks ahead of it only where predicted faster by
// exp(kModelGrowth x its nearest row's distance): 20% faster at 1 step passes, not at 8 steps.
TEST_F(ModelTest, TheVendorGuardGrowsWithTheDistance) {
  Table t = load("row f32 N N packed 16 16 16 1 measured cpu.small@8us+-1% openblas@10us+-1%\n");
  auto guarded = [&](const Key& k) {
    ModelDetail d;
    Lookup l;
    model_look_up(t, k, l, &d);
    for (const auto& c : d.candidates) {
      if (c.guarded) return true;
    }
    return false;
  };
  EXPECT_EQ(walk(t, key(16, 16, 16, 2)), (W{"cpu.small", "openblas"}));
  EXPECT_FALSE(guarded(key(16, 16, 16, 2)));
  // 2^5 = 32 items: 5 steps, exp(0.25) = 1.28 > 1.25: not trusted that far.
  EXPECT_EQ(walk(t, key(16, 16, 16, 32)), (W{"openblas", "cpu.small"}));
  EXPECT_TRUE(guarded(key(16, 16, 16, 32)));
}

TEST_F(ModelTest, AnExactRowIsWalkedAsItIs) {
  Table t = load(
      "row f32 N N packed 8 8 8 64 measured cpu.small@2us+-1% openblas@10us+-1%\n"
      "row f32 N N packed 8 8 8 65536 measured cpu.small@900us+-1% openblas@100us+-1%\n");
  Lookup l = look_up(t, key(8, 8, 8, 64), Selector::model);
  EXPECT_EQ(l.basis, Basis::exact);
  EXPECT_EQ(walk(t, key(8, 8, 8, 64)), (W{"cpu.small", "openblas"}));
}

// Other forms do not count on the CPU (its reach's form step is infinite): a key with no row of
// its own forms falls back to the nearest row, which has none either.
TEST_F(ModelTest, NoRowOfTheKeysFormsIsNoPrediction) {
  Table t = load("row f32 N N packed 8 8 8 64 measured cpu.small@2us+-1% openblas@10us+-1%\n");
  Key k = key(8, 8, 8, 64);
  k.ta = Op::T;
  EXPECT_EQ(look_up(t, k, Selector::model).basis, Basis::none);
}

// The same key gives the same ranking every time, from the memo, from a fresh computation,
// from another thread, and from a copy of the table; predict and model are memoised apart.
TEST_F(ModelTest, DeterministicAndMemoisedApartFromPredict) {
  Table t = load(
      "row f32 N N packed 8 8 8 64 measured cpu.small@2us+-1% openblas@10.25us+-1%\n"
      "row f32 N N packed 8 8 8 640 measured cpu.small@11us+-1% openblas@12.5us+-1%\n");
  const Key far = key(8, 8, 8, 65536);
  const W first = walk(t, far);
  EXPECT_EQ(walk(t, far), first);
  Table copy = t;
  EXPECT_EQ(walk(copy, far), first);
  W other;
  std::thread([&] { other = walk(t, far); }).join();
  EXPECT_EQ(other, first);
  // predict extrapolates the nearest corner's ranking; the model does not: they differ here,
  // and each look-up answers for its own selection whatever the other left in the memo.
  Lookup p = look_up(t, far, Selector::predict);
  EXPECT_EQ(t.slot_entry(p.ranked[0].slot).spelling, "cpu.small");
  EXPECT_EQ(walk(t, far).front(), "openblas");
  EXPECT_EQ(t.slot_entry(look_up(t, far, Selector::predict).ranked[0].slot).spelling, "cpu.small");
}

// explain names the selection and each candidate's trend, correction and guard.
TEST_F(ModelTest, ExplainShowsEachCandidatesModel) {
  Table t = load("row f32 N N packed 16 16 16 1 measured cpu.small@8us+-1% openblas@10us+-1%\n");
  const Key k = key(16, 16, 16, 32);
  alignas(64) static float storage[16 * 16 * 32];
  Problem p;
  p.m = p.n = p.k = 16;
  p.batch = 32;
  p.a = p.b = p.c = Operand{storage, nullptr, 16, 16 * 16};
  validate(p);
  Exec exec;
  Overrides ov;
  ov.selector = Selector::model;
  Trace trace;
  const Selection s = select(p, k, &t, *backend_, exec, ov, &trace);
  const std::string text = format_explain(k, &t, s, trace, ov);
  EXPECT_NE(text.find("selection: model"), std::string::npos) << text;
  EXPECT_NE(text.find("modelled: each candidate's trend"), std::string::npos) << text;
  EXPECT_NE(text.find("(the vendor)"), std::string::npos) << text;
  EXPECT_NE(text.find("not faster by the guard's factor"), std::string::npos) << text;
  EXPECT_NE(text.find("[model]"), std::string::npos) << text;
  const std::string line = format_log_line(k, &t, s, trace, ov);
  EXPECT_NE(line.find("modelled 2 candidates"), std::string::npos) << line;
}

TEST(ModelSelector, Spelling) {
  EXPECT_EQ(parse_selector("model"), Selector::model);
  EXPECT_EQ(to_string(Selector::model), "model");
  EXPECT_FALSE(parse_selector("Model"));
}

}  // namespace
}  // namespace gemmroute
