// The OpenMP threads serve one launch at a time (cpu/batch.hpp, ThreadClaim), and callers on
// more threads than cores get the bytes a lone caller gets.
#include <gtest/gtest.h>
#include <omp.h>

#include <latch>
#include <random>
#include <thread>
#include <vector>

#include "cpu/batch.hpp"
#include "gemmroute/gemmroute.hpp"
#include "support.hpp"

namespace gemmroute::cpu {
namespace {

TEST(ThreadClaim, OneHolderAtATimeAndNoneInsideAParallelRegion) {
  {
    const ThreadClaim first;
    ASSERT_TRUE(first);
    const ThreadClaim second;
    EXPECT_FALSE(second);
  }
  const ThreadClaim again;
  EXPECT_TRUE(again);
}

TEST(ThreadClaim, InsideAParallelRegionTheThreadsAreNotClaimed) {
  if (omp_get_max_threads() < 2) GTEST_SKIP() << "skipped: one OpenMP thread";
  int claimed = 0;
#pragma omp parallel num_threads(2) reduction(+ : claimed)
  {
    const ThreadClaim c;
    claimed += c ? 1 : 0;
  }
  EXPECT_EQ(claimed, 0);
}

// Eight callers at once, each a batch large enough to spread: whichever runs with the threads
// and whichever on its own thread, every C holds the bytes of the same call made alone.
TEST(ThreadClaim, ConcurrentCallersGetTheBytesOfALoneCaller) {
  constexpr int kCallers = 8;
  constexpr std::int64_t n = 24, batch = 64;
  std::mt19937_64 rng(5);
  std::vector<double> a(n * n * batch), b(n * n * batch), c0(n * n * batch);
  for (auto* v : {&a, &b, &c0}) {
    for (double& x : *v) x = test::random_scalar<double>(rng);
  }
  for (const char* pin : {"", "openblas", "cpu.tile", "cpu.direct"}) {
    Context ctx;
    Options o;
    o.pin = pin;
    auto call = [&](std::vector<double>& c) {
      gemm<double>(ctx, Op::N, Op::N, n, n, n, 0.75, a.data(), n, n * n, b.data(), n, n * n, -0.5,
                   c.data(), n, n * n, batch, o);
    };
    std::vector<double> alone = c0;
    call(alone);
    std::vector<std::vector<double>> got(kCallers, c0);
    std::latch start(kCallers);
    std::vector<std::thread> callers;
    for (int t = 0; t < kCallers; ++t) {
      callers.emplace_back([&, t] {
        start.arrive_and_wait();
        call(got[static_cast<std::size_t>(t)]);
      });
    }
    for (auto& th : callers) th.join();
    for (const auto& c : got) EXPECT_TRUE(test::same_bytes(c, alone)) << "pin '" << pin << "'";
  }
}

}  // namespace
}  // namespace gemmroute::cpu
