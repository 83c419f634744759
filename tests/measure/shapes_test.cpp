// Shapes files: the key's grammar a line, the first files' order (layout last or left out),
// the recorder's `# calls N`, and every bad line reported at its field.
#include "measure/shapes.hpp"

#include <gtest/gtest.h>

namespace gemmroute::measure {
namespace {

TEST(Shapes, BothOrdersAndCounts) {
  std::string errors;
  auto s = parse_shapes(
      "# a comment\n"
      "\n"
      "f32 N T packed 32 32 32 1000   # calls 12\n"
      "f64 N N 16 16 16 64 strided\n"
      "c32 C N 3 5 7 9\n"
      "f32 C N strided 2 2 2 1 # not a count\n",
      "s.txt", errors);
  EXPECT_EQ(errors, "");
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].text, "f32 N T packed 32 32 32 1000");
  EXPECT_EQ(s[0].calls, 12);
  EXPECT_EQ(s[0].line, 3);
  EXPECT_EQ(s[1].text, "f64 N N strided 16 16 16 64");
  EXPECT_EQ(s[2].text, "c32 C N packed 3 5 7 9");
  EXPECT_EQ(s[3].text, "f32 T N strided 2 2 2 1");  // C folds to T for a real scalar
  EXPECT_EQ(s[3].calls, 0);
}

TEST(Shapes, BadLinesNameFileLineColumnAndField) {
  std::string errors;
  auto s = parse_shapes(
      "f32 N N 2 2 2 1\n"
      "f32 N Q 2 2 2 1\n"
      "f64 N N packed 2 x 2 1\n"
      "f64 N N 2 2\n"
      "f32 N N 4000000000 4000000000 4000000000 1\n",
      "s.txt", errors);
  EXPECT_EQ(s.size(), 1u);
  EXPECT_EQ(errors,
            "s.txt:2:7: tb: unknown 'Q' (expected N, T or C)\n"
            "s.txt:3:18: n: expected a whole number from 1 to 2^62\n"
            "s.txt:4:1: expected 'dtype ta tb layout m n k batch', found 5 fields\n"
            "s.txt:5:9: the operands of this shape need more than 2^63 bytes\n");
}

TEST(Shapes, DistinctMergesKeysAndSumsCalls) {
  std::string errors;
  auto s = parse_shapes(
      "f32 N N packed 4 4 4 8 # calls 3\n"
      "f64 N N packed 4 4 4 8 # calls 1\n"
      "f32 N N 4 4 4 8 # calls 4\n",
      "s.txt", errors);
  auto d = distinct_shapes(s);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].calls, 7);
  EXPECT_EQ(d[1].calls, 1);
}

}  // namespace
}  // namespace gemmroute::measure
