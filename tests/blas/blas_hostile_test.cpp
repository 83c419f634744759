// The drop-in under hostile input: a NaN alpha in one group of cblas_sgemm_batch, with that
// group's C ending at a guard page. The NaN group joined another group and ran with its ldc
// (64), past the end of its C: SIGSEGV. Each group now runs with its own arguments.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <limits>
#include <vector>

extern "C" void cblas_sgemm_batch(int layout, const int* transa_array, const int* transb_array,
                                  const int* m_array, const int* n_array, const int* k_array,
                                  const float* alpha_array, const float** a_array,
                                  const int* lda_array, const float** b_array, const int* ldb_array,
                                  const float* beta_array, float** c_array, const int* ldc_array,
                                  int group_count, const int* group_size);

namespace {

// `count` floats ending exactly where a PROT_NONE page begins.
class GuardedFloats {
 public:
  explicit GuardedFloats(std::size_t count) {
    page_ = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    base_ = mmap(nullptr, 2 * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base_ == MAP_FAILED) throw std::runtime_error("mmap");
    mprotect(static_cast<char*>(base_) + page_, page_, PROT_NONE);
    data_ = reinterpret_cast<float*>(static_cast<char*>(base_) + page_) - count;
  }
  ~GuardedFloats() { munmap(base_, 2 * page_); }
  float* data() { return data_; }

 private:
  std::size_t page_ = 0;
  void* base_ = nullptr;
  float* data_ = nullptr;
};

TEST(BlasHostile, NaNAlphaGroupRunsWithItsOwnLdc) {
  constexpr int kNoTrans = 111, kColMajor = 102;
  const float a[4] = {1, 0, 0, 1}, b[4] = {2, 0, 0, 2};
  std::vector<float> c0(64 * 2, 5.0f);
  GuardedFloats c1(4);
  for (int i = 0; i < 4; ++i) c1.data()[i] = 7.0f;
  const int trans[2] = {kNoTrans, kNoTrans}, two[2] = {2, 2}, ldc[2] = {64, 2}, size[2] = {1, 1};
  const float alpha[2] = {1.0f, std::numeric_limits<float>::quiet_NaN()}, beta[2] = {0, 0};
  const float* as[2] = {a, a};
  const float* bs[2] = {b, b};
  float* cs[2] = {c0.data(), c1.data()};
  cblas_sgemm_batch(kColMajor, trans, trans, two, two, two, alpha, as, two, bs, two, beta, cs, ldc,
                    2, size);
  EXPECT_EQ(c0[0], 2.0f);
  EXPECT_EQ(c0[65], 2.0f);
  EXPECT_EQ(c0[2], 5.0f);
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(std::isnan(c1.data()[i])) << c1.data()[i];
}

}  // namespace
