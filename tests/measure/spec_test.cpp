#include <gtest/gtest.h>

#include "gemmroute/error.hpp"
#include "measure/spec.hpp"

namespace gemmroute::measure {
namespace {

constexpr const char* kSpec = R"(# a test spec
name t
repetitions 9
min-sample-us 100
warmup-ms 1.5
check-macs 1000
rotation-factor 4
refine-ratio 1.1
refine-max-points 12
candidates cpu.small openblas
block small
  dtype f32 c64
  forms NN TC      # C folds to T for f32
  layout packed strided
  m 4 13
  n =m
  k 5
  batch 1 64
  max-macs 50000
end
)";

TEST(Spec, ParsesEveryField) {
  Spec s = parse_spec(kSpec, "t.spec");
  EXPECT_EQ(s.name, "t");
  EXPECT_EQ(s.measure.harness.repetitions, 9);
  EXPECT_DOUBLE_EQ(s.measure.harness.min_sample_us, 100);
  EXPECT_DOUBLE_EQ(s.measure.harness.warmup_us, 1500);
  EXPECT_DOUBLE_EQ(s.measure.check_macs, 1000);
  EXPECT_DOUBLE_EQ(s.measure.operands.rotation_factor, 4);
  EXPECT_DOUBLE_EQ(s.refine_ratio, 1.1);
  EXPECT_EQ(s.refine_max_points, 12);
  EXPECT_EQ(s.candidates, (std::vector<std::string>{"cpu.small", "openblas"}));
  ASSERT_EQ(s.blocks.size(), 1u);
  EXPECT_EQ(s.blocks[0].tie[1], 0);
}

TEST(Spec, LatticeIsTheProductWithTiesFoldingAndLimits) {
  Spec s = parse_spec(kSpec, "t.spec");
  auto keys = lattice(s);
  // 2 dtypes x 2 forms x 2 layouts x 2 m x 2 batch = 32, less 13*13*5*64 > 5e4 (8 points).
  EXPECT_EQ(keys.size(), 24u);
  for (const Key& k : keys) {
    EXPECT_EQ(k.n, k.m);
    EXPECT_EQ(k.k, 5);
    if (k.dtype == Scalar::f32) {
      EXPECT_NE(k.tb, Op::C);
    }
    EXPECT_LE(static_cast<double>(k.m * k.n * k.k * k.batch), 5e4);
  }
  bool folded = false;
  for (const Key& k : keys)
    folded = folded || (k.dtype == Scalar::f32 && k.ta == Op::T && k.tb == Op::T);
  EXPECT_TRUE(folded);
}

TEST(Spec, DuplicatesAcrossBlocksAppearOnce) {
  const char* text =
      "block a\n dtype f64\n m 8\n n 8\n k 8\n batch 1\nend\n"
      "block b\n dtype f64\n m 8 9\n n =m\n k =m\n batch 1\nend\n";
  EXPECT_EQ(lattice(parse_spec(text, "d.spec")).size(), 2u);
}

TEST(Spec, ErrorsNameFileLineAndColumn) {
  auto message = [](const char* text) {
    try {
      parse_spec(text, "bad.spec");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("repetitions 3\nblock a\n dtype f32\n m 1\n n 1\n k 1\n batch 1\nend\n")
                .find("bad.spec:1:13:"),
            std::string::npos);
  EXPECT_NE(message("block a\n dtype f8\n").find("bad.spec:2:8: dtype: unknown 'f8'"),
            std::string::npos);
  EXPECT_NE(message("block a\n dtype f32\n m 4\n n 4\n k 4\nend\n").find("no 'batch'"),
            std::string::npos);
  EXPECT_NE(message("block a\n dtype f32\n m 4 x\n").find("bad.spec:3:6:"), std::string::npos);
  EXPECT_NE(message("colour blue\n").find("unknown field 'colour'"), std::string::npos);
  EXPECT_NE(message("block a\n dtype f32\n m =n\n n =m\n").find("bad.spec:4:5:"),
            std::string::npos);
  EXPECT_NE(message("# nothing\n").find("lattice is empty"), std::string::npos);
  EXPECT_NE(message("scalars zero\n").find("bad.spec:1:9: expected random, unit or beta-zero"),
            std::string::npos);
}

TEST(Spec, ScalarsChooseAlphaAndBeta) {
  const std::string block = "block a\n dtype f32\n m 4\n n 4\n k 4\n batch 1\nend\n";
  const OperandOptions plain = parse_spec(block, "s.spec").measure.operands;
  EXPECT_FALSE(plain.unit_scalars);
  EXPECT_FALSE(plain.zero_beta);
  const OperandOptions zero = parse_spec("scalars beta-zero\n" + block, "s.spec").measure.operands;
  EXPECT_FALSE(zero.unit_scalars);
  EXPECT_TRUE(zero.zero_beta);
  EXPECT_TRUE(parse_spec("scalars unit\n" + block, "s.spec").measure.operands.unit_scalars);
}

}  // namespace
}  // namespace gemmroute::measure
