// The harness with a fake clock: the order of arms, the rotation of operand sets, sample sizing
// and the statistics of what the clock reported. No real time is measured.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "fakes.hpp"
#include "measure/harness.hpp"
#include "measure/measure.hpp"

namespace gemmroute::measure {
namespace {

using testing::FakeClock;

TEST(Harness, ArmOrderRotatesEachRepetitionAndAlternatesDirection) {
  EXPECT_EQ(arm_order(3, 0), (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(arm_order(3, 1), (std::vector<std::size_t>{0, 2, 1}));
  EXPECT_EQ(arm_order(3, 2), (std::vector<std::size_t>{2, 0, 1}));
  EXPECT_EQ(arm_order(3, 3), (std::vector<std::size_t>{2, 1, 0}));
  // Over a full cycle every arm follows both of its neighbours, not always the same one.
  const std::size_t n = 5;
  std::map<std::size_t, std::set<std::size_t>> before;
  for (int r = 0; r < 2 * static_cast<int>(n); ++r) {
    auto o = arm_order(n, r);
    for (std::size_t i = 1; i < n; ++i) before[o[i]].insert(o[i - 1]);
  }
  for (std::size_t a = 0; a < n; ++a) EXPECT_EQ(before[a].size(), 2u) << a;
}

TEST(Harness, InterleavesArmsAndEachLeadsInTurn) {
  FakeClock clock;
  std::vector<std::string> log;  // the arm of each run of consecutive calls
  std::vector<Arm> arms;
  for (std::string name : {"a", "b", "c"}) {
    arms.push_back({name, [&, name](std::int64_t) {
                      clock.count();
                      if (log.empty() || log.back() != name) log.push_back(name);
                    }});
  }
  HarnessOptions o;
  o.repetitions = 7;
  o.warmup_us = 0;
  o.min_sample_us = 4;  // fake: 1 us per call -> 4 calls per sample
  auto t = time_arms(arms, o, clock);
  ASSERT_EQ(t.size(), 3u);
  // The last 21 runs are the 7 repetitions of 3 arms (no two neighbours share an arm).
  for (const auto& a : t) EXPECT_EQ(a.samples_us.size(), 7u);
  ASSERT_GE(log.size(), 21u);
  // Repetitions 0, 1, 2: a b c, then a c b reversed from b c a, then c a b. (Each sample's
  // untimed lead-in call belongs to the same run of its arm.)
  const std::vector<std::string> want = {"a", "b", "c", "a", "c", "b", "c", "a", "b"};
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(log[log.size() - 21 + i], want[i]) << i;
}

TEST(Harness, SamplesAreSizedFromTheWarmUp) {
  FakeClock clock;
  clock.time_of = [](std::int64_t calls, int) { return 0.25 * static_cast<double>(calls); };
  std::vector<Arm> arms = {{"x", [&](std::int64_t) { clock.count(); }}};
  HarnessOptions o;
  o.repetitions = 7;
  o.warmup_us = 10;
  o.min_sample_us = 50;
  auto t = time_arms(arms, o, clock);
  EXPECT_EQ(t[0].calls_per_sample, 200);  // 50 us / 0.25 us per call
  EXPECT_DOUBLE_EQ(t[0].stats.median, 0.25);
  EXPECT_DOUBLE_EQ(t[0].stats.spread_pct, 0);
}

TEST(Harness, MedianAndSpreadComeFromThePerCallSamples) {
  FakeClock clock;
  // Warm-up batches cost 10 us per call; timed samples follow a script with one outlier.
  const std::vector<double> script = {10, 12, 9, 50, 10, 11, 10};
  int timed = -1;
  clock.time_of = [&](std::int64_t calls, int) {
    if (timed < 0) {
      timed = 0;
      return 10.0 * static_cast<double>(calls);
    }
    return script[static_cast<std::size_t>(timed++)] * static_cast<double>(calls);
  };
  std::vector<Arm> arms = {{"x", [&](std::int64_t) { clock.count(); }}};
  HarnessOptions o;
  o.repetitions = 7;
  o.warmup_us = 0;
  o.min_sample_us = 1;
  auto t = time_arms(arms, o, clock);
  EXPECT_EQ(t[0].calls_per_sample, 1);
  EXPECT_EQ(t[0].samples_us, script);
  EXPECT_DOUBLE_EQ(t[0].stats.median, 10);
  // Sorted 9 10 10 10 11 12 50: quartiles 10 and 11.5, median 10; the outlier 50 moves neither.
  EXPECT_DOUBLE_EQ(t[0].stats.spread_pct, 15);
}

TEST(Harness, OperandSetsRotateThroughAllSetsAcrossArms) {
  FakeClock clock;
  std::map<std::int64_t, int> uses;
  std::vector<std::int64_t> sequence;
  std::vector<Arm> arms;
  for (std::string name : {"a", "b"}) {
    arms.push_back({name, [&](std::int64_t s) {
                      clock.count();
                      ++uses[s];
                      sequence.push_back(s);
                    }});
  }
  HarnessOptions o;
  o.repetitions = 7;
  o.warmup_us = 0;
  o.min_sample_us = 3;
  o.sets = 5;
  time_arms(arms, o, clock);
  EXPECT_EQ(uses.size(), 5u);
  // One counter shared by every arm: consecutive calls take consecutive sets.
  for (std::size_t i = 1; i < sequence.size(); ++i) {
    EXPECT_EQ(sequence[i], (sequence[i - 1] + 1) % 5) << i;
  }
}

TEST(Harness, NoArmsIsNothingToDo) {
  FakeClock clock;
  EXPECT_TRUE(time_arms({}, HarnessOptions{}, clock).empty());
  EXPECT_EQ(clock.batches(), 0);
}

// The method line is recorded in every results file and table: it is built whole, however
// long the device's names are (it was cut at 1024 bytes, silently).
TEST(Harness, MethodLineIsNeverCut) {
  class LongNames : public testing::FakeDevice {
   public:
    std::string clock_name() const override { return std::string(900, 'c') + " clock"; }
    std::string cache_source() const override { return std::string(300, 's') + " source"; }
  } device;
  const std::string line = method_line(device, MeasureOptions{});
  EXPECT_NE(line.find(device.clock_name() + "; warm-up"), std::string::npos);
  EXPECT_NE(line.find(device.cache_source() + ")"), std::string::npos);
  EXPECT_TRUE(line.ends_with("random full-mantissa operands, nonzero alpha and beta")) << line;
}

}  // namespace
}  // namespace gemmroute::measure
