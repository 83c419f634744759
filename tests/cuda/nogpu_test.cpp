// What a CUDA build does where no GPU is (CI): a CUDA Context says so with Error(unsupported),
// a stream handed to a CPU Context is refused, and the backends' default selections. Runs
// everywhere (label cuda, not gpu).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>

#include "core/backend.hpp"
#include "core/candidate.hpp"
#include "cuda/candidates.hpp"
#include "cuda/exec.hpp"
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
            Selector::model);
  EXPECT_EQ(make_backend(Device::cpu())->default_selector(), Selector::predict);
}

// What a repeated call compares of its pointers (src/core/gemm.cpp): on CUDA, alignment up to
// 256 bytes (cuda.stream's granule, cuBLASLt's alignment caps); on the CPU, the packed layout's
// 16 bytes, since no CPU candidate's can_run looks at a pointer.
TEST(CudaWithoutGpu, EachBackendSaysWhichPointerAlignmentSelectionSees) {
  bool offline = false;
  EXPECT_EQ(make_backend_or_vocabulary(Device::cuda(0), &offline)->selection_alignment(), 256u);
  EXPECT_EQ(make_backend(Device::cpu())->selection_alignment(), 16u);
}

// A grouped call's group joins the grouped launch only when it is small in sizes and in bytes
// (the byte bound: bench/results/h200/README.md, "Grouped batches"), its launch allows it, and
// there is a product to compute.
TEST(CudaWithoutGpu, OnlySmallGroupsJoinTheGroupedLaunch) {
  auto group = [](Scalar s, std::int64_t n, std::int64_t batch) {
    Problem p;
    p.dtype = s;
    p.m = p.n = p.k = n;
    p.batch = batch;
    return p;
  };
  auto joins = [](const Problem& p, bool may_fuse = true) {
    return cuda::fusable(GroupLaunch{nullptr, &p, may_fuse});
  };
  // 64^3 f32: 48 KiB an item; 41^3 f64: 3 x 1681 x 8 bytes; 2^3 c64: 192 bytes; 40^3 f32:
  // 19200 bytes. The most items under the bound of their side join, one more does not.
  const std::int64_t f32_items = cuda::kFusedGroupBytes / (48 * 1024);
  EXPECT_TRUE(joins(group(Scalar::f32, 64, f32_items)));
  EXPECT_FALSE(joins(group(Scalar::f32, 64, f32_items + 1)));
  const std::int64_t f64_items = cuda::kFusedGroupBytes / (3 * 41 * 41 * 8);
  EXPECT_TRUE(joins(group(Scalar::f64, 41, f64_items)));
  EXPECT_FALSE(joins(group(Scalar::f64, 41, f64_items + 1)));
  const std::int64_t c64_items = cuda::kFusedSmallGroupBytes / 192;
  EXPECT_TRUE(joins(group(Scalar::c64, 2, c64_items)));
  EXPECT_FALSE(joins(group(Scalar::c64, 2, c64_items + 1)));
  const std::int64_t small_items = cuda::kFusedSmallGroupBytes / 19200;
  EXPECT_GT(small_items, f32_items);  // the small sides' bound is the larger one
  EXPECT_TRUE(joins(group(Scalar::f32, 40, small_items)));
  EXPECT_FALSE(joins(group(Scalar::f32, 40, small_items + 1)));
  EXPECT_FALSE(joins(group(Scalar::f32, 65, 1)));
  EXPECT_FALSE(joins(group(Scalar::f32, 4, 10), false));
  EXPECT_FALSE(joins(group(Scalar::f32, 4, 0)));
  Problem scale_only = group(Scalar::f64, 4, 10);
  scale_only.alpha = 0.0;
  EXPECT_FALSE(joins(scale_only));
}

// bench/results/h200/README.md ("Reach"); the CPU's tables speak only for their own forms.
TEST(CudaWithoutGpu, EachBackendHasItsReach) {
  bool offline = false;
  EXPECT_EQ(make_backend_or_vocabulary(Device::cuda(0), &offline)->reach(),
            (Reach{0.5, 0.2, 0.5, 1024, 1 << 20, 64, 0.25}));
  EXPECT_EQ(make_backend(Device::cpu())->reach(), Reach{});
}

