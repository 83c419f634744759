// The mixed dtypes on the CPU (bf16 and f16 inputs, f32 with TF32 compute): cpu.direct against
// the long-double reference with bounds that include the output's rounding, and bit for bit
// against the arithmetic mixed_kernel.cpp states; the BLAS edge semantics; every other
// candidate refusing with a reason (can_run <=> launch); the public API's mixed entry points
// and Options::tf32.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "core/backend.hpp"
#include "cpu/candidates.hpp"
#include "cpu/libraries.hpp"
#include "gemmroute/error.hpp"
#include "gemmroute/gemmroute.hpp"
#include "mixed_support.hpp"
#include "reference/reference.hpp"

namespace gemmroute {
namespace {

const Exec kExec;

const Backend& cpu_backend() {
  static auto backend = make_backend(Device::cpu());
  return *backend;
}

using namespace test;  // NOLINT: the mixed helpers

TEST(Scalars, ConversionsRoundToNearestEven) {
  EXPECT_EQ(to_bfloat16(1.0f).bits, 0x3f80);
  EXPECT_EQ(to_float(bfloat16{0x3f80}), 1.0f);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1); just above rounds up.
  EXPECT_EQ(to_bfloat16(1.0f + 0x1p-8f).bits, 0x3f80);
  EXPECT_EQ(to_bfloat16(1.0f + 0x1p-8f + 0x1p-20f).bits, 0x3f81);
  EXPECT_EQ(to_bfloat16(1.0f + 3 * 0x1p-8f).bits, 0x3f82);  // tie, odd below: up to even
  EXPECT_TRUE(std::isnan(to_float(to_bfloat16(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_EQ(to_float(to_bfloat16(std::numeric_limits<float>::max())),
            std::numeric_limits<float>::infinity());
  EXPECT_EQ(to_float16(1.0f).bits, 0x3c00);
  EXPECT_EQ(to_float16(-2.0f).bits, 0xc000);
  EXPECT_EQ(to_float16(65504.0f).bits, 0x7bff);
  EXPECT_EQ(to_float16(65520.0f).bits, 0x7c00);  // the tie above the largest rounds to Inf
  EXPECT_EQ(to_float16(0x1p-24f).bits, 0x0001);  // the least subnormal
  EXPECT_EQ(to_float16(0x1p-25f).bits, 0x0000);  // half of it: a tie, to even (zero)
  EXPECT_EQ(to_float16(1.0f + 0x1p-11f).bits, 0x3c00);
  EXPECT_EQ(to_float16(1.0f + 0x1p-11f + 0x1p-20f).bits, 0x3c01);
  EXPECT_TRUE(std::isnan(to_float(to_float16(std::numeric_limits<float>::quiet_NaN()))));
  for (std::uint32_t h = 0; h < 0x10000; ++h) {  // every f16 converts to f32 and back exactly
    const float16 x{static_cast<std::uint16_t>(h)};
    const float f = to_float(x);
    if (std::isnan(f)) continue;
    ASSERT_EQ(to_float16(f).bits, h) << h;
    ASSERT_EQ(to_bfloat16(to_float(bfloat16{static_cast<std::uint16_t>(h)})).bits, h) << h;
  }
  EXPECT_EQ(round_to_tf32(1.0f + 0x1p-11f), 1.0f);
  EXPECT_EQ(round_to_tf32(1.0f + 0x1p-11f + 0x1p-20f), 1.0f + 0x1p-10f);
}

// cpu.direct: every mixed dtype, form and storage, sizes from 1 past one 8-row group and k
// past a few hundred, against the reference and bit for bit against the stated model; the
// padding of C and all of A and B unchanged.
TEST(CpuMixed, DirectMatchesTheReferenceAndTheStatedArithmetic) {
  const Candidate& direct = cpu::direct_candidate();
  std::mt19937_64 rng(2024);
  struct Shape {
    std::int64_t m, n, k, batch;
  };
  for (DType d : kMixed) {
    for (Op ta : {Op::N, Op::T}) {
      for (Op tb : {Op::N, Op::T}) {
        for (bool pointers : {false, true}) {
          for (Shape s : {Shape{1, 1, 1, 1}, Shape{3, 5, 7, 3}, Shape{9, 17, 33, 2},
                          Shape{16, 8, 300, 1}, Shape{33, 2, 65, 4}}) {
            SCOPED_TRACE(describe(d, ta, tb, s.m, s.n, s.k, s.batch, pointers));
            Case x = make_case(d, ta, tb, s.m, s.n, s.k, s.batch, pointers, rng);
            ASSERT_TRUE(direct.can_run(x.p).ok);
            const auto a0 = x.a, b0 = x.b, c0 = x.c;
            const auto want = model(x);
            direct.launch(x.p, kExec);
            EXPECT_EQ(x.a, a0);
            EXPECT_EQ(x.b, b0);
            EXPECT_TRUE(x.c == want) << "not the stated arithmetic";  // padding included
            const auto r = check(x, c0);
            EXPECT_TRUE(r.ok) << r.message;
          }
        }
      }
    }
  }
}

// The bound is tight enough to see a wrong answer: C off by two units in its last place (or
// f32 results rounded to bf16 for a bf16:f32:f32 call) fails, and NaN never passes.
TEST(CpuMixed, TheBoundRefusesWrongResultsAndNaN) {
  std::mt19937_64 rng(7);
  for (DType d :
       {DType(Scalar::bf16), DType(Scalar::f16), DType(Scalar::bf16, Scalar::f32, Compute::f32)}) {
    SCOPED_TRACE(to_string(d));
    Case x = make_case(d, Op::N, Op::N, 8, 8, 64, 1, false, rng);
    const auto c0 = x.c;
    cpu::direct_candidate().launch(x.p, kExec);
    ASSERT_TRUE(check(x, c0).ok);
    const auto good = x.c;
    const std::int64_t at = 3 + 2 * x.p.c.ld;
    if (d.out == Scalar::f32) {  // rounded to bf16: far beyond f32's bound
      store(Scalar::f32, x.c, at, to_float(to_bfloat16(load(Scalar::f32, x.c, at) * 1.01f)));
    } else {
      std::uint16_t h;
      std::memcpy(&h, x.c.data() + 2 * at, 2);
      h = static_cast<std::uint16_t>(h + 2);
      std::memcpy(x.c.data() + 2 * at, &h, 2);
    }
    EXPECT_FALSE(check(x, c0).ok);
    x.c = good;
    store(d.out, x.c, at, std::numeric_limits<float>::quiet_NaN());
    EXPECT_FALSE(check(x, c0).ok);
  }
}

TEST(CpuMixed, BlasEdgeSemantics) {
  std::mt19937_64 rng(99);
  const Candidate& direct = cpu::direct_candidate();
  for (DType d : kMixed) {
    SCOPED_TRACE(to_string(d));
    // beta == 0: NaN in C never leaks.
    Case x = make_case(d, Op::N, Op::T, 5, 6, 7, 2, false, rng);
    x.p.beta = 0.0;
    for (std::int64_t i = 0; i < 2; ++i)
      for (std::int64_t j = 0; j < 6; ++j)
        for (std::int64_t r = 0; r < 5; ++r)
          store(d.out, x.c, i * x.p.c.stride + j * x.p.c.ld + r, std::nanf(""));
    direct.launch(x.p, kExec);
    for (std::int64_t i = 0; i < 2; ++i)
      for (std::int64_t j = 0; j < 6; ++j)
        for (std::int64_t r = 0; r < 5; ++r)
          EXPECT_FALSE(std::isnan(load(d.out, x.c, i * x.p.c.stride + j * x.p.c.ld + r)));
    // alpha == 0 with NaN in A and B, and k == 0: C is beta * C0 rounded, A and B unread.
    for (bool k_zero : {false, true}) {
      Case y = make_case(d, Op::N, Op::N, 4, 3, k_zero ? 0 : 5, 2, false, rng);
      if (!k_zero) {
        y.p.alpha = 0.0;
        for (std::size_t i = 0; i + 1 < y.a.size(); i += 2) y.a[i + 1] = y.a[i] = 0xff;
        for (std::size_t i = 0; i + 1 < y.b.size(); i += 2) y.b[i + 1] = y.b[i] = 0xff;
      }
      const auto want = model(y);
      direct.launch(y.p, kExec);
      EXPECT_TRUE(y.c == want) << (k_zero ? "k == 0" : "alpha == 0");
    }
  }
}

// Every CPU candidate either runs a mixed problem correctly or refuses it with a reason, and
// then its launch throws not_runnable.
TEST(CpuMixed, EveryCandidateRunsOrRefusesWithAReason) {
  std::mt19937_64 rng(5);
  std::vector<const Candidate*> all(cpu_backend().candidates().begin(),
                                    cpu_backend().candidates().end());
  for (const Candidate* c : all) {
    for (DType d : kMixed) {
      SCOPED_TRACE(std::string(c->spelling()) + " " + to_string(d));
      Case x = make_case(d, Op::T, Op::N, 7, 9, 11, 3, false, rng);
      const auto c0 = x.c;
      const Verdict v = c->can_run(x.p);
      if (v.ok) {
        EXPECT_NO_THROW(c->launch(x.p, kExec));
        const auto r = check(x, c0);
        EXPECT_TRUE(r.ok) << r.message;
      } else {
        EXPECT_STRNE(v.reason, "");
        try {
          c->launch(x.p, kExec);
          ADD_FAILURE() << "launch ran a problem can_run refused";
        } catch (const Error& e) {
          EXPECT_EQ(e.code(), Errc::not_runnable);
        }
        EXPECT_EQ(x.c, c0) << "a refused launch wrote C";
      }
    }
  }
}

// OpenBLAS runs bf16:f32:f32 exactly where the library has cblas_sbgemm, and says so where
// not (Debian's build lacks it).
TEST(CpuMixed, OpenBlasBf16FollowsTheLibrary) {
  std::mt19937_64 rng(3);
  Case x =
      make_case({Scalar::bf16, Scalar::f32, Compute::f32}, Op::N, Op::N, 6, 5, 40, 2, false, rng);
  const Verdict v = cpu::openblas_candidate().can_run(x.p);
  if (!cpu::openblas_library().ok()) GTEST_SKIP() << "no OpenBLAS";
  EXPECT_EQ(v.ok, cpu::openblas_library().sbgemm != nullptr) << v.reason;
  if (!v.ok) {
    EXPECT_STREQ(v.reason, "this OpenBLAS lacks cblas_sbgemm (bf16)");
  }
  Case y = make_case(Scalar::bf16, Op::N, Op::N, 6, 5, 40, 2, false, rng);
  EXPECT_FALSE(cpu::openblas_candidate().can_run(y.p).ok) << "bf16 out is not OpenBLAS's";
}

// The public entry points: strided and pointer-array, column- and row-major, through the
// Context's walk (cpu.direct runs them); Options::tf32 changes what an f32 call computes.
TEST(CpuMixed, PublicApiRunsMixedTypes) {
  Context ctx(Device::cpu());
  std::mt19937_64 rng(11);
  const std::int64_t m = 13, n = 6, k = 50;
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<bfloat16> a(m * k * 2), b(k * n * 2);
  for (auto& v : a) v = to_bfloat16(u(rng));
  for (auto& v : b) v = to_bfloat16(u(rng));
  std::vector<float> c(m * n * 2, 0.0f);
  gemm(ctx, Op::N, Op::N, m, n, k, 1.0f, a.data(), m, m * k, b.data(), k, k * n, 0.0f, c.data(), m,
       m * n, 2);
  for (std::int64_t item = 0; item < 2; ++item) {
    for (std::int64_t j = 0; j < n; ++j) {
      for (std::int64_t i = 0; i < m; ++i) {
        float s = 0;
        for (std::int64_t q = 0; q < k; ++q)
          s = std::fma(to_float(a[item * m * k + i + q * m]), to_float(b[item * k * n + q + j * k]),
                       s);
        ASSERT_EQ(c[item * m * n + i + j * m], s);
      }
    }
  }
  // Row-major pointer arrays of f16 to f16: the same numbers as the column-major transpose.
  std::vector<float16> ha(m * k), hb(k * n), hc(m * n), hct(m * n);
  for (auto& v : ha) v = to_float16(u(rng));
  for (auto& v : hb) v = to_float16(u(rng));
  const float16* pa[] = {ha.data()};
  const float16* pb[] = {hb.data()};
  float16* pc[] = {hc.data()};
  gemm(ctx, Order::row_major, Op::N, Op::N, m, n, k, 0.5f, pa, k, pb, n, 0.0f, pc, n, 1);
  gemm(ctx, Op::N, Op::N, n, m, k, 0.5f, hb.data(), n, 0, ha.data(), k, 0, 0.0f, hct.data(), n, 0,
       1);
  for (std::int64_t i = 0; i < m * n; ++i) ASSERT_EQ(hc[i].bits, hct[i].bits) << i;

  // f32: TF32 only when asked. With it, inputs are rounded to 10 bits (the stated model).
  std::vector<float> fa(m * k), fb(k * n), f32c(m * n), tf32c(m * n);
  for (auto& v : fa) v = u(rng);
  for (auto& v : fb) v = u(rng);
  gemm(ctx, Op::N, Op::N, m, n, k, 1.0f, fa.data(), m, 0, fb.data(), k, 0, 0.0f, f32c.data(), m, 0,
       1);
  Options tf32;
  tf32.tf32 = true;
  gemm(ctx, Op::N, Op::N, m, n, k, 1.0f, fa.data(), m, 0, fb.data(), k, 0, 0.0f, tf32c.data(), m, 0,
       1, tf32);
  int differ = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    for (std::int64_t i = 0; i < m; ++i) {
      float s = 0;
      for (std::int64_t q = 0; q < k; ++q)
        s = std::fma(round_to_tf32(fa[i + q * m]), round_to_tf32(fb[q + j * k]), s);
      ASSERT_EQ(tf32c[i + j * m], s);
      differ += f32c[i + j * m] != s;
    }
  }
  EXPECT_GT(differ, 0) << "without Options::tf32 an f32 call must not compute in TF32";
}

TEST(CpuMixed, ValidationNamesTheTypes) {
  Context ctx(Device::cpu());
  std::vector<bfloat16> a(4), b(4);
  std::vector<float> c(4);
  // alpha must be a float value (the compute type's).
  GemmItem item;
  item.dtype = DType(Scalar::bf16, Scalar::f32, Compute::f32);
  item.m = item.n = item.k = 2;
  item.a = a.data();
  item.b = b.data();
  item.c = c.data();
  item.lda = item.ldb = item.ldc = 2;
  item.alpha = 0.1;  // not a float
  try {
    gemm_grouped(ctx, std::span<const GemmItem>(&item, 1));
    ADD_FAILURE() << "a double alpha for f32 compute was taken";
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), "items[0].alpha");
    EXPECT_NE(e.message().find("not a value of f32"), std::string::npos) << e.message();
  }
  item.alpha = 1.0;
  item.dtype = DType(Scalar::bf16, Scalar::f16, Compute::f32);  // not supported
  try {
    gemm_grouped(ctx, std::span<const GemmItem>(&item, 1));
    ADD_FAILURE() << "bf16:f16:f32 was taken";
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), "items[0].dtype");
  }
  // A grouped call of bf16:f32:f32 items runs (cpu.direct), C = A B.
  item.dtype = DType(Scalar::bf16, Scalar::f32, Compute::f32);
  for (int i = 0; i < 4; ++i) a[i] = b[i] = to_bfloat16(0.5f + 0.25f * static_cast<float>(i));
  gemm_grouped(ctx, std::span<const GemmItem>(&item, 1));
  EXPECT_EQ(c[0], 0.5f * 0.5f + 1.0f * 0.75f);
}

}  // namespace
}  // namespace gemmroute
