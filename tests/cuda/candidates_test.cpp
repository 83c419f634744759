// Every CUDA candidate x scalar x form x storage against the long-double reference, as the CPU
// candidates are tested: BLAS edge semantics with NaN and Inf, untouched ld padding and memory
// past the items, A and B unchanged, determinism, can_run <=> launch; and what only a GPU
// needs: batches over 65535, batch x stride over 2^31 elements, bases that are only
// element-aligned. Operands live in device memory; the checks run on the host.
#include <gtest/gtest.h>

#include <complex>
#include <optional>
#include <random>
#include <set>

#include "core/dispatch.hpp"
#include "cuda/candidates.hpp"
#include "gemmroute/error.hpp"
#include "gpu.hpp"
#include "reference/reference.hpp"

namespace gemmroute {
namespace {

using test::Buffer;
using test::forms;
using test::Mirror;
using test::Shape;
using test::Storage;

// From the kernels' own edges: cuda.tiled's 16 (15, 16, 17, 33), cuda.small's size classes
// 2, 4, 8, 16, 32, 64 and their neighbours, cuda.wide's 64 x 64 x 8 and cuda.reg's 128 x 128 x 8
// tiles (one less, equal, one more; k past one slab), ragged and prime shapes.
const std::vector<Shape> kShapes = {
    {1, 1, 1, 3},    {2, 2, 2, 5},     {3, 4, 5, 4},      {4, 4, 4, 9},    {5, 3, 2, 3},
    {7, 8, 9, 3},    {8, 8, 8, 2},     {9, 3, 7, 2},      {15, 16, 17, 2}, {16, 16, 16, 5},
    {17, 16, 15, 2}, {13, 11, 1, 2},   {31, 32, 33, 2},   {32, 32, 32, 3}, {33, 5, 31, 2},
    {63, 64, 17, 2}, {64, 64, 64, 2},  {19, 37, 23, 1},   {70, 29, 5, 2},  {100, 90, 130, 1},
    {65, 63, 9, 2},  {128, 128, 8, 1}, {127, 129, 16, 1}, {129, 130, 7, 1}};
const std::vector<Shape> kQuickShapes = {{2, 2, 2, 5},    {3, 4, 5, 4},   {9, 3, 7, 2},
                                         {17, 16, 15, 2}, {33, 5, 31, 2}, {64, 64, 64, 2},
                                         {129, 130, 7, 1}};

const std::vector<Shape>& shapes() {
  return test::quick_suite() ? kQuickShapes : kShapes;
}

struct Outcome {
  bool ran = false;
  std::string failure;  // empty when correct
};

// One launch over fresh operands in device memory: the result against the reference, C's
// padding and sentinels, A and B unchanged. shift offsets every base by that many elements.
template <class T>
Outcome run_case(const Candidate& cand, Op ta, Op tb, const Shape& s, Storage storage, T alpha,
                 T beta, std::mt19937_64& rng, bool nan_in_c = false, bool nan_in_ab = false,
                 std::int64_t shift = 0) {
  const test::Gpu& gpu = test::Gpu::get();
  auto [p, A, B, C] = test::host_case<T>(ta, tb, s, storage, alpha, beta, rng, nan_in_c, nan_in_ab);
  Mirror<T> dA(A, shift), dB(B, shift), dC(C, shift);
  p.a = dA.operand(storage);
  p.b = dB.operand(storage);
  p.c = dC.operand(storage);
  Outcome out;
  if (!runnable(cand, p, *gpu.exec).ok) return out;
  out.ran = true;
  try {
    cand.launch(p, *gpu.exec);
  } catch (const std::exception& e) {
    out.failure = std::string("launch threw: ") + e.what();
    return out;
  }
  gpu.sync();
  const auto c0 = C.data;
  if (!test::same_bytes(dA.download(), A.data) || !test::same_bytes(dB.download(), B.data)) {
    out.failure = "A or B changed";
    return out;
  }
  C.data = dC.download();
  for (std::size_t i = 0; i < C.data.size(); ++i) {
    if (!C.inside(static_cast<std::int64_t>(i)) &&
        std::memcmp(&C.data[i], &c0[i], sizeof(T)) != 0) {
      out.failure = "C changed outside its items at offset " + std::to_string(i);
      return out;
    }
  }
  // With alpha == 0 the reference reads neither A nor B (they hold NaN in that test), and with
  // beta == 0 not C0: a NaN that leaked into C fails the check.
  // The reference reads host copies: A, B, the C computed and the C0 it started from.
  Problem got = p, orig = p;
  std::vector<const void*> c_items, c0_items;
  Buffer<T> C0 = C;
  C0.data = c0;
  for (std::int64_t i = 0; i < s.batch; ++i) {
    c_items.push_back(C.item(i));
    c0_items.push_back(C0.item(i));
  }
  got.a = test::operand(A, storage);
  got.b = test::operand(B, storage);
  orig.a = got.a;
  orig.b = got.b;
  got.c = test::pointer_storage(storage) ? Operand{nullptr, c_items.data(), C.ld, 0}
                                         : Operand{C.data.data(), nullptr, C.ld, C.stride};
  orig.c = test::pointer_storage(storage) ? Operand{nullptr, c0_items.data(), C.ld, 0}
                                          : Operand{C0.data.data(), nullptr, C.ld, C.stride};
  auto check = reference::check_against_reference(got, orig);
  if (!check.ok) out.failure = check.message;
  return out;
}

// One packed call launched twice over the same operands into two copies of C: whether both
// C hold the same bytes (nullopt where the candidate cannot run the call).
template <class T>
std::optional<bool> same_bytes_twice(const Candidate& cand, const Shape& s, T alpha, T beta,
                                     std::mt19937_64& rng) {
  const test::Gpu& gpu = test::Gpu::get();
  auto [p, A, B, C] =
      test::host_case<T>(Op::N, Op::N, s, Storage::packed, alpha, beta, rng, false, false);
  Mirror<T> dA(A), dB(B), dC1(C), dC2(C);
  p.a = dA.operand(Storage::packed);
  p.b = dB.operand(Storage::packed);
  if (!runnable(cand, p, *gpu.exec).ok) return std::nullopt;
  p.c = dC1.operand(Storage::packed);
  cand.launch(p, *gpu.exec);
  p.c = dC2.operand(Storage::packed);
  cand.launch(p, *gpu.exec);
  gpu.sync();
  return test::same_bytes(dC1.download(), dC2.download());
}

// One test per candidate, every scalar inside it: one process each, so a machine without a GPU
// skips them quickly.
struct Param {
  std::string spelling;
};

void PrintTo(const Param& p, std::ostream* os) {
  *os << p.spelling;
}

constexpr Scalar kScalars[] = {Scalar::f32, Scalar::f64, Scalar::c32, Scalar::c64};

// Every CUDA candidate, known without a GPU (test discovery runs where there is none).
std::vector<const Candidate*> cuda_candidates() {
  std::vector<const Candidate*> out = {&cuda::cublas_candidate()};
  for (const Candidate* c : cuda::small_candidates()) out.push_back(c);
  for (const Candidate* c : cuda::stream_candidates()) out.push_back(c);
  out.push_back(&cuda::reg_candidate());
  out.push_back(&cuda::reg_big_candidate());
  out.push_back(&cuda::wide_candidate());
  out.push_back(&cuda::tiled_candidate());
  out.push_back(&cuda::direct_candidate());
  for (const Candidate* c : cuda::ab_candidates()) out.push_back(c);  // an A/B build's (`:ab=1`)
  return out;
}

class CudaCandidateTest : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override { GEMMROUTE_REQUIRE_GPU(); }
  const Candidate& candidate() const {
    const Candidate* c = test::Gpu::get().backend->find(GetParam().spelling);
    EXPECT_NE(c, nullptr) << GetParam().spelling;
    return *c;
  }
};

// Runs f.template operator()<T>() for every scalar type, with the scalar in the trace.
template <class F>
void for_scalars(F&& f) {
  for (Scalar s : kScalars) {
    SCOPED_TRACE(std::string(to_string(s)));
    dispatch(s, f);
  }
}

TEST_P(CudaCandidateTest, MatchesReferenceInEveryFormAndStorage) {
  std::mt19937_64 rng(12345);
  int ran = 0, cases = 0;
  for_scalars([&]<class T>() {
    for (Op ta : forms(scalar_of_v<T>)) {
      for (Op tb : forms(scalar_of_v<T>)) {
        for (Storage st : {Storage::packed, Storage::padded, Storage::broadcast, Storage::pointers,
                           Storage::item_pointers, Storage::staggered_pointers}) {
          for (const Shape& s : shapes()) {
            // alpha and beta: random (complex where the scalar is), sometimes 1; every third
            // packed or item-pointers case starts one element past an aligned base (item
            // pointers: every item then only element-aligned; staggered: starts of every
            // alignment in any case).
            const T alpha = cases % 5 == 0 ? T(1) : test::random_scalar<T>(rng);
            const T beta = cases % 7 == 0 ? T(1) : test::random_scalar<T>(rng);
            const std::int64_t shift =
                (st == Storage::packed || st == Storage::item_pointers) && cases % 3 == 0 ? 1 : 0;
            ++cases;
            Outcome o =
                run_case<T>(candidate(), ta, tb, s, st, alpha, beta, rng, false, false, shift);
            SCOPED_TRACE(std::string(to_string(ta)) + std::string(to_string(tb)) + " " +
                         test::name(st) + " " + std::to_string(s.m) + "x" + std::to_string(s.n) +
                         "x" + std::to_string(s.k) + " b" + std::to_string(s.batch) +
                         (shift ? " shifted" : ""));
            EXPECT_EQ(o.failure, "");
            ran += o.ran;
          }
        }
      }
    }
  });
  EXPECT_GT(ran, 0) << "the candidate ran no case";
}

TEST_P(CudaCandidateTest, BetaZeroNeverReadsC) {
  std::mt19937_64 rng(7);
  for_scalars([&]<class T>() {
    for (Op ta : forms(scalar_of_v<T>)) {
      for (const Shape& s :
           {Shape{4, 4, 4, 2}, Shape{16, 9, 5, 3}, Shape{13, 11, 17, 1}, Shape{40, 33, 20, 2}}) {
        Outcome o = run_case<T>(candidate(), ta, Op::N, s, Storage::padded,
                                test::random_scalar<T>(rng), T(0), rng, /*nan_in_c=*/true);
        EXPECT_EQ(o.failure, "") << to_string(ta) << " " << s.m;
      }
    }
  });
}

TEST_P(CudaCandidateTest, AlphaZeroNeverReadsAOrB) {
  std::mt19937_64 rng(8);
  for_scalars([&]<class T>() {
    for (T beta : {T(0), T(1), test::random_scalar<T>(rng)}) {
      for (const Shape& s : {Shape{4, 4, 4, 2}, Shape{16, 9, 5, 3}, Shape{13, 11, 17, 1}}) {
        Outcome o = run_case<T>(candidate(), Op::N, Op::T, s, Storage::padded, T(0), beta, rng,
                                false, /*nan_in_ab=*/true);
        EXPECT_EQ(o.failure, "") << s.m;
      }
    }
  });
}

TEST_P(CudaCandidateTest, KZeroScalesCByBeta) {
  std::mt19937_64 rng(9);
  for_scalars([&]<class T>() {
    for (T beta : {T(0), T(1), test::random_scalar<T>(rng)}) {
      Outcome o = run_case<T>(candidate(), Op::N, Op::N, Shape{5, 6, 0, 3}, Storage::padded,
                              test::random_scalar<T>(rng), beta, rng);
      EXPECT_EQ(o.failure, "");
    }
  });
}

TEST_P(CudaCandidateTest, BatchesOverTheGridLimit) {
  std::mt19937_64 rng(13);
  for_scalars([&]<class T>() {
    for (Storage st : {Storage::packed, Storage::pointers}) {
      Outcome o = run_case<T>(candidate(), Op::N, Op::N, Shape{2, 3, 2, 70001}, st,
                              test::random_scalar<T>(rng), test::random_scalar<T>(rng), rng);
      EXPECT_EQ(o.failure, "") << test::name(st);
    }
  });
}

// Batches that span many of a kernel's item groups (cuda.small's blocks, cuda.stream's double-
// buffered groups), with a partial last group, bases one element past alignment, every form.
// 56 x 50 x 52: items over 56 KiB in f64, c32 and c64, which cuda.stream's row and tensor-core
// tiles run with one buffer a block, 300 groups of one item, more than the blocks in flight.
TEST_P(CudaCandidateTest, ManyGroupsInEveryForm) {
  std::mt19937_64 rng(14);
  const std::vector<Shape> shapes = {{3, 5, 7, 1111}, {8, 8, 8, 301}, {16, 13, 16, 67},
                                     {33, 20, 17, 21}, {56, 50, 52, 300}};
  int cases = 0;
  for_scalars([&]<class T>() {
    for (Op ta : forms(scalar_of_v<T>)) {
      for (Op tb : forms(scalar_of_v<T>)) {
        for (const Shape& s : shapes) {
          if (test::quick_suite() && cases % 3 != 0) {
            ++cases;
            continue;
          }
          const T beta = cases % 4 == 0 ? T(0) : test::random_scalar<T>(rng);
          const std::int64_t shift = cases % 2;
          ++cases;
          Outcome o = run_case<T>(candidate(), ta, tb, s, Storage::packed,
                                  test::random_scalar<T>(rng), beta, rng, false, false, shift);
          EXPECT_EQ(o.failure, "") << to_string(ta) << to_string(tb) << " " << s.m << "x" << s.n
                                   << "x" << s.k << " b" << s.batch << (shift ? " shifted" : "");
        }
      }
    }
  });
}

TEST_P(CudaCandidateTest, SameCallTwiceGivesIdenticalBytes) {
  for_scalars([&]<class T>() {
    for (const Shape& s : {Shape{8, 8, 8, 64}, Shape{13, 7, 16, 33}, Shape{40, 40, 40, 3}}) {
      std::mt19937_64 rng(99);
      const T alpha = test::random_scalar<T>(rng), beta = test::random_scalar<T>(rng);
      const std::optional<bool> same = same_bytes_twice<T>(candidate(), s, alpha, beta, rng);
      if (same) {
        EXPECT_TRUE(*same) << s.m;
      }
    }
  });
}

// can_run true <=> launch succeeds (and false <=> launch throws not_runnable).
TEST_P(CudaCandidateTest, CanRunMatchesLaunch) {
  const test::Gpu& gpu = test::Gpu::get();
  std::mt19937_64 rng(10);
  for_scalars([&]<class T>() {
    for (std::int64_t size : {1, 2, 3, 4, 5, 8, 9, 16, 17, 32, 33, 64, 65}) {
      Problem p;
      p.dtype = scalar_of_v<T>;
      p.m = size;
      p.n = size + (size > 1);
      p.k = size;
      p.batch = 2;
      p.alpha = 1.0;
      p.beta = 0.5;
      auto A = test::make_buffer<T>(p.rows_a(), p.cols_a(), 2, Storage::packed, false, rng);
      auto B = test::make_buffer<T>(p.rows_b(), p.cols_b(), 2, Storage::packed, false, rng);
      auto C = test::make_buffer<T>(p.m, p.n, 2, Storage::packed, false, rng);
      Mirror<T> dA(A), dB(B), dC(C);
      p.a = dA.operand(Storage::packed);
      p.b = dB.operand(Storage::packed);
      p.c = dC.operand(Storage::packed);
      Verdict v = runnable(candidate(), p, *gpu.exec);
      if (v.ok) {
        EXPECT_NO_THROW(candidate().launch(p, *gpu.exec)) << size;
      } else {
        EXPECT_STRNE(v.reason, "") << "a refusal must say why";
        try {
          candidate().launch(p, *gpu.exec);
          ADD_FAILURE() << "launch ran a problem can_run refused, size " << size;
        } catch (const Error& e) {
          EXPECT_EQ(e.code(), Errc::not_runnable);
        }
      }
      gpu.sync();
    }
  });
}

std::vector<Param> all_params() {
  std::vector<Param> out;
  for (const Candidate* c : cuda_candidates()) out.push_back({std::string(c->spelling())});
  return out;
}

std::string param_name(const ::testing::TestParamInfo<Param>& info) {
  std::string s;
  for (char ch : info.param.spelling) s += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Cuda, CudaCandidateTest, ::testing::ValuesIn(all_params()), param_name);

// Every form of A and B, packed, padded and through pointers, at each shape, with random alpha
// and beta: the f32 candidate runs each case and matches the reference.
void expect_f32_forms_match(const Candidate& c, const std::vector<Shape>& shapes,
                            std::mt19937_64& rng) {
  for (Op ta : {Op::N, Op::T}) {
    for (Op tb : {Op::N, Op::T}) {
      for (Storage st : {Storage::packed, Storage::padded, Storage::pointers}) {
        for (const Shape& s : shapes) {
          Outcome o = run_case<float>(c, ta, tb, s, st, test::random_scalar<float>(rng),
                                      test::random_scalar<float>(rng), rng);
          EXPECT_TRUE(o.ran);
          EXPECT_EQ(o.failure, "") << to_string(ta) << to_string(tb) << " " << test::name(st)
                                   << " " << s.m << "x" << s.n << "x" << s.k << " b" << s.batch;
        }
      }
    }
  }
}

// cuda.reg's 256 x 128 tile on items of whole tiles and beyond (the shapes above stop short of
// one: its unguarded copies run only where a thread's copies all lie inside the operand and the
// slab is whole), in every form, packed, padded and through pointers, with k past one slab and
// ragged; beta == 0 over NaN in C; the same bytes from two calls; then the same at calls of few
// tiles and long k.
void expect_big_tile_matches(const Candidate& big) {
  std::mt19937_64 rng(22);
  const std::vector<Shape> shapes = {{256, 128, 16, 1},
                                     {512, 256, 40, 1},
                                     {300, 260, 37, 2},
                                     {257, 129, 9, 1},
                                     {520, 130, 100, 1}};
  expect_f32_forms_match(big, shapes, rng);
  for (Storage st : {Storage::packed, Storage::padded}) {
    Outcome o = run_case<float>(big, Op::T, Op::N, Shape{512, 256, 33, 1}, st,
                                test::random_scalar<float>(rng), 0.0f, rng, /*nan_in_c=*/true);
    EXPECT_EQ(o.failure, "") << test::name(st);
  }
  const std::optional<bool> same =
      same_bytes_twice<float>(big, Shape{512, 256, 64, 2}, 0.75f, -1.25f, rng);
  ASSERT_TRUE(same.has_value());
  EXPECT_TRUE(*same);
  // Few tiles and long k, which a tile that splits k takes in chunks (with chunks of at least
  // 128 on 132 multiprocessors: 4 with m and n off the tile, 7 over two items of whole tiles, 2
  // with k ragged, 3 over three items), and the same bytes from two such calls.
  const std::vector<Shape> few_tiles = {
      {300, 200, 600, 1}, {256, 128, 1000, 2}, {512, 256, 257, 1}, {100, 300, 384, 3}};
  expect_f32_forms_match(big, few_tiles, rng);
  Outcome o = run_case<float>(big, Op::N, Op::N, Shape{300, 200, 600, 1}, Storage::packed,
                              test::random_scalar<float>(rng), 0.0f, rng, /*nan_in_c=*/true);
  EXPECT_EQ(o.failure, "");
  const std::optional<bool> same_split =
      same_bytes_twice<float>(big, Shape{256, 128, 1000, 2}, 0.75f, -1.25f, rng);
  ASSERT_TRUE(same_split.has_value());
  EXPECT_TRUE(*same_split);
}

// The shipped candidate and, in an A/B build, its patched twin (`:ab=1`).
std::vector<const Candidate*> with_twin(const Candidate& c) {
  std::vector<const Candidate*> out = {&c};
  const std::string twin = std::string(c.spelling()) + ":ab=1";
  if (const Candidate* t = test::Gpu::get().backend->find(twin)) out.push_back(t);
  return out;
}

TEST(CudaRegBig, WholeTilesAndEdgesMatchTheReference) {
  GEMMROUTE_REQUIRE_GPU();
  for (const Candidate* c : with_twin(cuda::reg_big_candidate())) {
    SCOPED_TRACE(c->spelling());
    expect_big_tile_matches(*c);
  }
}

// cuda.reg's split k: calls whose 128 x 128 tiles leave most of the GPU idle take k in chunks
// whose sums meet in the workspace (3 to 22 chunks here on 132 multiprocessors, the last one
// often short, so the sum kernel's loads go in one round or several; 16-byte and element loads;
// pointer arrays), in every form, with beta == 0 over NaN in C, and the same bytes from two
// calls. 132 x 200 x 512, 256 x 128 x 192 x 2 and 100 x 128 x 128 take 16-byte loads in chunks
// of 32 (16, 6 for two items, and 4 with m off the tile in runs of 4); the last two shapes have
// m past the 1,024 rows a column of the sum kernel's block covers (6 and 5 chunks), element and
// 16-byte sums.
void expect_split_matches(const Candidate& reg) {
  std::mt19937_64 rng(21);
  const std::vector<Shape> shapes = {{64, 100, 600, 3},  {129, 1, 700, 2},   {33, 70, 131, 1},
                                     {132, 200, 512, 1}, {256, 128, 192, 2}, {100, 128, 128, 1},
                                     {2101, 40, 256, 1}, {2052, 36, 320, 2}};
  expect_f32_forms_match(reg, shapes, rng);
  for (Storage st : {Storage::packed, Storage::padded}) {  // 22 chunks of 48, the last of 23
    Outcome o = run_case<float>(reg, Op::T, Op::N, Shape{200, 150, 1031, 1}, st,
                                test::random_scalar<float>(rng), 0.0f, rng, /*nan_in_c=*/true);
    EXPECT_EQ(o.failure, "") << test::name(st);
  }
  for (Op tb : {Op::N, Op::T}) {  // 16-byte loads, 16 chunks
    Outcome o = run_case<float>(reg, Op::N, tb, Shape{132, 200, 512, 1}, Storage::packed,
                                test::random_scalar<float>(rng), 0.0f, rng, /*nan_in_c=*/true);
    EXPECT_EQ(o.failure, "") << to_string(tb);
  }
  for (const Shape& s : {Shape{96, 80, 1000, 2}, Shape{132, 200, 512, 1}}) {
    const std::optional<bool> same = same_bytes_twice<float>(reg, s, 0.75f, -1.25f, rng);
    ASSERT_TRUE(same.has_value());
    EXPECT_TRUE(*same) << s.m << "x" << s.n << "x" << s.k;
  }
}

TEST(CudaRegSplit, ChunksOfKMatchTheReference) {
  GEMMROUTE_REQUIRE_GPU();
  for (const Candidate* c : with_twin(cuda::reg_candidate())) {
    SCOPED_TRACE(c->spelling());
    expect_split_matches(*c);
  }
}

// C items 2^30 + 7 elements apart: item 2 starts past 2^31 elements (8 GiB in), so any 32-bit
// offset arithmetic writes the wrong place. A and B are broadcast (stride 0).
TEST(CudaLarge, BatchTimesStrideOverTwoToThe31Elements) {
  GEMMROUTE_REQUIRE_GPU();
  const test::Gpu& gpu = test::Gpu::get();
  constexpr std::int64_t kStride = (std::int64_t{1} << 30) + 7, kBatch = 3, kN = 3;
  const std::int64_t extent = (kBatch - 1) * kStride + kN * kN;
  test::DeviceMemory c(static_cast<std::size_t>(extent) * sizeof(float));
  std::vector<float> a(kN * kN), b(kN * kN), c0(kN * kN);
  std::mt19937_64 rng(3);
  for (auto* v : {&a, &b, &c0}) {
    for (float& x : *v) x = test::random_scalar<float>(rng);
  }
  test::DeviceMemory da(a.size() * sizeof(float)), db(b.size() * sizeof(float));
  test::cuda_ok(cudaMemcpy(da.ptr, a.data(), a.size() * 4, cudaMemcpyHostToDevice), "upload");
  test::cuda_ok(cudaMemcpy(db.ptr, b.data(), b.size() * 4, cudaMemcpyHostToDevice), "upload");
  for (const Candidate* cand : cuda_candidates()) {
    for (std::int64_t i = 0; i < kBatch; ++i) {
      test::cuda_ok(cudaMemcpy(static_cast<float*>(c.ptr) + i * kStride, c0.data(), 9 * 4,
                               cudaMemcpyHostToDevice),
                    "upload");
    }
    Problem p;
    p.dtype = Scalar::f32;
    p.m = p.n = p.k = kN;
    p.batch = kBatch;
    p.alpha = 1.5;
    p.beta = -0.5;
    p.a = {da.ptr, nullptr, kN, 0};
    p.b = {db.ptr, nullptr, kN, 0};
    p.c = {c.ptr, nullptr, kN, kStride};
    if (!runnable(*cand, p, *gpu.exec).ok) continue;
    cand->launch(p, *gpu.exec);
    gpu.sync();
    for (std::int64_t i = 0; i < kBatch; ++i) {
      std::vector<float> got(9);
      test::cuda_ok(cudaMemcpy(got.data(), static_cast<float*>(c.ptr) + i * kStride, 9 * 4,
                               cudaMemcpyDeviceToHost),
                    "download");
      Problem hg = p, ho = p;
      hg.batch = ho.batch = 1;
      hg.a = ho.a = {a.data(), nullptr, kN, 0};
      hg.b = ho.b = {b.data(), nullptr, kN, 0};
      hg.c = {got.data(), nullptr, kN, 0};
      ho.c = {c0.data(), nullptr, kN, 0};
      auto check = reference::check_against_reference(hg, ho);
      EXPECT_TRUE(check.ok) << cand->spelling() << " item " << i << ": " << check.message;
    }
  }
}

TEST(CudaBackend, EveryCandidateIsInTheVocabularyOnce) {
  GEMMROUTE_REQUIRE_GPU();
  const Backend& b = *test::Gpu::get().backend;
  std::set<std::string_view> seen;
  for (const Candidate* c : b.candidates()) EXPECT_TRUE(seen.insert(c->spelling()).second);
  EXPECT_EQ(b.find("cuda.direct"), &b.last_resort_native());
  EXPECT_EQ(b.find("cublas"), &b.last_resort_vendor());
  EXPECT_EQ(b.last_resort_vendor().provider(), Provider::vendor);
  // lt.heuristic first (tests/cuda/lt_test.cpp runs it; it refuses the uniform scalars this
  // file's tests run), then the candidates here.
  ASSERT_EQ(b.candidates().size(), cuda_candidates().size() + 1);
  EXPECT_EQ(b.candidates().front()->spelling(), "lt.heuristic");
  for (const char* field : {"device", "arch", "sms", "memory", "driver", "runtime", "cublas"}) {
    EXPECT_NE(b.fingerprint().get(field), nullptr) << field;
  }
}

}  // namespace
}  // namespace gemmroute
