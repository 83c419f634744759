// The key's grammar: every field's parser and printer, the messages and columns readers report,
// and C on a real scalar (refused in files tables come from, folded in a user's input).
#include "core/key.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

namespace gemmroute {
namespace {

std::vector<Field> fields(std::initializer_list<std::string_view> texts) {
  std::vector<Field> out;
  int column = 1;
  for (std::string_view t : texts) {
    out.push_back({t, column});
    column += static_cast<int>(t.size()) + 1;
  }
  return out;
}

// The nine supported dtypes, uniform ones first.
const DType kDTypes[] = {Scalar::f32,
                         Scalar::f64,
                         Scalar::c32,
                         Scalar::c64,
                         {Scalar::f32, Scalar::f32, Compute::tf32},
                         Scalar::bf16,
                         {Scalar::bf16, Scalar::f32, Compute::f32},
                         Scalar::f16,
                         {Scalar::f16, Scalar::f32, Compute::f32}};

TEST(Key, EveryDtypeFormAndLayoutRoundTrips) {
  for (DType d : kDTypes) {
    for (Op ta : {Op::N, Op::T, Op::C}) {
      for (Op tb : {Op::N, Op::T, Op::C}) {
        if (!is_complex(d) && (ta == Op::C || tb == Op::C)) continue;
        for (Layout l : {Layout::packed, Layout::strided}) {
          const Key k{d, ta, tb, l, 3, 1, 600, kMaxKeySize};
          const std::string text = to_string(k);
          std::vector<Field> f;
          std::size_t pos = 0;
          while (pos < text.size()) {
            std::size_t end = text.find(' ', pos);
            if (end == std::string::npos) end = text.size();
            f.push_back({std::string_view(text).substr(pos, end - pos), static_cast<int>(pos) + 1});
            pos = end + 1;
          }
          KeyError why;
          auto back = parse_key(f, RealC::reject, &why);
          ASSERT_TRUE(back) << text << ": " << why.message();
          EXPECT_EQ(*back, k) << text;
          EXPECT_EQ(format_key(k, ','), [&] {
            std::string s = text;
            for (char& c : s) c = c == ' ' ? ',' : c;
            return s;
          }());
        }
      }
    }
  }
}

TEST(Key, ErrorsNameTheFieldAndItsColumn) {
  struct Case {
    std::vector<Field> f;
    int column;
    std::string message;
  };
  const Case cases[] = {
      {fields({"f8", "N", "N", "packed", "1", "1", "1", "1"}), 1,
       "dtype: unknown 'f8' (expected f32, f64, c32, c64, bf16, f16, bf16:f32:f32, f16:f32:f32 "
       "or f32:f32:tf32)"},
      {fields({"f32", "n", "N", "packed", "1", "1", "1", "1"}), 5,
       "ta: unknown 'n' (expected N, T or C)"},
      {fields({"f32", "N", "NT", "packed", "1", "1", "1", "1"}), 7,
       "tb: unknown 'NT' (expected N, T or C)"},
      {fields({"f32", "N", "N", "pack", "1", "1", "1", "1"}), 9,
       "layout: unknown 'pack' (expected packed or strided)"},
      {fields({"f64", "N", "C", "packed", "1", "1", "1", "1"}), 7,
       "tb: C is folded to T for real scalars; write T"},
      {fields({"c32", "C", "C", "packed", "0", "1", "1", "1"}), 16,
       "m: expected a whole number from 1 to 2^62"},
      {fields({"c32", "C", "C", "packed", "1", "+1", "1", "1"}), 18,
       "n: expected a whole number from 1 to 2^62"},
      {fields({"c32", "C", "C", "packed", "1", "1", "2x", "1"}), 20,
       "k: expected a whole number from 1 to 2^62"},
      {fields({"c32", "C", "C", "packed", "1", "1", "1", "4611686018427387905"}), 22,
       "batch: expected a whole number from 1 to 2^62"},
      {fields({"f32", "N", "N", "packed", "1", "1", "1"}), 1,
       "key: expected 8 fields 'dtype ta tb layout m n k batch', found 7"},
  };
  for (const Case& c : cases) {
    KeyError why;
    EXPECT_FALSE(parse_key(c.f, RealC::reject, &why));
    EXPECT_EQ(why.column, c.column) << c.message;
    EXPECT_EQ(why.message(), c.message);
  }
}

TEST(Key, UserInputFoldsCForRealScalars) {
  auto f = fields({"f32", "C", "C", "strided", "2", "3", "4", "5"});
  KeyError why;
  EXPECT_FALSE(parse_key(f, RealC::reject, &why));
  auto k = parse_key(f, RealC::fold, &why);
  ASSERT_TRUE(k);
  EXPECT_EQ(to_string(*k), "f32 T T strided 2 3 4 5");
  auto c = parse_key(fields({"c64", "C", "T", "packed", "2", "3", "4", "5"}), RealC::fold, &why);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->ta, Op::C);  // a complex C stays C
}

TEST(Key, OneFieldAloneGivesTheSameMessage) {
  KeyError why;
  EXPECT_FALSE(parse_dtype_field({"bf16:f16:f32", 3}, &why));
  EXPECT_EQ(why.column, 3);
  EXPECT_EQ(why.message(),
            "dtype: unknown 'bf16:f16:f32' (expected f32, f64, c32, c64, bf16, f16, bf16:f32:f32, "
            "f16:f32:f32 or f32:f32:tf32)");
  EXPECT_FALSE(parse_size_field({"-1", 1}, "batch", &why));
  EXPECT_EQ(why.message(), "batch: expected a whole number from 1 to 2^62");
  // A long or unprintable token is not repeated in the message; the column points at it.
  EXPECT_FALSE(parse_layout_field({"packed-and-more-than-twenty-four", 1}, &why));
  EXPECT_EQ(why.message(), "layout: unknown (expected packed or strided)");
  EXPECT_EQ(parse_dtype_field({"c64", 1}, &why), Scalar::c64);
}

// The files written before mixed dtypes existed say f32, f64, c32, c64: each reads as its
// uniform dtype and prints back as it was. A mixed dtype names its three types, and the long
// form of a dtype with a short one reads but prints short.
TEST(Key, DtypeTokensAreShortWhereTheyWereAndNameThreeTypesOtherwise) {
  const std::pair<const char*, DType> cases[] = {
      {"f32", Scalar::f32},
      {"f64", Scalar::f64},
      {"c32", Scalar::c32},
      {"c64", Scalar::c64},
      {"bf16", DType(Scalar::bf16, Scalar::bf16, Compute::f32)},
      {"f16", DType(Scalar::f16, Scalar::f16, Compute::f32)},
      {"bf16:f32:f32", DType(Scalar::bf16, Scalar::f32, Compute::f32)},
      {"f16:f32:f32", DType(Scalar::f16, Scalar::f32, Compute::f32)},
      {"f32:f32:tf32", DType(Scalar::f32, Scalar::f32, Compute::tf32)},
  };
  for (auto [text, d] : cases) {
    auto parsed = parse_dtype(text);
    ASSERT_TRUE(parsed) << text;
    EXPECT_EQ(*parsed, d) << text;
    EXPECT_EQ(format_dtype(d), text);
  }
  EXPECT_EQ(parse_dtype("f32:f32:f32"), DType(Scalar::f32));
  EXPECT_EQ(parse_dtype("bf16:bf16:f32"), DType(Scalar::bf16));
  EXPECT_EQ(format_dtype(*parse_dtype("f64:f64:f64")), "f64");
  // Unsupported combinations and malformed tokens.
  for (const char* bad :
       {"bf16:f16:f32", "f64:f64:tf32", "c32:c32:tf32", "f16:f16:f16", "bf16:f32",
        "f32:", ":f32:f32", "f32:f32:f32:f32", "bf16:f32:f32 ", "tf32", "f32:f64:f64"}) {
    EXPECT_FALSE(parse_dtype(bad)) << bad;
  }
}

TEST(Key, DtypeIndexIsDenseAndDistinct) {
  std::array<bool, kDTypeCount> seen{};
  for (DType d : kDTypes) {
    ASSERT_TRUE(is_supported(d));
    const std::size_t i = dtype_index(d);
    ASSERT_LT(i, kDTypeCount);
    EXPECT_FALSE(seen[i]) << format_dtype(d);
    seen[i] = true;
  }
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(dtype_index(DType(static_cast<Scalar>(i))), i);
}

}  // namespace
}  // namespace gemmroute
