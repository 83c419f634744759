#include <gtest/gtest.h>

#include "measure/stats.hpp"

namespace gemmroute::measure {
namespace {

TEST(Stats, MedianOfOddCountIsTheMiddleValue) {
  std::vector<double> v = {5, 1, 4, 2, 3, 100, 0.5};
  Stats s = summarize(v);
  EXPECT_EQ(s.count, 7);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.min, 0.5);
  EXPECT_DOUBLE_EQ(s.max, 100);
}

TEST(Stats, MedianOfEvenCountIsTheMeanOfTheMiddleTwo) {
  std::vector<double> v = {4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(summarize(v).median, 2.5);
}

TEST(Stats, SpreadIsTheInterquartileRangeOverTheMedianInPercent) {
  // Sorted 9..15: quartiles at positions 1.5 and 4.5 are 10.5 and 13.5; median 12.
  std::vector<double> v = {15, 9, 11, 10, 13, 12, 14};
  EXPECT_DOUBLE_EQ(summarize(v).spread_pct, 25.0);
  std::vector<double> same(7, 3.0);
  EXPECT_DOUBLE_EQ(summarize(same).spread_pct, 0.0);
}

TEST(Stats, OneOutlierMovesNeitherTheMedianNorTheSpread) {
  std::vector<double> v = {10, 10, 10, 10, 10, 10, 1000};
  Stats s = summarize(v);
  EXPECT_DOUBLE_EQ(s.median, 10);
  EXPECT_DOUBLE_EQ(s.spread_pct, 0);
  EXPECT_DOUBLE_EQ(s.max, 1000);  // still recorded
}

TEST(Stats, EmptySamplesGiveZeroCount) {
  std::vector<double> v;
  Stats s = summarize(v);
  EXPECT_EQ(s.count, 0);
  EXPECT_EQ(s.median, 0);
}

TEST(Stats, GeomeanAndPercentile) {
  std::vector<double> v = {1, 4};
  EXPECT_DOUBLE_EQ(geomean(v), 2);
  std::vector<double> r;
  for (int i = 1; i <= 100; ++i) r.push_back(i);
  EXPECT_DOUBLE_EQ(percentile(r, 95), 95);
  EXPECT_DOUBLE_EQ(percentile(r, 100), 100);
  EXPECT_DOUBLE_EQ(percentile(r, 0), 1);
  EXPECT_DOUBLE_EQ(percentile({1.0, 2.0, 3.0}, 95), 3);
  EXPECT_EQ(geomean(std::vector<double>{}), 0);
}

}  // namespace
}  // namespace gemmroute::measure