// A packed NN batch of m x n x k items (can_run looks at the layout, never at the data).
Problem packed_nn(Scalar s, std::int64_t m, std::int64_t n = 8, std::int64_t k = 8) {
  static const double never_read[1] = {};
  Problem p;
  p.dtype = s;
  p.m = m;
  p.n = n;
  p.k = k;
  p.batch = 1000;
  p.a = Operand{never_read, nullptr, m, m * k};
  p.b = Operand{never_read, nullptr, k, k * n};
  p.c = Operand{never_read, nullptr, m, m * n};
  return p;
}

// `c` refuses `p`, and its reason says `why`.
testing::AssertionResult refuses(const Candidate& c, const Problem& p, const std::string& why) {
  const Verdict v = c.can_run(p);
  if (v.ok) return testing::AssertionFailure() << "it runs";
  if (std::string(v.reason).find(why) == std::string::npos) {
    return testing::AssertionFailure()
           << "its reason \"" << v.reason << "\" does not say \"" << why << '"';
  }
  return testing::AssertionSuccess();
}

// cuda.stream:v= is offered only where m is a whole number of its 16-byte row tiles (4 rows of
// f32, 2 of f64 and c32, 1 of c64); elsewhere the t= tiles are faster (stream.cu).
TEST(CudaWithoutGpu, RowTilesNeedMToBeAWholeNumberOfThem) {
  bool offline = false;
  const auto backend = make_backend_or_vocabulary(Device::cuda(0), &offline);
  const Candidate* v2 = backend->find("cuda.stream:v=2");
  const Candidate* t2 = backend->find("cuda.stream:t=2");
  ASSERT_NE(v2, nullptr);
  ASSERT_NE(t2, nullptr);
  EXPECT_TRUE(v2->can_run(packed_nn(Scalar::f32, 8)).ok);
  EXPECT_TRUE(v2->can_run(packed_nn(Scalar::f32, 12)).ok);
  EXPECT_TRUE(refuses(*v2, packed_nn(Scalar::f32, 6), "multiple of 4"));
  EXPECT_TRUE(v2->can_run(packed_nn(Scalar::f64, 6)).ok);
  EXPECT_FALSE(v2->can_run(packed_nn(Scalar::f64, 7)).ok);
  EXPECT_FALSE(v2->can_run(packed_nn(Scalar::c32, 5)).ok);
  EXPECT_TRUE(v2->can_run(packed_nn(Scalar::c64, 7)).ok);
  EXPECT_TRUE(t2->can_run(packed_nn(Scalar::f32, 7)).ok);
}

// The f32 tiles of two rows (`v=N:rows=2`: 8-byte runs) take f32 with m even, where the v= tiles
// of four rows refuse m = 2 mod 4, and say why not an odd m or another scalar.
TEST(CudaWithoutGpu, TwoRowTilesTakeF32WithMEven) {
  bool offline = false;
  const auto backend = make_backend_or_vocabulary(Device::cuda(0), &offline);
  for (const char* spelling : {"cuda.stream:v=4:rows=2", "cuda.stream:v=8:rows=2"}) {
    SCOPED_TRACE(spelling);
    const Candidate* two = backend->find(spelling);
    ASSERT_NE(two, nullptr);
    EXPECT_TRUE(two->can_run(packed_nn(Scalar::f32, 10)).ok);
    EXPECT_TRUE(two->can_run(packed_nn(Scalar::f32, 2, 8, 8)).ok);
    EXPECT_TRUE(two->can_run(packed_nn(Scalar::f32, 64)).ok);
    EXPECT_TRUE(refuses(*two, packed_nn(Scalar::f32, 7), "odd"));
    for (Scalar s : {Scalar::f64, Scalar::c32, Scalar::c64}) {
      EXPECT_TRUE(refuses(*two, packed_nn(s, 10), "f32 only"));
    }
  }
  EXPECT_EQ(backend->find("cuda.stream:v=2:rows=2"), nullptr);
}

