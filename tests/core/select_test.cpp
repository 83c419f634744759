// Selection: a fixture table plus a problem yields the expected spelling.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <tuple>

#include "core/backend.hpp"
#include "core/select.hpp"
#include "core/table.hpp"
#include "gemmroute/error.hpp"

namespace gemmroute {
namespace {

constexpr const char* kFixture = R"(gemmroute-table 1
fingerprint.backend cpu
fingerprint.device Fixture CPU
tuner test
row f32 N N packed 8 8 8 1000 measured cpu.small@10us±1% openblas@20us±1%
row f32 N N packed 256 256 256 1 measured openblas:par=item@900us±2% openblas@950us±2%
row f32 N N packed 64 64 64 64 measured cpu.direct@5us±1% openblas@6us±1%
row f32 N N packed 32 32 32 32 transcribed cpu.small openblas cpu.direct
row f32 N N packed 4 4 4 16 transcribed openblas cpu.direct
row f32 N N packed 4 4 4 64 transcribed cpu.direct openblas
row f32 T N packed 8 8 8 1000 transcribed cpu.direct
row f32 N N strided 8 8 8 1000 transcribed openblas
row c32 C N packed 8 8 8 1000 transcribed cpu.direct
row c32 T N packed 8 8 8 1000 transcribed openblas
)";

class SelectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    backend_ = make_backend(Device::cpu());
    std::vector<Diagnostic> d;
    table_ = parse_table(kFixture, "fixture.table", d);
    validate_table(table_, *backend_, d);
    ASSERT_TRUE(d.empty()) << d.front().message;
    table_.index();
  }

  // A problem whose operands are aligned and contiguous (packed) unless changed.
  Problem problem(Scalar s, Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k,
                  std::int64_t batch) {
    Problem p;
    p.dtype = s;
    p.ta = ta;
    p.tb = tb;
    p.m = m;
    p.n = n;
    p.k = k;
    p.batch = batch;
    auto operand = [&](std::int64_t rows, std::int64_t cols) {
      return Operand{storage_, nullptr, rows, rows * cols};
    };
    p.a = operand(p.rows_a(), p.cols_a());
    p.b = operand(p.rows_b(), p.cols_b());
    p.c = operand(m, n);
    validate(p);
    return p;
  }

  std::string choose(const Problem& p, Overrides ov = {}, Trace* trace = nullptr) {
    Resolved pin;
    if (!ov.pin.empty()) {
      pin = backend_->resolve(ov.pin);
      ov.pinned = pin.candidate;
      ov.pin_error = pin.error;
    }
    return std::string(
        select(p, key_of(p), &table_, *backend_, *exec_, ov, trace).candidate->spelling());
  }

  // The nearest-row look-up (GEMMROUTE_SELECT=nearest); prediction: predict_test.cpp.
  static Overrides nearest(Route route = Route::automatic) {
    Overrides ov{"", route};
    ov.selector = Selector::nearest;
    return ov;
  }

  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Exec> exec_ = std::make_unique<Exec>();
  Table table_;
  alignas(64) char storage_[64] = {};
};

TEST_F(SelectTest, ExactRowTakesItsFirstRunnableEntry) {
  EXPECT_EQ(choose(problem(Scalar::f32, Op::N, Op::N, 8, 8, 8, 1000)), "cpu.small");
  EXPECT_EQ(choose(problem(Scalar::f32, Op::N, Op::N, 256, 256, 256, 1)), "openblas:par=item");
  EXPECT_EQ(choose(problem(Scalar::f32, Op::N, Op::N, 64, 64, 64, 64)), "cpu.direct");
}

TEST_F(SelectTest, OffGridTakesTheNearestRowInLog2Space) {
  // 9 x 7 x 8 x 900: nearest is 8^3 x 1000.
  EXPECT_EQ(choose(problem(Scalar::f32, Op::N, Op::N, 9, 7, 8, 900), nearest()), "cpu.small");
  // 200 x 300 x 180 x 2: nearest is 256^3 x 1.
  EXPECT_EQ(choose(problem(Scalar::f32, Op::N, Op::N, 200, 300, 180, 2), nearest()),
            "openblas:par=item");
}

