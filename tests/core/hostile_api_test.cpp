// The public API under hostile input: NaN scalars in grouped batches, groups that fail after
// others could have run, enums outside their range, operands whose byte size overflows, and a
// moved-from Context. Each test is the regression test of a reproduction in issue 9.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <complex>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "gemmroute/gemmroute.hpp"
#include "reference/reference.hpp"
#include "support.hpp"

namespace gemmroute {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

std::vector<float> random_floats(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = test::random_scalar<float>(rng);
  return v;
}

// Two items of one 2x2x2 shape: item 0 with alpha 1 and ldc 64, item 1 with alpha NaN and ldc
// 2 over a C of exactly 4 floats. Grouping NaN with item 0 ran item 1 with ldc 64: out of
// bounds (ASan: heap-buffer-overflow WRITE in cpu::scale_item) or `2 0 0 2` instead of NaN.
TEST(HostileGrouped, NaNAlphaNeverJoinsAnotherGroup) {
  Context ctx;
  const std::vector<float> a = {1, 0, 0, 1}, b = {2, 0, 0, 2};
  std::vector<float> c0(64 * 2, 5.0f);
  auto c1 = std::make_unique<float[]>(4);  // exactly 4 floats: ldc 64 would leave them
  for (int i = 0; i < 4; ++i) c1[i] = 7.0f;
  std::vector<GemmItem> items = {
      make_item(Op::N, Op::N, 2, 2, 2, 1.0f, a.data(), 2, b.data(), 2, 0.0f, c0.data(), 64),
      make_item(Op::N, Op::N, 2, 2, 2, kNaN, a.data(), 2, b.data(), 2, 0.0f, c1.get(), 2)};
  gemm_grouped(ctx, items);
  EXPECT_EQ(c0[0], 2.0f);
  EXPECT_EQ(c0[1], 0.0f);
  EXPECT_EQ(c0[64], 0.0f);
  EXPECT_EQ(c0[65], 2.0f);
  EXPECT_EQ(c0[2], 5.0f) << "ld padding of item 0 written";
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(std::isnan(c1[i])) << i << ": " << c1[i];
}

// Items whose scalars differ only in their bits (NaN payloads, -0 and 0) are never merged with
// an item of other scalars, and each keeps its own leading dimensions.
TEST(HostileGrouped, EveryItemRunsWithItsOwnArguments) {
  Context ctx;
  const auto a = random_floats(9, 1), b = random_floats(9, 2);
  const float payload = std::bit_cast<float>(std::uint32_t{0x7fc00123});
  const float alphas[] = {1.0f, kNaN, -0.0f, 0.0f, payload, kNaN, 1.0f};
  const std::int64_t ldcs[] = {3, 5, 3, 4, 3, 3, 6};
  std::vector<std::vector<float>> cs, c0s;
  std::vector<GemmItem> items;
  for (int i = 0; i < 7; ++i) {
    cs.push_back(random_floats(static_cast<std::size_t>(ldcs[i] * 3), 10 + i));
    c0s.push_back(cs.back());
  }
  for (int i = 0; i < 7; ++i) {
    items.push_back(make_item(Op::N, Op::N, 3, 3, 3, alphas[i], a.data(), 3, b.data(), 3, 0.5f,
                              cs[i].data(), ldcs[i]));
  }
  gemm_grouped(ctx, items);
  for (int i = 0; i < 7; ++i) {
    Problem got;
    got.m = got.n = got.k = 3;
    got.batch = 1;
    got.alpha = alphas[i];
    got.beta = 0.5;
    got.a = {a.data(), nullptr, 3, 0};
    got.b = {b.data(), nullptr, 3, 0};
    got.c = {cs[i].data(), nullptr, ldcs[i], 0};
    for (std::int64_t j = 0; j < 3; ++j) {
      for (std::int64_t r = 3; r < ldcs[i]; ++r) {
        EXPECT_EQ(cs[i][j * ldcs[i] + r], c0s[i][j * ldcs[i] + r]) << "item " << i << " padding";
      }
    }
    if (std::isnan(alphas[i])) {
      for (std::int64_t j = 0; j < 3; ++j) {
        for (std::int64_t r = 0; r < 3; ++r) EXPECT_TRUE(std::isnan(cs[i][j * ldcs[i] + r]));
      }
      continue;
    }
    Problem orig = got;
    orig.c.base = c0s[i].data();
    auto check = reference::check_against_reference(got, orig);
    EXPECT_TRUE(check.ok) << "item " << i << ": " << check.message;
  }
}

// With a pin that runs the first group (2x2x2) but not the second (17x17x17), the call threw
// `not runnable` after item 0's C was written. Every group is selected before any runs.
TEST(HostileGrouped, AGroupThatCannotRunStopsTheCallBeforeAnyWrite) {
  Context ctx;
  const auto a = random_floats(17 * 17, 1), b = random_floats(17 * 17, 2);
  auto c_small = random_floats(4, 3), c_big = random_floats(17 * 17, 4);
  const auto small0 = c_small, big0 = c_big;
  std::vector<GemmItem> items = {
      make_item(Op::N, Op::N, 2, 2, 2, 1.0f, a.data(), 2, b.data(), 2, 0.0f, c_small.data(), 2),
      make_item(Op::N, Op::N, 17, 17, 17, 1.0f, a.data(), 17, b.data(), 17, 0.0f, c_big.data(),
                17)};
  Options pin;
  pin.pin = "cpu.small";
  try {
    gemm_grouped(ctx, items, pin);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::not_runnable) << e.what();
  }
  EXPECT_TRUE(test::same_bytes(c_small, small0)) << "item 0 written before item 1 failed";
  EXPECT_TRUE(test::same_bytes(c_big, big0));
}