// The tensor-core tiles (mma.m8n8k4.f64) take f64 and c64 of any size, and say why not f32 or
// c32.
TEST(CudaWithoutGpu, TensorCoreTilesTakeF64AndC64Only) {
  bool offline = false;
  const auto backend = make_backend_or_vocabulary(Device::cuda(0), &offline);
  for (const char* spelling : {"cuda.stream:mma=8", "cuda.stream:mma=16"}) {
    SCOPED_TRACE(spelling);
    const Candidate* mma = backend->find(spelling);
    ASSERT_NE(mma, nullptr);
    EXPECT_TRUE(mma->can_run(packed_nn(Scalar::f64, 7)).ok);
    EXPECT_TRUE(mma->can_run(packed_nn(Scalar::c64, 5)).ok);
    for (Scalar s : {Scalar::f32, Scalar::c32}) {
      EXPECT_TRUE(refuses(*mma, packed_nn(s, 8), "f64 and c64 only"));
    }
  }
}

// The item tiles (one item a thread) take m and n up to their side, k up to 64, and say why
// not; c64 has no i=8 (its 8 x 8 sums would not fit the registers).
TEST(CudaWithoutGpu, ItemTilesTakeItemsUpToTheirSide) {
  bool offline = false;
  const auto backend = make_backend_or_vocabulary(Device::cuda(0), &offline);
  const Candidate* i4 = backend->find("cuda.stream:i=4");
  const Candidate* i8 = backend->find("cuda.stream:i=8");
  ASSERT_NE(i4, nullptr);
  ASSERT_NE(i8, nullptr);
  for (Scalar s : {Scalar::f32, Scalar::f64, Scalar::c32, Scalar::c64}) {
    EXPECT_TRUE(i4->can_run(packed_nn(s, 3, 4, 64)).ok);
    EXPECT_TRUE(i4->can_run(packed_nn(s, 4, 1, 2)).ok);
    EXPECT_TRUE(refuses(*i4, packed_nn(s, 4, 5, 4), "over 4"));
    EXPECT_FALSE(i4->can_run(packed_nn(s, 2, 2, 65)).ok);
  }
  EXPECT_TRUE(i8->can_run(packed_nn(Scalar::f32, 7, 5, 3)).ok);
  EXPECT_TRUE(i8->can_run(packed_nn(Scalar::c32, 8, 8, 8)).ok);
  EXPECT_FALSE(i8->can_run(packed_nn(Scalar::f64, 9, 2, 2)).ok);
  EXPECT_TRUE(refuses(*i8, packed_nn(Scalar::c64, 6, 6, 6), "registers"));
}

// The item tile by columns (`i=8:cols=2`: all rows of two of an item's columns a thread) runs
// f64 and c32 items up to 8 x 8 and refuses f32 (taken whole) and c64 (not faster), saying why.
TEST(CudaWithoutGpu, ItemColumnTileTakesF64AndC32Only) {
  bool offline = false;
  const auto backend = make_backend_or_vocabulary(Device::cuda(0), &offline);
  const Candidate* cols = backend->find("cuda.stream:i=8:cols=2");
  ASSERT_NE(cols, nullptr);
  EXPECT_EQ(backend->find("cuda.stream:i=8:cols=4"), nullptr);
  for (Scalar s : {Scalar::f64, Scalar::c32}) {
    EXPECT_TRUE(cols->can_run(packed_nn(s, 8, 8, 8)).ok);
    EXPECT_TRUE(cols->can_run(packed_nn(s, 5, 3, 64)).ok);
    EXPECT_FALSE(cols->can_run(packed_nn(s, 9, 9, 8)).ok);
  }
  EXPECT_TRUE(refuses(*cols, packed_nn(Scalar::f32, 6, 6, 6), "whole"));
  EXPECT_TRUE(refuses(*cols, packed_nn(Scalar::c64, 6, 6, 6), "not faster"));
}

