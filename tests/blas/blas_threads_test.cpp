// Concurrent callers: eight threads make their first BLAS call at the same moment (so the
// process's one Context is created under contention) and then keep calling the single and
// batch routines with shapes of their own; every result is checked against the oracle.
#include <gtest/gtest.h>

#include <atomic>
#include <complex>
#include <latch>
#include <random>
#include <thread>
#include <vector>

#include "blas_api.hpp"
#include "reference.hpp"

using namespace blas_test;
using z64 = std::complex<double>;

namespace {

int one_round(std::mt19937_64& rng, int round) {
  std::uniform_int_distribution<int> size(1, 40);
  const int m = size(rng), n = size(rng), k = size(rng);
  int bad = 0;
  switch (round % 4) {
    case 0: {  // cblas_dgemm, row-major, B transposed
      auto a = random_vector<double>(m * k, rng), b = random_vector<double>(n * k, rng);
      auto c = random_vector<double>(m * n, rng);
      const auto c0 = c;
      cblas_dgemm(kRowMajor, kNoTrans, kTrans, m, n, k, 0.8, a.data(), k, b.data(), k, -0.3,
                  c.data(), n);
      bad += check_gemm<double>(true, 'N', 'T', m, n, k, 0.8, a.data(), k, b.data(), k, -0.3,
                                c0.data(), c.data(), n);
      break;
    }
    case 1: {  // dgemm_, column-major, A transposed, padded ldc
      auto a = random_vector<double>(k * m, rng), b = random_vector<double>(k * n, rng);
      const int ldc = m + 2;
      auto c = random_vector<double>(ldc * n, rng);
      const auto c0 = c;
      const double alpha = 1.1, beta = 0.0;
      dgemm_("T", "N", &m, &n, &k, &alpha, a.data(), &k, b.data(), &k, &beta, c.data(), &ldc);
      bad += check_gemm<double>(false, 'T', 'N', m, n, k, alpha, a.data(), k, b.data(), k, beta,
                                c0.data(), c.data(), ldc);
      break;
    }
    case 2: {  // zgemm_, conjugate transpose of B
      auto a = random_vector<z64>(m * k, rng), b = random_vector<z64>(n * k, rng);
      auto c = random_vector<z64>(m * n, rng);
      const auto c0 = c;
      const z64 alpha(0.6, -0.2), beta(1.0, 0.5);
      zgemm_("N", "C", &m, &n, &k, &alpha, a.data(), &m, b.data(), &n, &beta, c.data(), &m);
      bad += check_gemm<z64>(false, 'N', 'C', m, n, k, alpha, a.data(), m, b.data(), n, beta,
                             c0.data(), c.data(), m);
      break;
    }
    default: {  // strided batch of 5
      const int batch = 5, sa = m * k, sb = k * n, sc = m * n;
      auto a = random_vector<double>(sa * batch, rng), b = random_vector<double>(sb * batch, rng);
      auto c = random_vector<double>(sc * batch, rng);
      const auto c0 = c;
      cblas_dgemm_batch_strided(kColMajor, kNoTrans, kNoTrans, m, n, k, 1.0, a.data(), m, sa,
                                b.data(), k, sb, 1.0, c.data(), m, sc, batch);
      for (int i = 0; i < batch; ++i) {
        bad +=
            check_gemm<double>(false, 'N', 'N', m, n, k, 1.0, a.data() + i * sa, m,
                               b.data() + i * sb, k, 1.0, c0.data() + i * sc, c.data() + i * sc, m);
      }
      break;
    }
  }
  return bad;
}

TEST(BlasThreads, ConcurrentCallersGetCorrectResults) {
  constexpr int kThreads = 8, kRounds = 60;
  std::latch start(kThreads);
  std::atomic<int> bad{0}, calls{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(1000 + t);
      start.arrive_and_wait();  // the first calls race for the Context
      for (int r = 0; r < kRounds; ++r) {
        bad += one_round(rng, r + t);
        ++calls;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(calls.load(), kThreads * kRounds);
  EXPECT_EQ(bad.load(), 0) << "elements outside the bound, over all threads";
}

}  // namespace