template <class Call>
void expect_invalid(const std::string& argument, Call call) {
  try {
    call();
    ADD_FAILURE() << "no error for " << argument;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument) << e.what();
    EXPECT_EQ(e.argument(), argument) << e.what();
  }
}

// (Scalar)9 read out of bounds in the table look-up (ASan: index 163 of 72); (Order)5 ran as
// column-major. Every enum that crosses the API is checked.
TEST(HostileEnums, EveryEnumOfTheApiIsChecked) {
  Context ctx;
  const auto a = random_floats(4, 1), b = random_floats(4, 2);
  auto c = random_floats(4, 3);
  const auto c0 = c;
  auto item = make_item(Op::N, Op::N, 2, 2, 2, 1.0f, a.data(), 2, b.data(), 2, 0.0f, c.data(), 2);

  for (int bad : {4, 9, 255}) {
    GemmItem it = item;
    it.dtype = static_cast<Scalar>(bad == 4 ? 6 : bad);  // 4 and 5 are bf16 and f16
    expect_invalid("items[0].dtype", [&] { gemm_grouped(ctx, {&it, 1}); });
    it = item;
    it.order = static_cast<Order>(bad);
    expect_invalid("items[0].order", [&] { gemm_grouped(ctx, {&it, 1}); });
    it = item;
    it.ta = static_cast<Op>(bad);
    expect_invalid("items[0].ta", [&] { gemm_grouped(ctx, {&it, 1}); });
    expect_invalid("order", [&] {
      gemm<float>(ctx, static_cast<Order>(bad), Op::N, Op::N, 2, 2, 2, 1.0f, a.data(), 2, 0,
                  b.data(), 2, 0, 0.0f, c.data(), 2, 0, 1);
    });
    const float* as[] = {a.data()};
    const float* bs[] = {b.data()};
    float* cs[] = {c.data()};
    expect_invalid("order", [&] {
      gemm<float>(ctx, static_cast<Order>(bad), Op::N, Op::N, 2, 2, 2, 1.0f, as, 2, bs, 2, 0.0f, cs,
                  2, 1);
    });
    Options o;
    o.route = static_cast<Route>(bad);
    expect_invalid("options.route", [&] {
      gemm<float>(ctx, Op::N, Op::N, 2, 2, 2, 1.0f, a.data(), 2, 0, b.data(), 2, 0, 0.0f, c.data(),
                  2, 0, 1, o);
    });
    expect_invalid("options.route", [&] { gemm_grouped(ctx, {&item, 1}, o); });
  }
  EXPECT_TRUE(test::same_bytes(c, c0));
  EXPECT_THROW(Context(Device{static_cast<BackendKind>(7), 0}), Error);
}