TEST_F(SelectTest, WalkSkipsEntriesThatCannotRun) {
  // 20^3 x 32 is nearest to the 32^3 x 32 row; cpu.small refuses 20 > 16, so openblas runs.
  Trace trace;
  EXPECT_EQ(choose(problem(Scalar::f32, Op::N, Op::N, 20, 20, 20, 32), nearest(), &trace),
            "openblas");
  ASSERT_EQ(trace.steps.size(), 2u);
  EXPECT_EQ(trace.steps[0].spelling, "cpu.small");
  EXPECT_EQ(trace.steps[0].reason, "max(m, n, k) > 16");
  EXPECT_EQ(trace.steps[1].reason, "");
}

TEST_F(SelectTest, TiesGoToTheLexicographicallySmallestRow) {
  // batch 32 is exactly between rows 4^3 x 16 and 4^3 x 64 (distance 1 each): the rule picks
  // the smaller (m, n, k, batch), the batch-16 row, whose first entry is openblas.
  Problem p = problem(Scalar::f32, Op::N, Op::N, 4, 4, 4, 32);
  Nearest n = nearest_row(table_, key_of(p));
  ASSERT_NE(n.row, nullptr);
  EXPECT_EQ(n.row->key.batch, 16);
  EXPECT_DOUBLE_EQ(n.distance, 1.0);
  EXPECT_EQ(choose(p, nearest()), "openblas");
}

TEST_F(SelectTest, ConjugateFoldsToTransposeForRealScalars) {
  // f32 C N is the f32 T N row; c32 C N and c32 T N are different rows.
  EXPECT_EQ(choose(problem(Scalar::f32, Op::C, Op::N, 8, 8, 8, 1000)), "cpu.direct");
  EXPECT_EQ(choose(problem(Scalar::c32, Op::C, Op::N, 8, 8, 8, 1000)), "cpu.direct");
  EXPECT_EQ(choose(problem(Scalar::c32, Op::T, Op::N, 8, 8, 8, 1000)), "openblas");
}

TEST_F(SelectTest, LayoutClassification) {
  Problem p = problem(Scalar::f32, Op::N, Op::N, 8, 8, 8, 1000);
  EXPECT_EQ(classify(p), Layout::packed);
  Problem ld = p;
  ld.c.ld = 9;
  ld.c.stride = 72;
  EXPECT_EQ(classify(ld), Layout::strided);
  EXPECT_EQ(choose(ld), "openblas");  // the strided row
  Problem misaligned = p;
  misaligned.b.base = storage_ + 4;
  EXPECT_EQ(classify(misaligned), Layout::strided);
  Problem broadcast = p;
  broadcast.a.stride = 0;
  EXPECT_EQ(classify(broadcast), Layout::strided);
  Problem gap = p;
  gap.a.stride = 65;
  EXPECT_EQ(classify(gap), Layout::strided);
  Problem single = problem(Scalar::f32, Op::N, Op::N, 8, 8, 8, 1);
  single.a.stride = 12345;  // unused with one item
  EXPECT_EQ(classify(single), Layout::packed);
  Problem arrays = p;
  const void* ptrs[1] = {storage_};
  arrays.a.array = arrays.b.array = arrays.c.array = ptrs;
  EXPECT_EQ(classify(arrays), Layout::strided);
}

TEST_F(SelectTest, NoRowFallsBackToDirectThenVendor) {
  Trace trace;
  EXPECT_EQ(choose(problem(Scalar::f64, Op::N, Op::N, 8, 8, 8, 10), {}, &trace), "cpu.direct");
  EXPECT_EQ(trace.steps.back().from, "last resort");
  Overrides vendor{"", Route::vendor};
  EXPECT_EQ(choose(problem(Scalar::f64, Op::N, Op::N, 8, 8, 8, 10), vendor), "openblas");
}

