// Every CPU candidate x scalar x form x storage against the long-double reference, with the
// BLAS edge semantics, untouched padding and operands, determinism, and can_run <=> launch.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <complex>
#include <optional>
#include <random>
#include <set>

#include "core/backend.hpp"
#include "cpu/batch.hpp"
#include "cpu/candidates.hpp"
#include "cpu/libraries.hpp"
#include "gemmroute/error.hpp"
#include "reference/reference.hpp"
#include "guarded.hpp"
#include "support.hpp"

namespace gemmroute {
namespace {

const Exec kExec;  // the CPU backend needs no execution resources

using test::Buffer;
using test::forms;
using test::Shape;
using test::Storage;

const Backend& cpu_backend() {
  static auto backend = make_backend(Device::cpu());
  return *backend;
}

// Sizes from the kernels' own edges: 1, cpu.small's vector widths and limit (4, 8, 16) and their
// neighbours, ragged shapes and primes; beyond 16 for the kernels without a size limit, with
// cpu.tile's edges: several row and column blocks, k past one slab (256), and one item big
// enough that its columns are split over the threads.
const std::vector<Shape> kShapes = {
    {1, 1, 1, 3},
    {3, 4, 5, 4},
    {4, 4, 4, 2},
    {7, 8, 9, 3},
    {8, 8, 8, 2},
    {15, 16, 16, 2},
    {16, 16, 16, 2},
    {16, 3, 13, 3},
    {2, 15, 7, 5},
    {13, 11, 1, 2},
    {17, 16, 16, 2},
    {33, 5, 31, 2},
    {19, 37, 23, 1},
    {64, 3, 70, 1},
    {9, 70, 2, 3},
    {37, 13, 300, 1},
    {70, 29, 5, 2},
    {29, 45, 60, 1},
    // cpu.small's tiny-item kernels (m, n <= 4): every m and n to 4, k past 4, and a batch
    // large enough to be spread over the threads.
    {2, 2, 2, 7},
    {3, 3, 3, 5},
    {4, 1, 16, 3},
    {1, 3, 2, 4},
    {2, 4, 7, 3},
    {4, 2, 1, 2},
    {3, 3, 3, 2000}};

struct Outcome {
  bool ran = false;
  std::string failure;  // empty when correct
};

// One launch of `c` over fresh operands; checks the result, the sentinel padding of C and
// that A and B are unchanged.
template <class T>
Outcome run_case(const Candidate& cand, Op ta, Op tb, const Shape& s, Storage storage, T alpha,
                 T beta, std::mt19937_64& rng, bool nan_in_c = false, bool nan_in_ab = false) {
  auto [p, A, B, C] = test::host_case<T>(ta, tb, s, storage, alpha, beta, rng, nan_in_c, nan_in_ab);
  Outcome out;
  if (!cand.can_run(p).ok) return out;
  out.ran = true;
  const auto a0 = A.data, b0 = B.data, c0 = C.data;
  cand.launch(p, kExec);
  if (!test::same_bytes(A.data, a0) || !test::same_bytes(B.data, b0)) {
    out.failure = "A or B changed";
    return out;
  }
  for (std::size_t i = 0; i < C.data.size(); ++i) {
    if (!C.inside(static_cast<std::int64_t>(i)) &&
        std::memcmp(&C.data[i], &c0[i], sizeof(T)) != 0) {
      out.failure = "C changed outside its items at offset " + std::to_string(i);
      return out;
    }
  }
  if (nan_in_ab) {
    // alpha == 0: C must be exactly beta * C0 (beta == 0: exactly zero).
    for (std::int64_t i = 0; i < s.batch; ++i) {
      for (std::int64_t c = 0; c < s.n; ++c) {
        for (std::int64_t r = 0; r < s.m; ++r) {
          std::int64_t off = i * C.stride + r + c * C.ld;
          T want = beta == T(0) ? T(0) : beta * c0[static_cast<std::size_t>(off)];
          if (beta == T(1)) want = c0[static_cast<std::size_t>(off)];
          if (std::memcmp(&want, &C.data[static_cast<std::size_t>(off)], sizeof(T)) != 0) {
            out.failure = "alpha == 0: C is not exactly beta * C0";
            return out;
          }
        }
      }
    }
    return out;
  }
  Problem orig = p;
  std::vector<const void*> c0_pointers;
  Buffer<T> C0 = C;
  C0.data = c0;
  for (std::int64_t i = 0; i < s.batch; ++i) c0_pointers.push_back(C0.item(i));
  orig.c = storage == Storage::pointers ? Operand{nullptr, c0_pointers.data(), C.ld, 0}
                                        : Operand{C0.data.data(), nullptr, C.ld, C.stride};
  auto check = reference::check_against_reference(p, orig);
  if (!check.ok) out.failure = check.message;
  return out;
}

struct Param {
  std::string spelling;
  Scalar dtype;
};

void PrintTo(const Param& p, std::ostream* os) {
  *os << p.spelling << " " << to_string(p.dtype);
}

// A random problem (random alpha and beta, op(B) = B) and its operands; C is launched on
// copies, so one case can be run twice.
template <class T>
struct RandomCase {
  Problem p;
  Buffer<T> A, B, C;
};

template <class T>
RandomCase<T> random_case(Op ta, const Shape& s, Storage st, std::mt19937_64& rng) {
  RandomCase<T> rc;
  Problem& p = rc.p;
  p.dtype = scalar_of_v<T>;
  p.ta = ta;
  p.m = s.m;
  p.n = s.n;
  p.k = s.k;
  p.batch = s.batch;
  p.alpha = std::complex<double>(test::random_scalar<T>(rng));
  p.beta = std::complex<double>(test::random_scalar<T>(rng));
  rc.A = test::make_buffer<T>(p.rows_a(), p.cols_a(), s.batch, st, false, rng);
  rc.B = test::make_buffer<T>(p.rows_b(), p.cols_b(), s.batch, st, false, rng);
  rc.C = test::make_buffer<T>(s.m, s.n, s.batch, st, false, rng);
  p.a = test::operand(rc.A, st);
  p.b = test::operand(rc.B, st);
  return rc;
}

// C after one launch of `cand` on the problem, starting from a copy of `c`.
template <class T>
Buffer<T> launched(const Candidate& cand, Problem p, Buffer<T> c, Storage st) {
  // The copy's pointer array must point into the copy, not into `c`'s original.
  for (std::size_t i = 0; i < c.pointers.size(); ++i) {
    c.pointers[i] = c.item(c.stride == 0 ? 0 : static_cast<std::int64_t>(i));
  }
  p.c = test::operand(c, st);
  cand.launch(p, kExec);
  return c;
}

class CandidateTest : public ::testing::TestWithParam<Param> {
 protected:
  const Candidate& candidate() const { return *cpu_backend().find(GetParam().spelling); }
};

template <class F>
void for_scalar(Scalar s, F&& f) {
  dispatch(s, std::forward<F>(f));
}

// A plain problem of the parameter's scalar (4x4x4 N N, two packed items, no operands): a
// candidate that refuses it refuses the scalar itself (LIBXSMM has no complex GEMM) or cannot
// run here at all (a library not installed).
Verdict refusal_of_scalar(const Candidate& c, Scalar s) {
  Problem p;
  p.dtype = s;
  p.m = p.n = p.k = 4;
  p.batch = 2;
  p.a.ld = p.b.ld = p.c.ld = 4;
  return c.can_run(p);
}

TEST_P(CandidateTest, MatchesReferenceInEveryFormAndStorage) {
  if (Verdict v = refusal_of_scalar(candidate(), GetParam().dtype); !v.ok) {
    GTEST_SKIP() << candidate().spelling() << " refuses " << to_string(GetParam().dtype) << ": "
                 << v.reason;
  }
  std::mt19937_64 rng(12345);
  int ran = 0;
  for_scalar(GetParam().dtype, [&]<class T>() {
    for (Op ta : forms(GetParam().dtype)) {
      for (Op tb : forms(GetParam().dtype)) {
        for (Storage st :
             {Storage::packed, Storage::padded, Storage::broadcast, Storage::pointers}) {
          for (const Shape& s : kShapes) {
            // alpha and beta: random (complex where the scalar is), then 1 and -1.
            const T alpha = ran % 5 == 0 ? T(1) : test::random_scalar<T>(rng);
            const T beta = ran % 7 == 0 ? T(1) : test::random_scalar<T>(rng);
            Outcome o = run_case<T>(candidate(), ta, tb, s, st, alpha, beta, rng);
            SCOPED_TRACE(std::string(to_string(ta)) + std::string(to_string(tb)) + " " +
                         test::name(st) + " " + std::to_string(s.m) + "x" + std::to_string(s.n) +
                         "x" + std::to_string(s.k) + " b" + std::to_string(s.batch));
            EXPECT_EQ(o.failure, "");
            ran += o.ran;
          }
        }
      }
    }
  });
  EXPECT_GT(ran, 0) << "the candidate ran no case";
}

TEST_P(CandidateTest, BetaZeroNeverReadsC) {
  std::mt19937_64 rng(7);
  for_scalar(GetParam().dtype, [&]<class T>() {
    for (Op ta : forms(GetParam().dtype)) {
      for (const Shape& s : {Shape{4, 4, 4, 2}, Shape{16, 9, 5, 3}, Shape{13, 11, 17, 1}}) {
        // alpha 1 too: LIBXSMM's own beta = 0 kernels run only then.
        for (T alpha : {test::random_scalar<T>(rng), T(1)}) {
          Outcome o = run_case<T>(candidate(), ta, Op::N, s, Storage::padded, alpha, T(0), rng,
                                  /*nan_in_c=*/true);
          EXPECT_EQ(o.failure, "") << to_string(ta) << " " << s.m;
        }
      }
    }
  });
}

TEST_P(CandidateTest, AlphaZeroNeverReadsAOrB) {
  std::mt19937_64 rng(8);
  for_scalar(GetParam().dtype, [&]<class T>() {
    for (T beta : {T(0), T(1), test::random_scalar<T>(rng)}) {
      for (const Shape& s : {Shape{4, 4, 4, 2}, Shape{16, 9, 5, 3}, Shape{13, 11, 17, 1}}) {
        Outcome o = run_case<T>(candidate(), Op::N, Op::T, s, Storage::padded, T(0), beta, rng,
                                false, /*nan_in_ab=*/true);
        EXPECT_EQ(o.failure, "") << s.m;
      }
    }
  });
}

TEST_P(CandidateTest, KZeroScalesCByBeta) {
  std::mt19937_64 rng(9);
  for_scalar(GetParam().dtype, [&]<class T>() {
    for (T beta : {T(0), T(1), test::random_scalar<T>(rng)}) {
      Outcome o = run_case<T>(candidate(), Op::N, Op::N, Shape{5, 6, 0, 3}, Storage::padded,
                              test::random_scalar<T>(rng), beta, rng);
      EXPECT_EQ(o.failure, "");
    }
  });
}

// beta NaN is not zero: C is read and every element comes out NaN, as in reference BLAS
// (BLIS 0.9 dropped a NaN beta, found by the API fuzzer; OpenBLAS's complex path did too). For
// complex scalars NaN in either part.
TEST_P(CandidateTest, NaNBetaMakesEveryElementOfCNaN) {
  if (const Verdict v = refusal_of_scalar(candidate(), GetParam().dtype); !v.ok) {
    GTEST_SKIP() << v.reason;
  }
  std::mt19937_64 rng(10);
  for_scalar(GetParam().dtype, [&]<class T>() {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<std::complex<double>> betas = {{nan, 0}};
    if (is_complex(scalar_of_v<T>)) betas.push_back({0, nan});
    for (const std::complex<double>& beta : betas) {
      for (const Shape& s : {Shape{4, 4, 4, 2}, Shape{15, 1, 1, 1}, Shape{13, 11, 17, 1}}) {
        RandomCase<T> rc = random_case<T>(Op::N, s, Storage::padded, rng);
        rc.p.beta = beta;
        rc.p.c = test::operand(rc.C, Storage::padded);
        if (!candidate().can_run(rc.p).ok) continue;  // a size the candidate refuses
        const Buffer<T> c = launched(candidate(), rc.p, rc.C, Storage::padded);
        for (std::int64_t i = 0; i < s.batch; ++i) {
          for (std::int64_t col = 0; col < s.n; ++col) {
            for (std::int64_t row = 0; row < s.m; ++row) {
              const std::complex<double> v(c.item(i)[row + col * c.ld]);
              EXPECT_TRUE(std::isnan(v.real()) || std::isnan(v.imag()))
                  << "beta " << beta << " " << s.m << "x" << s.n << "x" << s.k << " item " << i
                  << " (" << row << ", " << col << ") = " << v;
            }
          }
        }
      }
    }
  });
}

// C ending exactly at an unmapped page, or 8 to 24 bytes before it, beta != 0: no candidate
// reads past C's last element onto that page (BLIS 0.9 read 8 bytes past it at m = 2, 3, 15, 31
// on an AVX-512 Xeon: a fault here, found by the API fuzzer; the BLIS candidates run such a C
// as a copy with room after it), and the result matches the reference.
TEST_P(CandidateTest, CEndingAtAnUnmappedPageIsNotReadPast) {
  if (const Verdict v = refusal_of_scalar(candidate(), GetParam().dtype); !v.ok) {
    GTEST_SKIP() << v.reason;
  }
  std::mt19937_64 rng(11);
  for_scalar(GetParam().dtype, [&]<class T>() {
    for (const std::size_t slack : {0u, 8u, 16u, 24u}) {
      for (const Shape& s : {Shape{2, 1, 4, 1}, Shape{3, 3, 4, 1}, Shape{15, 1, 1, 1},
                             Shape{31, 2, 5, 1}, Shape{18, 3, 2, 1}}) {
        RandomCase<T> rc = random_case<T>(Op::N, s, Storage::padded, rng);
        const std::size_t bytes = static_cast<std::size_t>(s.m * s.n) * sizeof(T) + slack;
        const test::GuardedBytes guarded(bytes);
        T* c = reinterpret_cast<T*>(guarded.end() - bytes);
        std::vector<T> c0(static_cast<std::size_t>(s.m * s.n));
        for (T& x : c0) x = test::random_scalar<T>(rng);
        std::copy(c0.begin(), c0.end(), c);
        rc.p.c = {c, nullptr, s.m, s.m * s.n};
        if (candidate().can_run(rc.p).ok) {
          candidate().launch(rc.p, kExec);
          Problem orig = rc.p;
          orig.c = {c0.data(), nullptr, s.m, s.m * s.n};
          const auto check = reference::check_against_reference(rc.p, orig);
          EXPECT_TRUE(check.ok) << s.m << "x" << s.n << "x" << s.k << " slack " << slack
                                << ": " << check.message;
        }
      }
    }
  });
}

// The same call with C at two places, ending at an unmapped page and well inside a mapped one,
// beta != 0: the same bytes (the BLIS candidates run the first as a copy of C, the second on C
// itself, and that must not show in C).
TEST_P(CandidateTest, CWhereverItLiesGivesTheSameBytes) {
  if (const Verdict v = refusal_of_scalar(candidate(), GetParam().dtype); !v.ok) {
    GTEST_SKIP() << v.reason;
  }
  std::mt19937_64 rng(12);
  for_scalar(GetParam().dtype, [&]<class T>() {
    for (const Shape& s : {Shape{2, 1, 4, 1}, Shape{15, 13, 66, 1}, Shape{95, 13, 66, 1},
                           Shape{31, 20, 300, 1}, Shape{64, 64, 64, 1}}) {
      for (const Op ta : forms(GetParam().dtype)) {
        RandomCase<T> rc = random_case<T>(ta, s, Storage::packed, rng);
        const std::size_t bytes = static_cast<std::size_t>(s.m * s.n) * sizeof(T);
        const test::GuardedBytes guarded(bytes + 64);
        std::vector<T> c0(static_cast<std::size_t>(s.m * s.n));
        for (T& x : c0) x = test::random_scalar<T>(rng);
        std::vector<std::vector<T>> out;
        for (const std::size_t slack : {0u, 64u}) {
          T* c = reinterpret_cast<T*>(guarded.end() - bytes - slack);
          std::copy(c0.begin(), c0.end(), c);
          rc.p.c = {c, nullptr, s.m, s.m * s.n};
          if (!candidate().can_run(rc.p).ok) break;
          candidate().launch(rc.p, kExec);
          out.emplace_back(c, c + c0.size());
        }
        if (out.size() == 2) {
          EXPECT_TRUE(test::same_bytes(out[0], out[1]))
              << s.m << "x" << s.n << "x" << s.k << " ta " << static_cast<int>(ta);
        }
      }
    }
  });
}

TEST_P(CandidateTest, SameCallTwiceGivesIdenticalBytes) {
  for_scalar(GetParam().dtype, [&]<class T>() {
    for (const Shape& s : {Shape{8, 8, 8, 64}, Shape{13, 7, 16, 33}, Shape{40, 40, 40, 3}}) {
      std::mt19937_64 rng(99);
      RandomCase<T> rc = random_case<T>(Op::N, s, Storage::packed, rng);
      if (!candidate().can_run(rc.p).ok) continue;
      const auto first = launched(candidate(), rc.p, rc.C, Storage::packed);
      const auto second = launched(candidate(), rc.p, rc.C, Storage::packed);
      EXPECT_TRUE(test::same_bytes(first.data, second.data)) << s.m;
    }
  });
}

// can_run true <=> launch succeeds (and false <=> launch throws not_runnable).
TEST_P(CandidateTest, CanRunMatchesLaunch) {
  std::mt19937_64 rng(10);
  for_scalar(GetParam().dtype, [&]<class T>() {
    for (std::int64_t size : {1, 4, 15, 16, 17, 32}) {
      for (Op ta : forms(GetParam().dtype)) {
        Problem p;
        p.dtype = scalar_of_v<T>;
        p.ta = ta;
        p.m = size;
        p.n = size + (size > 1);
        p.k = size;
        p.batch = 2;
        p.alpha = 1.0;
        p.beta = 0.5;
        auto A = test::make_buffer<T>(p.rows_a(), p.cols_a(), 2, Storage::packed, false, rng);
        auto B = test::make_buffer<T>(p.rows_b(), p.cols_b(), 2, Storage::packed, false, rng);
        auto C = test::make_buffer<T>(p.m, p.n, 2, Storage::packed, false, rng);
        p.a = test::operand(A, Storage::packed);
        p.b = test::operand(B, Storage::packed);
        p.c = test::operand(C, Storage::packed);
        Verdict v = candidate().can_run(p);
        if (v.ok) {
          EXPECT_NO_THROW(candidate().launch(p, kExec)) << size;
        } else {
          EXPECT_STRNE(v.reason, "") << "a refusal must say why";
          try {
            candidate().launch(p, kExec);
            ADD_FAILURE() << "launch ran a problem can_run refused, size " << size;
          } catch (const Error& e) {
            EXPECT_EQ(e.code(), Errc::not_runnable);
          }
        }
      }
    }
  });
}

std::vector<Param> all_params() {
  std::vector<Param> out;
  for (const Candidate* c : cpu_backend().candidates()) {
    for (Scalar s : {Scalar::f32, Scalar::f64, Scalar::c32, Scalar::c64}) {
      out.push_back({std::string(c->spelling()), s});
    }
  }
  return out;
}

std::string param_name(const ::testing::TestParamInfo<Param>& info) {
  std::string s;
  for (char ch : info.param.spelling) s += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return s + "_" + std::string(to_string(info.param.dtype));
}

INSTANTIATE_TEST_SUITE_P(Cpu, CandidateTest, ::testing::ValuesIn(all_params()), param_name);

// The native kernels promise bitwise the same C on any number of threads (docs/decisions.md):
// one thread against all of them, on batches that are split over items and inside an item.
// OpenBLAS's own threading is its own business.
template <class T>
void expect_thread_count_free(const Candidate& candidate) {
  for (const Shape& s :
       {Shape{29, 45, 60, 1}, Shape{13, 7, 16, 33}, Shape{40, 40, 40, 3}, Shape{3, 3, 3, 2000}}) {
    std::mt19937_64 rng(101);
    // op(A) = A for the tiny-item kernels (which take only that form), T or C otherwise.
    const Op ta = s.m <= 4 ? Op::N : is_complex(scalar_of_v<T>) ? Op::C : Op::T;
    RandomCase<T> rc = random_case<T>(ta, s, Storage::padded, rng);
    if (!candidate.can_run(rc.p).ok) continue;
    const auto many = launched(candidate, rc.p, rc.C, Storage::padded);
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const auto one = launched(candidate, rc.p, rc.C, Storage::padded);
    omp_set_num_threads(threads);
    EXPECT_TRUE(test::same_bytes(many.data, one.data))
        << candidate.spelling() << " " << to_string(rc.p.dtype) << " " << s.m << "x" << s.n << "x"
        << s.k;
  }
}

TEST(CpuNative, ResultsDoNotDependOnTheThreadCount) {
  if (omp_get_max_threads() < 2) GTEST_SKIP() << "needs two threads";
  int native = 0;
  for (const Candidate* c : cpu_backend().candidates()) {
    if (c->provider() != Provider::native) continue;
    ++native;
    for (Scalar s : {Scalar::f32, Scalar::f64, Scalar::c32, Scalar::c64}) {
      for_scalar(s, [&]<class T>() { expect_thread_count_free<T>(*c); });
    }
  }
  EXPECT_GE(native, 3);
}

// A problem in any forms with operands from rng; alpha and beta as given (random when unset).
template <class T>
RandomCase<T> forms_case(Op ta, Op tb, const Shape& s, Storage st, std::mt19937_64& rng,
                         std::optional<T> alpha = {}, std::optional<T> beta = {}) {
  RandomCase<T> rc = random_case<T>(ta, Shape{s.m, s.n, s.k, s.batch}, st, rng);
  Problem& p = rc.p;
  p.tb = tb;
  rc.B = test::make_buffer<T>(p.rows_b(), p.cols_b(), s.batch, st, false, rng);
  p.b = test::operand(rc.B, st);
  if (alpha) p.alpha = std::complex<double>(*alpha);
  if (beta) p.beta = std::complex<double>(*beta);
  return rc;
}

// Shapes at the edges of the native order's chained complex block (4 rows of c64, 8 of c32,
// 6 columns) and of cpu.tile's k slab, besides kShapes.
const std::vector<Shape> kOrderShapes = {
    {3, 5, 7, 2},   {4, 6, 7, 1},   {5, 7, 9, 2},   {8, 12, 3, 1},  {9, 13, 5, 2},
    {12, 6, 16, 1}, {16, 18, 2, 1}, {17, 11, 9, 1}, {6, 4, 257, 1}, {10, 7, 600, 1}};

// The native kernels sum every element in one order (cpu/native_order.hpp), so whichever the
// table picks, C is the same to the bit: every form, storage, alpha and beta, against
// cpu.direct.
TEST(CpuNative, EveryNativeKernelGivesTheSameBits) {
  const Candidate& direct = cpu_backend().last_resort_native();
  std::vector<const Candidate*> others;
  for (const Candidate* c : cpu_backend().candidates()) {
    if (c->provider() == Provider::native && c != &direct) others.push_back(c);
  }
  ASSERT_GE(others.size(), 2u);
  std::vector<Shape> shapes = kShapes;
  shapes.insert(shapes.end(), kOrderShapes.begin(), kOrderShapes.end());
  int compared = 0;
  for (Scalar dt : {Scalar::f32, Scalar::f64, Scalar::c32, Scalar::c64}) {
    for_scalar(dt, [&]<class T>() {
      std::mt19937_64 rng(777);
      for (Op ta : forms(dt)) {
        for (Op tb : forms(dt)) {
          for (Storage st : {Storage::padded, Storage::pointers}) {
            for (const Shape& s : shapes) {
              for (int scalars = 0; scalars < 3; ++scalars) {
                // Random alpha and beta; beta == 0; LAPACK's alpha = -1, beta = 1.
                std::optional<T> alpha, beta;
                if (scalars == 1) beta = T(0);
                if (scalars == 2) alpha = T(-1), beta = T(1);
                RandomCase<T> rc = forms_case<T>(ta, tb, s, st, rng, alpha, beta);
                const auto want = launched(direct, rc.p, rc.C, st);
                for (const Candidate* c : others) {
                  if (!c->can_run(rc.p).ok) continue;
                  const auto got = launched(*c, rc.p, rc.C, st);
                  ++compared;
                  EXPECT_TRUE(test::same_bytes(got.data, want.data))
                      << c->spelling() << " vs cpu.direct: " << to_string(dt) << " "
                      << to_string(ta) << to_string(tb) << " " << s.m << "x" << s.n << "x" << s.k
                      << " x" << s.batch << " " << test::name(st) << " scalars " << scalars;
                }
              }
            }
          }
        }
      }
    });
  }
  EXPECT_GT(compared, 1000);
}

// Where OpenBLAS 0.3.21 runs its AVX2 complex kernels (the Haswell and Zen ones) on one
// thread with k <= 192, the native order is its order, so for LAPACK's scalars (alpha = +-1,
// beta 0 or 1) every native kernel gives OpenBLAS's bits. Other OpenBLAS builds or cores sum
// otherwise; there the test says so and skips.
TEST(CpuNative, ComplexKernelsGiveOpenBlasBitsForLapackScalars) {
  const std::string config = cpu::openblas_config(), core = cpu::openblas_corename();
  const bool known = config.find("OpenBLAS 0.3.21") != std::string::npos &&
                     (core == "Zen" || core == "Haswell" || core == "zen" || core == "haswell");
  if (!known) GTEST_SKIP() << "OpenBLAS '" << config << "' core '" << core << "'";
  const Candidate& vendor = cpu_backend().last_resort_vendor();
  int compared = 0;
  for (Scalar dt : {Scalar::c32, Scalar::c64}) {
    for_scalar(dt, [&]<class T>() {
      std::mt19937_64 rng(4242);
      for (Op ta : forms(dt)) {
        for (Op tb : forms(dt)) {
          for (const Shape& s :
               {Shape{1, 1, 3, 1}, Shape{3, 5, 7, 1}, Shape{4, 6, 1, 1}, Shape{8, 12, 30, 1},
                Shape{9, 13, 20, 1}, Shape{12, 7, 64, 1}, Shape{10, 11, 40, 1}}) {
            for (auto [alpha, beta] : {std::pair{T(1), T(0)}, std::pair{T(-1), T(1)}}) {
              RandomCase<T> rc = forms_case<T>(ta, tb, s, Storage::padded, rng, alpha, beta);
              const auto want = launched(vendor, rc.p, rc.C, Storage::padded);
              for (const Candidate* c : cpu_backend().candidates()) {
                if (c->provider() != Provider::native || !c->can_run(rc.p).ok) continue;
                const auto got = launched(*c, rc.p, rc.C, Storage::padded);
                ++compared;
                EXPECT_TRUE(test::same_bytes(got.data, want.data))
                    << c->spelling() << " vs openblas: " << to_string(dt) << " " << to_string(ta)
                    << to_string(tb) << " " << s.m << "x" << s.n << "x" << s.k;
              }
            }
          }
        }
      }
    });
  }
  EXPECT_GT(compared, 100);
}

TEST(CpuBackend, EveryCandidateIsInTheVocabularyOnce) {
  const Backend& b = cpu_backend();
  std::set<std::string_view> seen;
  for (const Candidate* c : b.candidates()) EXPECT_TRUE(seen.insert(c->spelling()).second);
  EXPECT_EQ(b.find("cpu.direct"), &b.last_resort_native());
  EXPECT_EQ(b.find("openblas"), &b.last_resort_vendor());
  EXPECT_EQ(b.last_resort_vendor().provider(), Provider::vendor);
  EXPECT_EQ(b.last_resort_native().provider(), Provider::native);
  EXPECT_EQ(b.find("cpu.nothing"), nullptr);
}

TEST(CpuBackend, SmallRefusesAboveSixteenWithAReason) {
  Problem p;
  p.m = 17;
  p.n = 4;
  p.k = 4;
  p.batch = 1;
  Verdict v = cpu_backend().find("cpu.small")->can_run(p);
  EXPECT_FALSE(v.ok);
  EXPECT_STREQ(v.reason, "max(m, n, k) > 16");
}

}  // namespace
}  // namespace gemmroute