// A grouped item's scalars are values of its own scalar type: an imaginary part on a real
// item, or a double that a float item cannot hold, would run as some other value.
TEST(HostileEnums, GroupedScalarsMustBeValuesOfTheItemsType) {
  Context ctx;
  const auto a = random_floats(4, 1), b = random_floats(4, 2);
  auto c = random_floats(4, 3);
  const auto c0 = c;
  auto item = make_item(Op::N, Op::N, 2, 2, 2, 1.0f, a.data(), 2, b.data(), 2, 0.0f, c.data(), 2);
  GemmItem it = item;
  it.alpha = {1.0, 0.5};
  expect_invalid("items[0].alpha", [&] { gemm_grouped(ctx, {&it, 1}); });
  it = item;
  it.beta = 1e300;
  expect_invalid("items[0].beta", [&] { gemm_grouped(ctx, {&it, 1}); });
  it = item;
  it.alpha = 0.1;  // not a float
  expect_invalid("items[0].alpha", [&] { gemm_grouped(ctx, {&it, 1}); });
  EXPECT_TRUE(test::same_bytes(c, c0));
  // NaN, infinities and float denormals are values of float.
  it = item;
  it.beta = std::numeric_limits<double>::infinity();
  it.alpha = std::numeric_limits<float>::denorm_min();
  EXPECT_NO_THROW(gemm_grouped(ctx, {&it, 1}));
}

// An operand whose element extent fits 64 bits can still overflow them in bytes.
TEST(HostileSizes, ByteExtentsThatOverflowAreRefused) {
  Context ctx;
  std::vector<double> a(4), b(4), c(4);
  const std::int64_t big = std::int64_t{1} << 61;  // elements: fits; bytes (x8): 2^64
  expect_invalid("lda", [&] {
    gemm<double>(ctx, Op::N, Op::N, 2, 2, 2, 1.0, a.data(), big, 0, b.data(), 2, 0, 0.0, c.data(),
                 2, 0, 1);
  });
  expect_invalid("stride_c", [&] {
    gemm<double>(ctx, Op::N, Op::N, 2, 2, 2, 1.0, a.data(), 2, 0, b.data(), 2, 0, 0.0, c.data(), 2,
                 big / 2, 3);
  });
  const double* as[] = {a.data()};
  const double* bs[] = {b.data()};
  double* cs[] = {c.data()};
  expect_invalid(
      "ldc", [&] { gemm<double>(ctx, Op::N, Op::N, 2, 2, 2, 1.0, as, 2, bs, 2, 0.0, cs, big, 1); });
  auto item = make_item(Op::N, Op::N, 2, 2, 2, 1.0, a.data(), 2, b.data(), big, 0.0, c.data(), 2);
  expect_invalid("items[0].ldb", [&] { gemm_grouped(ctx, {&item, 1}); });
}

// Found by the API fuzzer: OpenBLAS 0.3.21 takes a complex beta of (0, NaN) for zero and
// overwrites C, where reference BLAS (beta != 0) makes every element NaN.
TEST(HostileScalars, ComplexBetaWithANaNPartIsNotZeroForAnyCandidate) {
  Context ctx;
  using z = std::complex<double>;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<z> a(9, z(0.5, 0.25)), b(9, z(-0.5, 1.0));
  for (const char* pin : {"openblas", "openblas:par=item", "cpu.small", "cpu.tile", "cpu.direct"}) {
    for (z beta : {z(0, nan), z(-0.0, nan), z(nan, 0)}) {
      std::vector<z> c(9, z(2.0, -1.0));
      Options o;
      o.pin = pin;
      gemm<z>(ctx, Op::N, Op::N, 3, 3, 3, z(1, 0), a.data(), 3, 0, b.data(), 3, 0, beta, c.data(),
              3, 0, 1, o);
      for (const z& x : c) {
        EXPECT_TRUE(std::isnan(x.real()) || std::isnan(x.imag()))
            << pin << " beta (" << beta.real() << ", " << beta.imag() << "): " << x;
      }
    }
  }
}