TEST_F(SelectTest, RoutesFilterTheWalk) {
  Overrides native{"", Route::native};
  Overrides vendor{"", Route::vendor};
  // Row 4^3 x 16: openblas, cpu.direct.
  EXPECT_EQ(choose(problem(Scalar::f32, Op::N, Op::N, 4, 4, 4, 16), native), "cpu.direct");
  // Row 8^3 x 1000: cpu.small, openblas.
  EXPECT_EQ(choose(problem(Scalar::f32, Op::N, Op::N, 8, 8, 8, 1000), vendor), "openblas");
  // Row f32 T N: cpu.direct only; vendor route falls to the vendor last resort.
  Trace trace;
  EXPECT_EQ(choose(problem(Scalar::f32, Op::T, Op::N, 8, 8, 8, 1000), vendor, &trace), "openblas");
  EXPECT_EQ(trace.steps[0].reason, "excluded by route=vendor");
}

TEST_F(SelectTest, PinsRunOrSayWhyNot) {
  Problem small = problem(Scalar::f32, Op::N, Op::N, 8, 8, 8, 1000);
  EXPECT_EQ(choose(small, {"cpu.direct", Route::automatic}), "cpu.direct");
  Problem big = problem(Scalar::f32, Op::N, Op::N, 40, 8, 8, 1000);
  try {
    choose(big, {"cpu.small", Route::automatic});
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::not_runnable);
    EXPECT_EQ(e.argument(), "pin");
    EXPECT_NE(std::string(e.what()).find("max(m, n, k) > 16"), std::string::npos);
  }
  EXPECT_THROW(choose(small, {"reg:m=128", Route::automatic}), Error);
  EXPECT_THROW(choose(small, {"openblas", Route::native}), Error);
}

