// Operand sets and the correctness check, on a fake device with a 64 KiB pretend cache.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/backend.hpp"
#include "fakes.hpp"
#include "measure/measure.hpp"
#include "measure/operands.hpp"

namespace gemmroute::measure {
namespace {

const Exec kCpuExec;  // the CPU backend needs no execution resources

using testing::FakeDevice;

Key key(Scalar s, Op ta, Op tb, Layout l, std::int64_t m, std::int64_t n, std::int64_t k,
        std::int64_t b) {
  return Key{s, ta, tb, l, m, n, k, b};
}

TEST(Operands, SetsTogetherCoverThreeTimesTheCache) {
  FakeDevice dev(64 * 1024);
  for (Key k : {key(Scalar::f32, Op::N, Op::N, Layout::packed, 4, 4, 4, 1),
                key(Scalar::c64, Op::T, Op::C, Layout::strided, 13, 7, 5, 9),
                key(Scalar::f64, Op::N, Op::T, Layout::packed, 64, 64, 64, 4)}) {
    OperandSets sets(k, dev);
    EXPECT_GE(sets.bytes(), 3 * dev.cache_bytes()) << to_string(k);
    EXPECT_GE(sets.count(), 2);
    EXPECT_EQ(key_of(sets.problem(0)), k);
    EXPECT_EQ(key_of(sets.problem(sets.count() - 1)), k);
  }
}

TEST(Operands, ScalarsAreNonzeroAndValuesAreNotSmallIntegers) {
  FakeDevice dev;
  OperandSets sets(key(Scalar::f64, Op::N, Op::N, Layout::packed, 8, 8, 8, 2), dev);
  const Problem& p = sets.problem(0);
  EXPECT_NE(p.alpha, std::complex<double>(0));
  EXPECT_NE(p.beta, std::complex<double>(0));
  const double* a = static_cast<const double*>(p.a.base);
  int integers = 0;
  for (int i = 0; i < 64; ++i) integers += a[i] == static_cast<double>(static_cast<long>(a[i]));
  EXPECT_LT(integers, 2);
}

TEST(Operands, ZeroBetaKeepsAlphaRandom) {
  FakeDevice dev;
  OperandOptions o;
  o.zero_beta = true;
  OperandSets sets(key(Scalar::c32, Op::N, Op::N, Layout::packed, 4, 4, 4, 2), dev, o);
  for (std::int64_t i = 0; i < sets.count(); ++i) {
    EXPECT_EQ(sets.problem(i).beta, std::complex<double>(0));
    EXPECT_NE(sets.problem(i).alpha, std::complex<double>(1));
  }
}

TEST(Operands, RotationFactorIsHonoured) {
  FakeDevice dev(1 << 20);
  OperandOptions o;
  o.rotation_factor = 5;
  const Key k = key(Scalar::f32, Op::N, Op::N, Layout::packed, 16, 16, 16, 16);
  EXPECT_GE(sets_for(k, dev.cache_bytes(), o) * set_bytes(k), 5 * dev.cache_bytes());
}

TEST(Operands, ArenaIsReusedBetweenPoints) {
  FakeDevice dev;
  Arena arena;
  const Key k = key(Scalar::f32, Op::N, Op::N, Layout::packed, 8, 8, 8, 8);
  const Problem* list = nullptr;
  {
    OperandSets a(k, dev, {}, &arena);
    list = &a.problem(0);
  }
  {
    OperandSets b(k, dev, {}, &arena);
    // The sets' problems too: the same list, not made anew (its pages already faulted in).
    EXPECT_EQ(&b.problem(0), list);
    ASSERT_GT(b.count(), 1);
    EXPECT_EQ(static_cast<const char*>(b.problem(1).a.base) -
                  static_cast<const char*>(b.problem(0).a.base),
              set_bytes(k));
  }
  EXPECT_EQ(dev.allocations, 1);
}

TEST(Check, TheGenericNativeKernelPasses) {
  FakeDevice dev;
  auto backend = make_backend(Device::cpu());
  const Candidate& direct = backend->last_resort_native();
  for (Key k : {key(Scalar::f32, Op::N, Op::T, Layout::strided, 13, 5, 7, 3),
                key(Scalar::c32, Op::C, Op::N, Layout::packed, 4, 9, 6, 2)}) {
    OperandSets sets(k, dev);
    double worst = -1;
    EXPECT_EQ(check_arm(sets, arm_for(direct, kCpuExec), dev, 1e9, &worst), "") << to_string(k);
    EXPECT_GE(worst, 0);
    EXPECT_LE(worst, 1);
  }
}

TEST(Check, AWrongResultIsAFailureAndSetZeroIsRestored) {
  FakeDevice dev;
  const Key k = key(Scalar::f64, Op::N, Op::N, Layout::packed, 6, 6, 6, 4);
  OperandSets sets(k, dev);
  const double c00 = *static_cast<const double*>(sets.problem(0).c.base);
  LaunchArm wrong{"wrong", {}, [](const Problem& p) {
                    // Correct everywhere but one element of the last item.
                    auto backend = make_backend(Device::cpu());
                    backend->last_resort_native().launch(p, kCpuExec);
                    p.item_c<double>(p.batch - 1)[5] += 1e-3;
                  }};
  std::string why = check_arm(sets, wrong, dev, 1e9);
  EXPECT_NE(why.find("wrong result"), std::string::npos) << why;
  EXPECT_EQ(*static_cast<const double*>(sets.problem(0).c.base), c00);
}

TEST(Check, SampledChecksStillSeeTheFirstAndLastItems) {
  FakeDevice dev;
  const Key k = key(Scalar::f32, Op::N, Op::N, Layout::packed, 8, 8, 8, 64);
  OperandSets sets(k, dev);
  for (bool last : {false, true}) {
    LaunchArm wrong{"wrong", {}, [last](const Problem& p) {
                      make_backend(Device::cpu())->last_resort_native().launch(p, kCpuExec);
                      p.item_c<float>(last ? p.batch - 1 : 0)[0] += 1.0f;
                    }};
    // Budget of 3 items' work: items 0, 31 or 32, 63 are checked.
    EXPECT_NE(check_arm(sets, wrong, dev, 3 * 512.0), "") << last;
  }
}

// A GEMV-like item (one column of C, m k far over the budget) is checked on row blocks at the
// top and bottom of C: a wrong first or last element is still seen, and the reference's work
// stays near the budget instead of m k.
TEST(Check, OneLongColumnIsCheckedAtItsEdgeRows) {
  FakeDevice dev;
  const Key k = key(Scalar::f32, Op::T, Op::N, Layout::packed, 512, 1, 512, 1);
  OperandSets sets(k, dev);
  for (bool last : {false, true}) {
    LaunchArm wrong{"wrong", {}, [last](const Problem& p) {
                      make_backend(Device::cpu())->last_resort_native().launch(p, kCpuExec);
                      p.item_c<float>(0)[last ? p.m - 1 : 0] += 1.0f;
                    }};
    EXPECT_NE(check_arm(sets, wrong, dev, 8 * 512.0), "") << last;
  }
  LaunchArm right{"right", {}, [](const Problem& p) {
                    make_backend(Device::cpu())->last_resort_native().launch(p, kCpuExec);
                  }};
  EXPECT_EQ(check_arm(sets, right, dev, 8 * 512.0), "");
}

// Checks of one point share a snapshot of set 0: each check starts from the same C, and a check
// that wrote into A or B restores A and B too.
TEST(Check, ASharedSnapshotRestoresSetZero) {
  FakeDevice dev;
  const Key k = key(Scalar::f64, Op::N, Op::N, Layout::packed, 6, 6, 6, 2);
  OperandSets sets(k, dev);
  const double a00 = *static_cast<const double*>(sets.problem(0).a.base);
  const double c00 = *static_cast<const double*>(sets.problem(0).c.base);
  std::vector<char> snapshot;
  LaunchArm scribble{"scribble", {}, [](const Problem& p) {
                       *static_cast<double*>(const_cast<void*>(p.a.base)) += 1.0;
                     }};
  const auto backend = make_backend(Device::cpu());
  LaunchArm direct = arm_for(backend->last_resort_native(), kCpuExec);
  EXPECT_EQ(check_arm(sets, direct, dev, 1e9, nullptr, nullptr, &snapshot), "");
  EXPECT_EQ(*static_cast<const double*>(sets.problem(0).c.base), c00);
  EXPECT_EQ(check_arm(sets, scribble, dev, 1e9, nullptr, nullptr, &snapshot), "wrote into A or B");
  EXPECT_EQ(*static_cast<const double*>(sets.problem(0).a.base), a00);
  EXPECT_EQ(check_arm(sets, direct, dev, 1e9, nullptr, nullptr, &snapshot), "");
}

TEST(Check, ALaunchThatThrowsIsAnError) {
  FakeDevice dev;
  const Key k = key(Scalar::f32, Op::N, Op::N, Layout::packed, 4, 4, 4, 1);
  OperandSets sets(k, dev);
  LaunchArm bad{"bad", {}, [](const Problem&) { throw std::runtime_error("boom"); }};
  EXPECT_EQ(check_arm(sets, bad, dev, 1e9), "launch threw: boom");
}

TEST(MeasureArms, FailedAndUnrunnableArmsAreNotTimed) {
  FakeDevice dev;
  const Key k = key(Scalar::f32, Op::N, Op::N, Layout::packed, 5, 5, 5, 3);
  auto backend = make_backend(Device::cpu());
  std::vector<LaunchArm> arms = {
      arm_for(backend->last_resort_native(), kCpuExec),
      {"never", [](const Problem&) { return Verdict::no("not this one"); }, [](const Problem&) {}},
      {"noop", {}, [](const Problem&) {}},  // leaves C as it was: wrong
  };
  MeasureOptions o;
  o.harness.warmup_us = 0;
  o.harness.min_sample_us = 1;
  PointReport r = measure_arms(k, arms, dev, o);
  ASSERT_EQ(r.arms.size(), 3u);
  EXPECT_EQ(r.arms[0].status, Status::ok);
  EXPECT_EQ(r.arms[0].stats.count, 7);
  EXPECT_EQ(r.arms[1].status, Status::not_runnable);
  EXPECT_EQ(r.arms[1].detail, "not this one");
  EXPECT_EQ(r.arms[2].status, Status::failed);
  EXPECT_EQ(r.arms[2].stats.count, 0);
  // A timed arm keeps its samples, one per repetition (what bench --overhead pairs up).
  ASSERT_EQ(r.arms[0].samples_us.size(), 7u);
  EXPECT_EQ(*std::min_element(r.arms[0].samples_us.begin(), r.arms[0].samples_us.end()),
            r.arms[0].stats.min);
  EXPECT_TRUE(r.arms[2].samples_us.empty());
  EXPECT_TRUE(r.arms[0].digest.has_value());
  EXPECT_FALSE(r.arms[1].digest.has_value());
  EXPECT_FALSE(r.arms[2].digest.has_value());
}

// The check records a digest of the C each arm wrote: arms that write the same bits share it,
// and one ulp anywhere in C (still correct by the check) gives another.
TEST(MeasureArms, ArmsThatWriteTheSameBitsShareADigest) {
  FakeDevice dev;
  const Key k = key(Scalar::c64, Op::C, Op::N, Layout::strided, 7, 9, 33, 3);
  auto backend = make_backend(Device::cpu());
  const Candidate& direct = backend->last_resort_native();
  auto nudged = [&direct](const Problem& p) {
    direct.launch(p, kCpuExec);
    auto* c = static_cast<double*>(const_cast<void*>(p.c.base)) + 2 * (p.c.ld * 8 + 6);
    *c = std::nextafter(*c, 2.0);  // item 0, C(6, 8).re
  };
  std::vector<LaunchArm> arms = {arm_for(direct, kCpuExec), arm_for(direct, kCpuExec),
                                 {"nudged", {}, nudged}};
  for (const char* spelling : {"cpu.tile", "cpu.small", "openblas"}) {
    if (const Candidate* c = backend->find(spelling)) arms.push_back(arm_for(*c, kCpuExec));
  }
  MeasureOptions o;
  o.harness.warmup_us = 0;
  o.harness.min_sample_us = 1;
  o.harness.repetitions = 1;
  PointReport r = measure_arms(k, arms, dev, o);
  for (const ArmResult& a : r.arms) {
    if (a.name == "cpu.small") continue;  // k > 16: not runnable
    ASSERT_EQ(a.status, Status::ok) << a.name << ": " << a.detail;
    ASSERT_TRUE(a.digest.has_value()) << a.name;
  }
  EXPECT_EQ(r.arms[0].digest, r.arms[1].digest);
  EXPECT_NE(r.arms[0].digest, r.arms[2].digest);
  EXPECT_EQ(r.arms[3].name, "cpu.tile");
  EXPECT_EQ(r.arms[0].digest, r.arms[3].digest);  // the native kernels share one order
}

TEST(OutputDigest, EveryBitAndTheLengthCount) {
  std::vector<unsigned char> bytes(37);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 7);
  const std::uint64_t d = output_digest(bytes.data(), bytes.size());
  EXPECT_EQ(d, output_digest(bytes.data(), bytes.size()));
  EXPECT_NE(d, output_digest(bytes.data(), bytes.size() - 1));
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      bytes[i] ^= static_cast<unsigned char>(1 << bit);
      EXPECT_NE(output_digest(bytes.data(), bytes.size()), d) << "byte " << i << " bit " << bit;
      bytes[i] ^= static_cast<unsigned char>(1 << bit);
    }
  }
}

}  // namespace
}  // namespace gemmroute::measure