// The move left the source's state null and a call through it dereferenced it (UBSan).
TEST(HostileContext, AMovedFromContextThrows) {
  Context ctx;
  Context other(std::move(ctx));
  std::vector<float> a(4, 1.0f), b(4, 1.0f), c(4, 0.0f);
  expect_invalid("ctx", [&] {
    gemm<float>(ctx, Op::N, Op::N, 2, 2, 2, 1.0f, a.data(), 2, 0, b.data(), 2, 0, 0.0f, c.data(), 2,
                0, 1);
  });
  auto item = make_item(Op::N, Op::N, 2, 2, 2, 1.0f, a.data(), 2, b.data(), 2, 0.0f, c.data(), 2);
  expect_invalid("ctx", [&] { gemm_grouped(ctx, {&item, 1}); });
  expect_invalid("ctx", [&] { (void)ctx.device(); });
  Context assigned;
  assigned = std::move(other);
  expect_invalid("ctx", [&] { (void)other.stream(); });
  gemm<float>(assigned, Op::N, Op::N, 2, 2, 2, 1.0f, a.data(), 2, 0, b.data(), 2, 0, 0.0f, c.data(),
              2, 0, 1);
  EXPECT_EQ(c[0], 2.0f);
}

// gemm_groups under bad groups: each is refused, naming the group and its field, before any
// group runs (the good group before it included); empty and zero-sized groups are no-ops.
TEST(HostileGroups, BadGroupsAreNamedAndWriteNothing) {
  Context ctx;
  const auto a = random_floats(16, 3), b = random_floats(16, 4);
  std::vector<float> c(16, 9.0f);
  const float* pa[] = {a.data()};
  const float* pb[] = {b.data()};
  float* pc[] = {c.data()};
  GemmGroup<float> good;
  good.m = good.n = good.k = 4;
  good.lda = good.ldb = good.ldc = 4;
  good.a = pa;
  good.b = pb;
  good.c = pc;
  good.count = 1;
  struct Case {
    const char* field;
    void (*spoil)(GemmGroup<float>&);
  };
  const Case cases[] = {
      {"groups[1].a", [](GemmGroup<float>& g) { g.a = nullptr; }},
      {"groups[1].c", [](GemmGroup<float>& g) { g.c = nullptr; }},
      {"groups[1].m", [](GemmGroup<float>& g) { g.m = -1; }},
      {"groups[1].count", [](GemmGroup<float>& g) { g.count = -3; }},
      {"groups[1].lda", [](GemmGroup<float>& g) { g.lda = 3; }},
      {"groups[1].ldc", [](GemmGroup<float>& g) { g.ldc = 0; }},
      {"groups[1].ta", [](GemmGroup<float>& g) { g.ta = static_cast<Op>(7); }},
  };
  for (const Case& k : cases) {
    std::vector<GemmGroup<float>> groups = {good, good};
    k.spoil(groups[1]);
    try {
      gemm_groups<float>(ctx, groups);
      ADD_FAILURE() << k.field << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.argument(), k.field) << e.what();
    }
    for (float x : c) ASSERT_EQ(x, 9.0f) << k.field << ": C written";
  }
  gemm_groups<float>(ctx, std::span<const GemmGroup<float>>{});
  GemmGroup<float> empty = good;
  empty.count = 0;
  GemmGroup<float> no_rows = good;
  no_rows.m = 0;
  const std::vector<GemmGroup<float>> nothing = {empty, no_rows};
  gemm_groups<float>(ctx, nothing);
  for (float x : c) EXPECT_EQ(x, 9.0f);
}

}  // namespace
}  // namespace gemmroute