TEST_F(SelectTest, ExplainPrintsTheWalkAndTheChoiceLast) {
  Problem p = problem(Scalar::f32, Op::N, Op::N, 20, 20, 20, 32);
  Trace trace;
  Overrides ov = nearest();
  Selection s = select(p, key_of(p), &table_, *backend_, *exec_, ov, &trace);
  std::string text = format_explain(key_of(p), &table_, s, trace, ov);
  EXPECT_NE(text.find("key: f32 N N packed 20 20 20 32\n"), std::string::npos) << text;
  EXPECT_NE(text.find("table: fixture.table\n"), std::string::npos) << text;
  EXPECT_NE(text.find("selection: nearest "), std::string::npos) << text;
  EXPECT_NE(text.find("row: f32 N N packed 32 32 32 32 (transcribed, line 8)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("skipped: max(m, n, k) > 16"), std::string::npos) << text;
  EXPECT_EQ(text.substr(text.rfind("choice:")), "choice: openblas\n");
}

// The look-up prunes and memoises; it must equal a plain scan of every row, hit or miss, and
// a re-indexed or copied table must never see another table's memo.
TEST_F(SelectTest, LookUpEqualsAPlainScanOfEveryRow) {
  std::mt19937_64 rng(17);
  std::uniform_int_distribution<std::int64_t> size(1, 600), batch(1, 3000);
  // Ties: fewer differing fields, then (ta, tb, layout), then (m, n, k, batch), smallest first.
  auto brute = [&](const Table& t, const Key& key) {
    Nearest best;
    auto order = [&](const Key& k, double d) {
      const int differing = (k.ta != key.ta) + (k.tb != key.tb) + (k.layout != key.layout);
      return std::make_tuple(d, differing, k.ta, k.tb, k.layout, k.m, k.n, k.k, k.batch);
    };
    for (const Row& r : t.rows) {
      const int differing =
          (r.key.ta != key.ta) + (r.key.tb != key.tb) + (r.key.layout != key.layout);
      if (r.key.dtype != key.dtype || (differing > 0 && !std::isfinite(t.reach.form_step))) {
        continue;
      }
      const double d =
          (differing > 0 ? t.reach.form_step * differing : 0) + key_distance(key, r.key);
      if (!best.row || order(r.key, d) < order(best.row->key, best.distance)) best = {&r, d};
    }
    return best;
  };
  for (const Reach reach : {Reach{}, Reach{0.5, 0}, Reach{2, 0}}) {
    table_.reach = reach;
    table_.index();
    Table copy = table_;
    for (int i = 0; i < 2000; ++i) {
      const Op ops[] = {Op::N, Op::T};
      Key key{
          Scalar::f32, ops[i % 2], ops[(i / 2) % 2], i % 5 == 0 ? Layout::strided : Layout::packed,
          size(rng),   size(rng),  size(rng),        batch(rng)};
      if (i % 3 == 0) key = {Scalar::f32, Op::N, Op::N, Layout::packed, 4, 4, 4, 32};  // a tie
      for (const Table* t : {&table_, &copy, &table_}) {
        Nearest want = brute(*t, key), got = nearest_row(*t, key);
        ASSERT_EQ(got.row, want.row) << to_string(key) << " form_step " << reach.form_step;
        ASSERT_EQ(got.distance, want.distance);
      }
    }
  }
  table_.reach = {};
  table_.index();
  // Change the table and index again: the old memo must not answer.
  Key key{Scalar::f32, Op::N, Op::N, Layout::packed, 8, 8, 8, 1000};
  ASSERT_EQ(nearest_row(table_, key).row->key.m, 8);
  table_.rows.erase(table_.rows.begin());  // the 8^3 x 1000 row
  table_.index();
  EXPECT_EQ(nearest_row(table_, key).row, brute(table_, key).row);
  EXPECT_NE(nearest_row(table_, key).row->key.m, 8);
}

// A backend's reach (core/table.hpp): rows of other forms and layouts at a penalty per differing
// field, ties to fewer differing fields and then to (ta, tb, layout) order.
TEST_F(SelectTest, ReachTakesRowsOfOtherFormsAtAPenalty) {
  auto p = problem(Scalar::f32, Op::T, Op::T, 8, 8, 8, 1000);
  EXPECT_EQ(nearest_row(table_, key_of(p)).row, nullptr);  // the default: own forms only
  EXPECT_EQ(choose(p, nearest()), "cpu.direct");           // the last resort

  table_.reach = {0.5, 0};
  table_.index();
  Nearest n = nearest_row(table_, key_of(p));
  ASSERT_NE(n.row, nullptr);
  EXPECT_EQ(to_string(n.row->key), "f32 T N packed 8 8 8 1000");  // one field differs
  EXPECT_EQ(n.distance, 0.5);
  // Strided: T N packed (tb, layout) and N N strided (ta, tb) both differ in two fields; N sorts
  // before T, so the N N strided row, whose entry is openblas.
  Key strided = key_of(p);
  strided.layout = Layout::strided;
  n = nearest_row(table_, strided);
  ASSERT_NE(n.row, nullptr);
  EXPECT_EQ(to_string(n.row->key), "f32 N N strided 8 8 8 1000");
  EXPECT_EQ(n.distance, 1.0);
  // Never another scalar.
  EXPECT_EQ(nearest_row(table_, key_of(problem(Scalar::f64, Op::N, Op::N, 8, 8, 8, 1000))).row,
            nullptr);
}

TEST_F(SelectTest, ReachAsksMoreOfANativeEntryTheFartherItsRow) {
  // The row f32 N N packed 64 64 64 64: cpu.direct 5 us, openblas (the vendor) 6 us: 1.2x.
  auto exact = problem(Scalar::f32, Op::N, Op::N, 64, 64, 64, 64);
  auto off = problem(Scalar::f32, Op::N, Op::N, 64, 64, 64, 128);  // distance 1
  table_.reach = {std::numeric_limits<double>::infinity(), 0.2};
  table_.index();
  EXPECT_EQ(choose(exact, nearest()), "cpu.direct");  // an exact row is taken as measured
  Trace trace;
  // At distance 1 the native entry must beat the vendor by 1.03 * e^0.2 = 1.26x.
  EXPECT_EQ(choose(off, nearest(), &trace), "openblas");
  ASSERT_FALSE(trace.steps.empty());
  EXPECT_EQ(trace.steps.front().spelling, "cpu.direct");
  EXPECT_EQ(trace.steps.front().reason,
            "out of the row's reach: at distance 1.00 it must beat openblas by 1.26x, measured "
            "1.20x");
  table_.reach.vendor_growth = 0.1;  // 1.03 * e^0.1 = 1.14x: the row's 1.2x is enough
  table_.index();
  EXPECT_EQ(choose(off, nearest()), "cpu.direct");
  // A row of the key's items at another batch: with the batch at half weight, distance 0.5
  // asks 1.03 * e^0.1 = 1.14x of the native entry, which its 1.2x gives.
  table_.reach = {std::numeric_limits<double>::infinity(), 0.2, 0.5, 64};
  table_.index();
  EXPECT_EQ(choose(off, nearest()), "cpu.direct");
  table_.reach.same_item_min_batch = 65;  // the row's 64 items are too few: the whole distance
  table_.index();
  EXPECT_EQ(choose(off, nearest()), "openblas");
  table_.reach.same_item_min_batch = 64;
  table_.index();
  // Other items as near (n 64 -> 128 instead of the batch) keep the whole distance.
  Trace far;
  EXPECT_EQ(choose(problem(Scalar::f32, Op::N, Op::N, 64, 128, 64, 64), nearest(), &far),
            "openblas");
  ASSERT_FALSE(far.steps.empty());
  EXPECT_NE(far.steps.front().reason.find("at distance 1.00 it must beat openblas by 1.26x"),
            std::string::npos)
      << far.steps.front().reason;
  // A row without a timed vendor entry is walked as it is.
  table_.reach = {std::numeric_limits<double>::infinity(), 0.2};
  table_.reach.vendor_growth = 5;
  table_.index();
  EXPECT_EQ(choose(problem(Scalar::f32, Op::N, Op::N, 4, 4, 4, 80), nearest()), "cpu.direct");
}

// Launch-bound calls (Reach::launch_bytes, launch_depth): where the key and the row both move
// little with a short k, only k counts in the distance the rule asks the native entry to cover
// (not m, n, the batch, nor the forms and layout).
TEST_F(SelectTest, LaunchBoundKeysCountOnlyTheirDepthAgainstALaunchBoundRow) {
  // The row f32 N N packed 64 64 64 64 (3 MiB of operands): cpu.direct 1.2x openblas.
  const auto narrower = problem(Scalar::f32, Op::N, Op::N, 64, 32, 64, 64);  // 2 MiB, n: 1 step
  table_.reach = {std::numeric_limits<double>::infinity(), 0.2};
  table_.index();
  EXPECT_EQ(choose(narrower, nearest()), "openblas");  // distance 1 asks 1.26x
  table_.reach.launch_bytes = 4 << 20;
  table_.reach.launch_depth = 64;
  table_.index();
  EXPECT_EQ(choose(narrower, nearest()), "cpu.direct");  // distance 0 asks 1.03x
  table_.reach.launch_depth = 63;  // k = 64 is deeper: the whole distance
  table_.index();
  EXPECT_EQ(choose(narrower, nearest()), "openblas");
  table_.reach.launch_depth = 64;
  table_.reach.launch_bytes = 2 << 20;  // the key is within it, the row (3 MiB) is not
  table_.index();
  EXPECT_EQ(choose(narrower, nearest()), "openblas");
  // A step in k still counts: 64 x 64 x 32 asks 1.26x of the row's 1.2x.
  table_.reach.launch_bytes = 4 << 20;
  table_.index();
  Trace trace;
  EXPECT_EQ(choose(problem(Scalar::f32, Op::N, Op::N, 64, 64, 32, 64), nearest(), &trace),
            "openblas");
  ASSERT_FALSE(trace.steps.empty());
  EXPECT_EQ(trace.steps.front().reason,
            "out of the row's reach: at distance 1.00 (both launch-bound: only k counts) it must "
            "beat openblas by 1.26x, measured 1.20x");
}

// A launch-bound key takes the nearest launch-bound row, however near a row of more work is;
// with none in reach, the nearest row.
TEST_F(SelectTest, LaunchBoundKeysTakeTheNearestLaunchBoundRow) {
  const Key key = key_of(problem(Scalar::f32, Op::N, Op::N, 64, 64, 64, 16));  // 768 KiB, k = 64
  Nearest n = nearest_row(table_, key);
  ASSERT_NE(n.row, nullptr);
  EXPECT_EQ(to_string(n.row->key), "f32 N N packed 64 64 64 64");  // 3 MiB, 2 steps in batch
  EXPECT_EQ(n.distance, 2.0);
  table_.reach.launch_bytes = 1 << 20;
  table_.reach.launch_depth = 64;
  table_.index();
  n = nearest_row(table_, key);
  ASSERT_NE(n.row, nullptr);
  EXPECT_EQ(to_string(n.row->key), "f32 N N packed 32 32 32 32");  // 384 KiB: 4 steps
  EXPECT_EQ(n.distance, 4.0);
  // Launch-bound below 1000 bytes: the 2 x 2 x 2 key is, no row is; the nearest row it is.
  table_.reach.launch_bytes = 1000;
  table_.index();
  n = nearest_row(table_, key_of(problem(Scalar::f32, Op::N, Op::N, 2, 2, 2, 1)));
  ASSERT_NE(n.row, nullptr);
  EXPECT_EQ(to_string(n.row->key), "f32 N N packed 4 4 4 16");
}

// Reach::launch_size_weight: among launch-bound rows, m, n and the batch count that part of
// their distance in finding the nearest, so a row of the key's depth wins over one of nearer
// sizes; the distance reported stays the whole one.
TEST_F(SelectTest, LaunchBoundKeysWeighTheirDepthAboveTheirSizes) {
  const Key key = key_of(problem(Scalar::f32, Op::N, Op::N, 4, 4, 8, 128));
  table_.reach.launch_bytes = 1 << 20;
  table_.reach.launch_depth = 64;
  table_.index();
  Nearest n = nearest_row(table_, key);
  ASSERT_NE(n.row, nullptr);
  EXPECT_EQ(to_string(n.row->key), "f32 N N packed 4 4 4 64");  // k: 1 step, batch: 1
  EXPECT_EQ(n.distance, 2.0);
  table_.reach.launch_size_weight = 0.25;
  table_.index();
  n = nearest_row(table_, key);
  ASSERT_NE(n.row, nullptr);
  // 0.25 x (1 + 1 + log2(1000 / 128)) = 1.24 against 1 + 0.25 x 1 = 1.25.
  EXPECT_EQ(to_string(n.row->key), "f32 N N packed 8 8 8 1000");
  EXPECT_NEAR(n.distance, 2 + std::log2(1000.0 / 128), 1e-12);
  // A key that is not launch-bound keeps the whole distance.
  n = nearest_row(table_, key_of(problem(Scalar::f32, Op::N, Op::N, 4, 4, 8, 65536)));
  ASSERT_NE(n.row, nullptr);
  EXPECT_EQ(to_string(n.row->key), "f32 N N packed 8 8 8 1000");
  EXPECT_NEAR(n.distance, 2 + std::log2(65536 / 1000.0), 1e-12);
}

TEST_F(SelectTest, FingerprintMismatchIsReported) {
  ASSERT_FALSE(table_.notes.empty());
  EXPECT_NE(table_.notes[0].find("fingerprint.device is 'Fixture CPU'"), std::string::npos);
}

}  // namespace
}  // namespace gemmroute
