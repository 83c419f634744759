// The drop-in under hostile input: a NaN alpha in one group of cblas_sgemm_batch, with that
// group's C ending at a guard page. The NaN group joined another group and ran with its ldc
// (64), past the end of its C: SIGSEGV. Each group now runs with its own arguments.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "guarded.hpp"

extern "C" void cblas_sgemm_batch(int layout, const int* transa_array, const int* transb_array,
                                  const int* m_array, const int* n_array, const int* k_array,
                                  const float* alpha_array, const float** a_array,
                                  const int* lda_array, const float** b_array, const int* ldb_array,
                                  const float* beta_array, float** c_array, const int* ldc_array,
                                  int group_count, const int* group_size);

namespace {

TEST(BlasHostile, NaNAlphaGroupRunsWithItsOwnLdc) {
  constexpr int kNoTrans = 111, kColMajor = 102;
  const float a[4] = {1, 0, 0, 1}, b[4] = {2, 0, 0, 2};
  std::vector<float> c0(64 * 2, 5.0f);
  const gemmroute::test::GuardedBytes guarded(4 * sizeof(float));
  float* const c1 = reinterpret_cast<float*>(guarded.end()) - 4;  // ends at the guard page
  for (int i = 0; i < 4; ++i) c1[i] = 7.0f;
  const int trans[2] = {kNoTrans, kNoTrans}, two[2] = {2, 2}, ldc[2] = {64, 2}, size[2] = {1, 1};
  const float alpha[2] = {1.0f, std::numeric_limits<float>::quiet_NaN()}, beta[2] = {0, 0};
  const float* as[2] = {a, a};
  const float* bs[2] = {b, b};
  float* cs[2] = {c0.data(), c1};
  cblas_sgemm_batch(kColMajor, trans, trans, two, two, two, alpha, as, two, bs, two, beta, cs, ldc,
                    2, size);
  EXPECT_EQ(c0[0], 2.0f);
  EXPECT_EQ(c0[65], 2.0f);
  EXPECT_EQ(c0[2], 5.0f);
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(std::isnan(c1[i])) << c1[i];
}

}  // namespace
