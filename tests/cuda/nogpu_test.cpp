// What a CUDA build does where no GPU is (CI): a CUDA Context says so with Error(unsupported),
// a stream handed to a CPU Context is refused, and the backends' default selections. Runs
// everywhere (label cuda, not gpu).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "core/backend.hpp"
#include "gemmroute/gemmroute.hpp"
#include "gpu.hpp"

namespace gemmroute {
namespace {

TEST(CudaWithoutGpu, AStreamOnTheCpuIsRefused) {
  cudaStream_t fake = reinterpret_cast<cudaStream_t>(0x1);
  EXPECT_THROW(Context(Device::cpu(), fake), Error);
}

// Where there is no GPU (CI), a CUDA Context says so; where there is one, this has nothing to
// test.
TEST(CudaWithoutGpu, AContextSaysThereIsNoDevice) {
  if (test::gpu_missing().empty()) GTEST_SKIP() << "skipped: a GPU is present";
  try {
    Context ctx(Device::cuda(0));
    ADD_FAILURE() << "a CUDA Context without a GPU";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::unsupported);
    EXPECT_NE(std::string(e.what()).find("no CUDA device"), std::string::npos) << e.what();
  }
}

// Each backend reads its tables as its evidence says (docs/decisions.md), with or without the
// device: the offline vocabulary answers as the backend does.
TEST(CudaWithoutGpu, EachBackendHasItsDefaultSelection) {
  bool offline = false;
  EXPECT_EQ(make_backend_or_vocabulary(Device::cuda(0), &offline)->default_selector(),
            Selector::nearest);
  EXPECT_EQ(make_backend(Device::cpu())->default_selector(), Selector::predict);
}

// bench/results/h200/README.md ("Reach"); the CPU's tables speak only for their own forms.
TEST(CudaWithoutGpu, EachBackendHasItsReach) {
  bool offline = false;
  EXPECT_EQ(make_backend_or_vocabulary(Device::cuda(0), &offline)->reach(), (Reach{0.5, 0.2}));
  EXPECT_EQ(make_backend(Device::cpu())->reach(), Reach{});
}

}  // namespace
}  // namespace gemmroute