// cuda.reg's 256 x 128 tile runs f32 alone, any k under 2^31 (its slabs of k are counted in 32
// bits), with no workspace (it never splits k), and says why it refuses.
TEST(CudaWithoutGpu, RegLargeTileTakesF32WithKUnder2To31) {
  bool offline = false;
  const auto backend = make_backend_or_vocabulary(Device::cuda(0), &offline);
  const Candidate* big = backend->find("cuda.reg:m=256:n=128:k=8:t=8x16");
  ASSERT_NE(big, nullptr);
  EXPECT_TRUE(big->can_run(packed_nn(Scalar::f32, 2048, 2048, 2048)).ok);
  EXPECT_TRUE(big->can_run(packed_nn(Scalar::f32, 1, 1, (std::int64_t{1} << 31) - 1)).ok);
  EXPECT_TRUE(refuses(*big, packed_nn(Scalar::f32, 1, 1, std::int64_t{1} << 31), "32 bits"));
  EXPECT_TRUE(refuses(*big, packed_nn(Scalar::f64, 256, 128, 8), "not instantiated"));
  // One 512^3 item: 8 tiles leave multiprocessors idle, so k splits in 4 chunks of 128 (the
  // shortest it takes), each 512 x 512 floats of sums. A thousand of them (8,000 tiles) and k
  // under 256 never split.
  Problem one = packed_nn(Scalar::f32, 512, 512, 512);
  one.batch = 1;
  EXPECT_EQ(big->workspace_bytes(one), 4u * 512 * 512 * sizeof(float));
  EXPECT_EQ(big->workspace_bytes(packed_nn(Scalar::f32, 512, 512, 512)), 0u);
  one.k = 255;
  EXPECT_EQ(big->workspace_bytes(one), 0u);
}

// cuda.reg's split k keeps its chunks' sums in the candidates' workspace: what it declares
// never passes that, is what a split asks (count x m x n x batch floats), and is nothing where
// k is too short to split, where one chunk's sums alone would not fit, or for cuda.wide.
TEST(CudaWithoutGpu, RegDeclaresTheWorkspaceItsSplitKAsks) {
  auto square = [](Scalar s, std::int64_t n, std::int64_t k, std::int64_t batch) {
    static const double never_read[1] = {};
    Problem p;
    p.dtype = s;
    p.m = p.n = n;
    p.k = k;
    p.batch = batch;
    p.a = Operand{never_read, nullptr, n, n * k};
    p.b = Operand{never_read, nullptr, k, k * n};
    p.c = Operand{never_read, nullptr, n, n * n};
    return p;
  };
  const Candidate& reg = cuda::reg_candidate();
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  // The most any SM count asks: chunks of 32 where they would fill one block a multiprocessor.
  EXPECT_EQ(reg.workspace_bytes(square(Scalar::f32, 512, 512, 1)), 16 * kMiB);  // 16 chunks of 32
  EXPECT_EQ(reg.workspace_bytes(square(Scalar::f32, 2048, 2048, 1)), 2 * 16 * kMiB);
  EXPECT_EQ(reg.workspace_bytes(square(Scalar::f32, 512, 100, 1)), 3 * kMiB);  // chunks 48, 48, 4
  EXPECT_EQ(reg.workspace_bytes(square(Scalar::f32, 512, 63, 1)), 0u);  // k under 2 x 32
  EXPECT_EQ(reg.workspace_bytes(square(Scalar::f32, 4096, 4096, 1)), 0u);  // 64 MiB a chunk
  for (std::int64_t n : {1, 100, 129, 1000, 3000}) {
    for (std::int64_t k : {1, 127, 128, 1031, 100000}) {
      for (std::int64_t batch : {1, 3, 1000}) {
        EXPECT_LE(reg.workspace_bytes(square(Scalar::f32, n, k, batch)), cuda::kWorkspaceBytes)
            << n << " " << k << " " << batch;
      }
    }
  }
  EXPECT_EQ(cuda::wide_candidate().workspace_bytes(square(Scalar::f64, 512, 512, 1)), 0u);
}

}  // namespace
}  // namespace gemmroute
