// Selection between rows: the corners a key is predicted from, its edges, candidates missing at
// a corner, the tie rule on predictions, exact rows first, the memo, and no allocation.
#include "core/predict.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <new>
#include <random>
#include <string>

#include "core/backend.hpp"
#include "core/select.hpp"
#include "core/table.hpp"
#include "lookup_fixture.hpp"

// Counts heap allocations, to show the look-up makes none. (GCC, seeing inlined library code
// pair `new` with this `free`, warns of a mismatch; here both ends are ours.)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
static std::atomic<long> g_allocations{0};
void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  operator delete(p);
}

namespace gemmroute {
namespace {

using PredictTest = test::LookupFixture<Selector::predict>;

// Between a row where cpu.small wins by 1% and a far one where openblas wins by 2x, nearest
// inherits the near row's winner; the prediction weighs both and sees openblas ahead.
TEST_F(PredictTest, PredictsBetweenRows) {
  Table t = load(
      "row f32 N N packed 16 16 16 64 measured cpu.small@99us+-1% openblas@100us+-1%\n"
      "row f32 N N packed 256 16 16 64 measured openblas@1000us+-1% cpu.small@2000us+-1%\n");
  const Key k = key(48, 16, 16, 64);  // log2 distances 1.58 and 2.42
  EXPECT_EQ(walk(t, k, Selector::nearest), (W{"cpu.small", "openblas"}));
  Lookup l = look_up(t, k, Selector::predict);
  ASSERT_EQ(l.basis, Basis::predicted);
  EXPECT_EQ(l.corners, 2);
  EXPECT_EQ(l.row->key.m, 16);  // the nearest corner, for the log
  EXPECT_EQ(walk(t, k), (W{"openblas", "cpu.small"}));
  // Relative log2 times interpolated with weights 1/(d + 0.25), on the corners' weighted mean
  // of their fastest times: openblas (0.007 * w1 + 0 * w2) / (w1 + w2) above the baseline.
  const double w1 = 1 / (std::log2(3.0) + 0.25), w2 = 1 / (std::log2(256.0 / 48) + 0.25);
  const double base = (w1 * std::log2(99.0) + w2 * std::log2(1000.0)) / (w1 + w2);
  const double rel_openblas = w1 * std::log2(100.0 / 99) / (w1 + w2);
  const double rel_small = w2 * 1.0 / (w1 + w2);
  EXPECT_NEAR(l.ranked[0].predicted_us, std::exp2(base + rel_openblas), 1e-3);
  EXPECT_NEAR(l.ranked[1].predicted_us, std::exp2(base + rel_small), 1e-3);
}

TEST_F(PredictTest, TheSixteenCornersOfACell) {
  // A full 2^4 cell around the key, plus rows farther out in every direction that must not be
  // corners (each orthant takes its nearest row).
  std::string rows;
  for (int m : {4, 8, 64}) {
    for (int n : {4, 8, 64}) {
      for (int k : {4, 8, 64}) {
        for (int b : {16, 32, 1024}) {
          rows += "row f32 N N packed " + std::to_string(m) + " " + std::to_string(n) + " " +
                  std::to_string(k) + " " + std::to_string(b) +
                  " measured cpu.small@1us+-1% openblas@2us+-1%\n";
        }
      }
    }
  }
  Table t = load(rows);
  const Key k = key(5, 6, 7, 20);
  PredictionDetail d = explain_prediction(t, k);
  ASSERT_EQ(d.corners.size(), 16u);
  for (const auto& c : d.corners) {
    EXPECT_TRUE(c.row->key.m == 4 || c.row->key.m == 8) << to_string(c.row->key);
    EXPECT_TRUE(c.row->key.batch == 16 || c.row->key.batch == 32) << to_string(c.row->key);
    EXPECT_NEAR(c.weight, 1 / (key_distance(c.row->key, k) + kCornerOffset), 1e-12);
  }
  EXPECT_EQ(look_up(t, k, Selector::predict).corners, 16);
  // A key on a face (m equal to a row's) takes rows on that face for both sides of m.
  EXPECT_EQ(look_up(t, key(8, 6, 7, 20), Selector::predict).corners, 8);
}

// Beyond the rows (a batch larger than any measured), only the orthants towards the rows have
// corners: the edge rows' relative times carry on unchanged, with no extrapolated slope.
TEST_F(PredictTest, BeyondTheEdgeTheEdgeRowsDecide) {
  Table t = load(
      "row f32 N N packed 8 8 8 16 measured openblas@3us+-1% cpu.small@4us+-1%\n"
      "row f32 N N packed 8 8 8 4096 measured cpu.small@100us+-1% openblas@300us+-1%\n");
  Lookup l = look_up(t, key(8, 8, 8, 1 << 20), Selector::predict);
  ASSERT_EQ(l.basis, Basis::predicted);
  EXPECT_EQ(l.corners, 1);
  EXPECT_EQ(l.row->key.batch, 4096);
  EXPECT_EQ(walk(t, key(8, 8, 8, 1 << 20)), (W{"cpu.small", "openblas"}));
  EXPECT_NEAR(l.ranked[0].predicted_us, 100, 1e-4);
  EXPECT_NEAR(l.ranked[1].predicted_us, 300, 1e-3);
  // Below every row (m = 1): the same, towards the other edge.
  EXPECT_EQ(walk(t, key(1, 8, 8, 16)), (W{"openblas", "cpu.small"}));
}

// A candidate a corner does not list (it could not run there, or failed) is predicted from
// the corners that measured it; measured at under half the weight, it ranks after the others.
TEST_F(PredictTest, MissingCandidatesAtACorner) {
  Table t = load(
      "row f32 N N packed 16 16 16 64 measured cpu.small@50us+-1% openblas@100us+-1%\n"
      "row f32 N N packed 32 16 16 64 measured openblas@200us+-1% cpu.direct@210us+-1%\n");
  // m = 17: the m=16 corner weighs more, so cpu.small (only there) is trusted and fastest.
  const Key near16 = key(17, 16, 16, 64);
  PredictionDetail d = explain_prediction(t, near16);
  ASSERT_EQ(d.candidates.size(), 3u);
  EXPECT_EQ(t.slot_entry(d.candidates[0].slot).spelling, "cpu.small");
  EXPECT_GT(d.candidates[0].presence, kTrustedPresence);
  EXPECT_EQ(walk(t, near16), (W{"cpu.small", "openblas", "cpu.direct"}));
  // m = 30: cpu.small was measured only at the far corner (under half the weight): it is still
  // walked, after the trusted candidates, though its predicted time is the smallest.
  const Key near32 = key(30, 16, 16, 64);
  d = explain_prediction(t, near32);
  ASSERT_EQ(d.candidates.size(), 3u);
  EXPECT_EQ(t.slot_entry(d.candidates[2].slot).spelling, "cpu.small");
  EXPECT_LT(d.candidates[2].presence, kTrustedPresence);
  EXPECT_LT(d.candidates[2].predicted_us, d.candidates[0].predicted_us);
  EXPECT_EQ(walk(t, near32), (W{"cpu.direct", "openblas", "cpu.small"}));
}

// The tie rule on predictions: a later candidate (in the backend's tie-break order: openblas,
// openblas:par=item, cpu.small, cpu.tile, cpu.direct) displaces an earlier one only when
// predicted faster by more than 3%. Corner ties go to the lexicographically smallest row.
TEST_F(PredictTest, TiesOnPredictionsAndCorners) {
  Table close = load(
      "row f32 N N packed 16 16 16 64 measured cpu.small@98us+-1% openblas@100us+-1%\n"
      "row f32 N N packed 64 16 16 64 measured cpu.small@98us+-1% openblas@100us+-1%\n");
  EXPECT_EQ(walk(close, key(32, 16, 16, 64)), (W{"openblas", "cpu.small"}));
  Table clear = load(
      "row f32 N N packed 16 16 16 64 measured cpu.small@96us+-1% openblas@100us+-1%\n"
      "row f32 N N packed 64 16 16 64 measured cpu.small@96us+-1% openblas@100us+-1%\n");
  EXPECT_EQ(walk(clear, key(32, 16, 16, 64)), (W{"cpu.small", "openblas"}));
  // Two rows at equal distance in the one orthant they share: whichever order the file has
  // them in, the corner is the one with the smaller (m, n, k, batch).
  const std::string a = "row f32 N N packed 16 12 8 8 measured openblas@1us+-1%\n";
  const std::string b = "row f32 N N packed 12 16 8 8 measured cpu.small@1us+-1%\n";
  for (const std::string& rows : {a + b, b + a}) {
    Table t = load(rows);
    PredictionDetail d = explain_prediction(t, key(8, 8, 8, 9));
    ASSERT_EQ(d.corners.size(), 1u);
    EXPECT_EQ(d.corners[0].row->key.m, 12);
    EXPECT_EQ(walk(t, key(8, 8, 8, 9)), (W{"cpu.small"}));
  }
}

// An exact row is walked as it is, before any prediction: with its times, or without.
TEST_F(PredictTest, ExactRowsComeFirst) {
  Table t = load(
      "row f32 N N packed 16 16 16 64 measured cpu.small@50us+-1% openblas@100us+-1%\n"
      "row f32 N N packed 24 16 16 64 transcribed cpu.direct openblas\n"
      "row f32 N N packed 32 16 16 64 measured openblas@200us+-1% cpu.small@90us+-5%\n");
  Lookup l = look_up(t, key(32, 16, 16, 64), Selector::predict);
  EXPECT_EQ(l.basis, Basis::exact);
  EXPECT_EQ(walk(t, key(32, 16, 16, 64)), (W{"openblas", "cpu.small"}));  // as ranked at build
  EXPECT_EQ(walk(t, key(24, 16, 16, 64)), (W{"cpu.direct", "openblas"}));
  // Between rows, the untimed row is no corner.
  EXPECT_EQ(look_up(t, key(20, 16, 16, 64), Selector::predict).corners, 2);
  // A bucket whose rows have no times is read as nearest-row.
  Table untimed = load("row f32 N N packed 16 16 16 64 transcribed cpu.direct openblas\n");
  l = look_up(untimed, key(20, 16, 16, 64), Selector::predict);
  EXPECT_EQ(l.basis, Basis::nearest);
  EXPECT_EQ(walk(untimed, key(20, 16, 16, 64)), (W{"cpu.direct", "openblas"}));
  // No rows for the key's dtype: nothing to walk.
  EXPECT_EQ(
      look_up(t, {Scalar::f64, Op::N, Op::N, Layout::packed, 8, 8, 8, 8}, Selector::predict).basis,
      Basis::none);
}

// On the shipped table: the memoised look-up equals a fresh computation for any key, on a copy
// of the table and after re-indexing; it makes no allocation, hit or miss.
TEST_F(PredictTest, MemoEqualsAFreshComputationAndNothingAllocates) {
  const char* src = std::getenv("GEMMROUTE_SOURCE_DIR");
  ASSERT_NE(src, nullptr);
  Table t = load_table(std::string(src) + "/tables/cpu/amd-epyc-2c.table", *backend_);
  Table copy = t;
  std::mt19937_64 rng(13);
  std::uniform_int_distribution<std::int64_t> size(1, 700), batch(1, 30000);
  std::uniform_int_distribution<int> scalar(0, 3), op(0, 1), layout(0, 1);
  std::vector<Key> keys;
  for (int i = 0; i < 3000; ++i) {
    keys.push_back({static_cast<Scalar>(scalar(rng)), static_cast<Op>(op(rng)),
                    static_cast<Op>(op(rng)), static_cast<Layout>(layout(rng)), size(rng),
                    size(rng), size(rng), batch(rng)});
  }
  for (const Key& k : keys) {
    PredictionDetail d = explain_prediction(t, k);
    for (const Table* x : {&t, &copy, &t}) {
      Lookup l = look_up(*x, k, Selector::predict);
      if (d.corners.empty()) {  // an exact row
        ASSERT_EQ(l.basis, Basis::exact) << to_string(k);
        continue;
      }
      ASSERT_EQ(l.basis, Basis::predicted) << to_string(k);
      ASSERT_EQ(static_cast<std::size_t>(l.corners), d.corners.size());
      ASSERT_EQ(static_cast<std::size_t>(l.count), d.candidates.size()) << to_string(k);
      for (std::size_t i = 0; i < d.candidates.size(); ++i) {
        ASSERT_EQ(l.ranked[i].slot, d.candidates[i].slot) << to_string(k);
      }
      ASSERT_GE(l.row, x->rows.data());
      ASSERT_LT(l.row, x->rows.data() + x->rows.size());
    }
  }
  look_up(t, keys[0], Selector::predict);  // the thread's memo exists
  const long before = g_allocations.load();
  for (int pass = 0; pass < 2; ++pass) {  // misses (the memo has 64 slots), then again
    for (const Key& k : keys) look_up(t, k, Selector::predict);
  }
  for (int i = 0; i < 1000; ++i) look_up(t, keys[5], Selector::predict);  // hits
  EXPECT_EQ(g_allocations.load(), before);
  // Re-indexed after a change, the memo does not answer for the old rows.
  const Key k = t.rows.front().key;
  ASSERT_EQ(look_up(t, k, Selector::predict).basis, Basis::exact);
  t.rows.erase(t.rows.begin());
  t.index();
  EXPECT_NE(look_up(t, k, Selector::predict).basis, Basis::exact);
}

TEST(Selector, Spellings) {
  EXPECT_EQ(parse_selector("nearest"), Selector::nearest);
  EXPECT_EQ(parse_selector("predict"), Selector::predict);
  EXPECT_FALSE(parse_selector("Predict"));
  EXPECT_EQ(to_string(Selector::nearest), "nearest");
}

}  // namespace
}  // namespace gemmroute
