// The public API: argument errors before any write, BLAS quick returns, row-major calls,
// pointer arrays, grouped batches, pins, routes, the environment and determinism.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include "core/candidate.hpp"
#include "core/context_state.hpp"
#include "core/problem.hpp"
#include "gemmroute/gemmroute.hpp"
#include "reference/reference.hpp"
#include "support.hpp"

namespace gemmroute {
namespace {

// Sets environment variables for one scope (a Context reads them when made).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_.c_str(), old_.c_str(), 1);
    else
      unsetenv(name_.c_str());
  }

 private:
  std::string name_, old_;
  bool had_ = false;
};

struct Operands {
  std::int64_t m = 5, n = 4, k = 3, batch = 2;
  std::vector<float> a, b, c;
  Operands() {
    std::mt19937_64 rng(1);
    for (std::int64_t i = 0; i < m * k * batch; ++i) a.push_back(test::random_scalar<float>(rng));
    for (std::int64_t i = 0; i < k * n * batch; ++i) b.push_back(test::random_scalar<float>(rng));
    for (std::int64_t i = 0; i < m * n * batch; ++i) c.push_back(test::random_scalar<float>(rng));
  }
};

// Calls gemm with one argument changed and expects Error naming `arg`, with C untouched.
template <class Mutate>
void expect_rejected(const std::string& arg, Mutate mutate) {
  Context ctx;
  Operands o;
  struct Call {
    Order order = Order::col_major;
    Op ta = Op::N, tb = Op::N;
    std::int64_t m, n, k, lda, sa, ldb, sb, ldc, sc, batch;
    const float* a;
    const float* b;
    float* c;
  } call{Order::col_major, Op::N,     Op::N,     o.m, o.n,       o.k,     o.m,
         o.m * o.k,        o.k,       o.k * o.n, o.m, o.m * o.n, o.batch, o.a.data(),
         o.b.data(),       o.c.data()};
  mutate(call);
  const auto before = o.c;
  try {
    gemm<float>(ctx, call.order, call.ta, call.tb, call.m, call.n, call.k, 1.5f, call.a, call.lda,
                call.sa, call.b, call.ldb, call.sb, 0.5f, call.c, call.ldc, call.sc, call.batch);
    ADD_FAILURE() << "no error for " << arg;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument) << e.what();
    EXPECT_EQ(e.argument(), arg) << e.what();
    EXPECT_NE(std::string(e.what()).find("'" + arg + "'"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(test::same_bytes(o.c, before)) << "C changed by a rejected call (" << arg << ")";
}

TEST(GemmArguments, EveryInvalidArgumentIsNamedAndCIsUntouched) {
  expect_rejected("ta", [](auto& c) { c.ta = static_cast<Op>(9); });
  expect_rejected("tb", [](auto& c) { c.tb = static_cast<Op>(9); });
  expect_rejected("m", [](auto& c) { c.m = -1; });
  expect_rejected("n", [](auto& c) { c.n = -1; });
  expect_rejected("k", [](auto& c) { c.k = -2; });
  expect_rejected("batch", [](auto& c) { c.batch = -1; });
  expect_rejected("lda", [](auto& c) { c.lda = 4; });
  expect_rejected("ldb", [](auto& c) { c.ldb = 2; });
  expect_rejected("ldc", [](auto& c) { c.ldc = 4; });
  expect_rejected("lda", [](auto& c) {  // op(A) = A^T: A is k x m, lda >= k = 3
    c.ta = Op::T;
    c.lda = 2;
  });
  expect_rejected("ldb", [](auto& c) {  // op(B) = B^H folds to B^T: B is n x k, ldb >= n = 4
    c.tb = Op::C;
    c.ldb = 3;
  });
}

TEST(GemmArguments, StridesPointersAndOverflow) {
  expect_rejected("stride_a", [](auto& c) { c.sa = -1; });
  expect_rejected("stride_b", [](auto& c) { c.sb = -4; });
  expect_rejected("stride_c", [](auto& c) { c.sc = 0; });
  expect_rejected("a", [](auto& c) { c.a = nullptr; });
  expect_rejected("b", [](auto& c) { c.b = nullptr; });
  expect_rejected("c", [](auto& c) { c.c = nullptr; });
  expect_rejected("stride_a", [](auto& c) {
    c.sa = std::int64_t{1} << 62;
    c.batch = 5;
  });
}

// validate() clears the common case (everything below 2^31) in a few tests and sends the rest
// through the checks in order: beyond 2^31 a batch that fits is still valid, one that
// overflows is still named, and a real C form still folds to T on either path.
TEST(GemmArguments, ValidationBeyondTheFastPathStillDecides) {
  float storage[3] = {};
  auto problem = [&](std::int64_t stride_a, std::int64_t batch) {
    Problem p;
    p.dtype = Scalar::f32;
    p.ta = Op::C;
    p.m = p.n = p.k = 1;
    p.batch = batch;
    p.a = {storage, nullptr, 1, stride_a};
    p.b = {storage + 1, nullptr, 1, 1};
    p.c = {storage + 2, nullptr, 1, 1};
    return p;
  };
  for (std::int64_t stride : {std::int64_t{1}, std::int64_t{1} << 40}) {
    Problem p = problem(stride, 3);
    EXPECT_NO_THROW(validate(p)) << stride;
    EXPECT_EQ(p.ta, Op::T) << stride;
  }
  Problem over = problem(std::int64_t{1} << 62, 5);
  try {
    validate(over);
    ADD_FAILURE() << "an overflowing extent was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), "stride_a");
  }
}

TEST(GemmArguments, RowMajorErrorsNameTheCallersArguments) {
  // Row-major: A is m x k with lda >= k; B is k x n with ldb >= n.
  expect_rejected("lda", [](auto& c) {
    c.order = Order::row_major;
    c.lda = 2;  // < k = 3
    c.ldb = 4;
    c.ldc = 4;
  });
  expect_rejected("ldb", [](auto& c) {
    c.order = Order::row_major;
    c.lda = 3;
    c.ldb = 3;  // < n = 4
    c.ldc = 4;
  });
  expect_rejected("m", [](auto& c) {
    c.order = Order::row_major;
    c.m = -3;
  });
}

TEST(GemmSemantics, EmptySizesAndZeroBatchLeaveCUntouched) {
  Context ctx;
  for (auto [m, n, batch] : {std::tuple{0, 4, 2}, {5, 0, 2}, {5, 4, 0}}) {
    Operands o;
    const auto before = o.c;
    // Null A and B are fine when nothing is computed.
    gemm<float>(ctx, Op::N, Op::N, m, n, 3, 1.0f, nullptr, 5, 15, nullptr, 3, 12, 0.0f, o.c.data(),
                5, 20, batch);
    EXPECT_TRUE(test::same_bytes(o.c, before));
  }
}

TEST(GemmSemantics, AlphaZeroAcceptsNullAAndBAndScalesC) {
  Context ctx;
  Operands o;
  auto want = o.c;
  for (float& x : want) x *= 0.5f;
  gemm<float>(ctx, Op::N, Op::N, o.m, o.n, o.k, 0.0f, nullptr, o.m, 0, nullptr, o.k, 0, 0.5f,
              o.c.data(), o.m, o.m * o.n, o.batch);
  EXPECT_TRUE(test::same_bytes(o.c, want));
}

TEST(GemmSemantics, RowMajorMatchesTheTransposedColumnMajorCall) {
  Context ctx;
  std::mt19937_64 rng(3);
  const std::int64_t m = 7, n = 5, k = 6;
  std::vector<double> a(m * k), b(k * n), c_row(m * n, 0.0), c_col(m * n, 0.0);
  for (auto& x : a) x = test::random_scalar<double>(rng);
  for (auto& x : b) x = test::random_scalar<double>(rng);
  // Row-major A (m x k, lda = k) is column-major A^T (k x m).
  gemm<double>(ctx, Order::row_major, Op::N, Op::N, m, n, k, 1.0, a.data(), k, 0, b.data(), n, 0,
               0.0, c_row.data(), n, 0, 1);
  gemm<double>(ctx, Op::T, Op::T, m, n, k, 1.0, a.data(), k, 0, b.data(), n, 0, 0.0, c_col.data(),
               m, 0, 1);
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      EXPECT_NEAR(c_row[i * n + j], c_col[i + j * m], 1e-12);
    }
  }
}

TEST(GemmSemantics, PointerArrayWithANullEntryIsNamed) {
  Context ctx;
  Operands o;
  const float* as[] = {o.a.data(), nullptr};
  const float* bs[] = {o.b.data(), o.b.data()};
  float* cs[] = {o.c.data(), o.c.data() + 20};
  const auto before = o.c;
  try {
    gemm<float>(ctx, Op::N, Op::N, o.m, o.n, o.k, 1.0f, as, o.m, bs, o.k, 0.0f, cs, o.m, 2);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), "a");
    EXPECT_NE(std::string(e.what()).find("item 1"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(test::same_bytes(o.c, before));
  try {
    const float* as_ok[] = {o.a.data(), o.a.data() + 15};
    gemm<float>(ctx, Op::N, Op::N, o.m, o.n, o.k, 1.0f, as_ok, o.m, bs, o.k, 0.0f, nullptr, o.m, 2);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), "c");
  }
}

TEST(GemmGrouped, MixedItemsAreCorrectAndAnInvalidItemWritesNothing) {
  Context ctx;
  std::mt19937_64 rng(5);
  struct Item {
    std::int64_t m, n, k;
    std::vector<std::complex<float>> a, b, c0, c;
  };
  std::vector<Item> items;
  for (auto [m, n, k] : {std::tuple{3, 4, 5}, {16, 16, 16}, {3, 4, 5}, {33, 2, 40}}) {
    Item it{m, n, k, {}, {}, {}, {}};
    for (int i = 0; i < m * k; ++i) it.a.push_back(test::random_scalar<std::complex<float>>(rng));
    for (int i = 0; i < k * n; ++i) it.b.push_back(test::random_scalar<std::complex<float>>(rng));
    for (int i = 0; i < m * n; ++i) it.c0.push_back(test::random_scalar<std::complex<float>>(rng));
    it.c = it.c0;
    items.push_back(std::move(it));
  }
  const std::complex<float> alpha(0.5f, -1.0f), beta(2.0f, 0.25f);
  std::vector<GemmItem> list;
  for (auto& it : items) {
    list.push_back(make_item(Op::N, Op::C, it.m, it.n, it.k, alpha, it.a.data(), it.m, it.b.data(),
                             it.n, beta, it.c.data(), it.m));
  }
  // An invalid last item: nothing may be written, not even the valid items before it.
  auto bad = list;
  bad.back().ldc = 1;
  try {
    gemm_grouped(ctx, bad);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), "items[3].ldc");
  }
  for (auto& it : items) EXPECT_TRUE(test::same_bytes(it.c, it.c0));

  gemm_grouped(ctx, list);
  for (auto& it : items) {
    Problem got;
    got.dtype = Scalar::c32;
    got.tb = Op::C;
    got.m = it.m;
    got.n = it.n;
    got.k = it.k;
    got.batch = 1;
    got.alpha = std::complex<double>(alpha);
    got.beta = std::complex<double>(beta);
    got.a = {it.a.data(), nullptr, it.m, 0};
    got.b = {it.b.data(), nullptr, it.n, 0};
    got.c = {it.c.data(), nullptr, it.m, 0};
    Problem orig = got;
    orig.c.base = it.c0.data();
    auto check = reference::check_against_reference(got, orig);
    EXPECT_TRUE(check.ok) << check.message;
  }
}

// gemm_groups: groups of pointer arrays (host memory on the CPU), each checked against the
// reference and equal byte for byte to the same items through gemm_grouped; a bad group
// names itself and writes nothing.
TEST(GemmGroups, GroupsOfPointerArraysMatchGroupedItemsAndABadGroupWritesNothing) {
  Context ctx;
  std::mt19937_64 rng(8);
  struct Part {
    std::int64_t m, n, k, count;
    std::vector<double> a, b, c0, c;
    std::vector<const double*> pa, pb;
    std::vector<double*> pc;
  };
  std::vector<Part> parts;
  for (auto [m, n, k, count] : {std::tuple{3, 4, 5, 7}, {16, 1, 9, 3}, {40, 33, 2, 2}}) {
    Part p{m, n, k, count, {}, {}, {}, {}, {}, {}, {}};
    for (int i = 0; i < m * k * count; ++i) p.a.push_back(test::random_scalar<double>(rng));
    for (int i = 0; i < k * n * count; ++i) p.b.push_back(test::random_scalar<double>(rng));
    for (int i = 0; i < m * n * count; ++i) p.c0.push_back(test::random_scalar<double>(rng));
    p.c = p.c0;
    for (int i = 0; i < count; ++i) {
      p.pa.push_back(p.a.data() + i * m * k);
      p.pb.push_back(p.b.data() + i * k * n);
      p.pc.push_back(p.c.data() + i * m * n);
    }
    parts.push_back(std::move(p));
  }
  const double alpha = 0.75, beta = -1.5;
  std::vector<GemmGroup<double>> groups;
  std::vector<GemmItem> items;
  for (Part& p : parts) {
    GemmGroup<double> g;
    g.tb = Op::T;
    g.m = p.m;
    g.n = p.n;
    g.k = p.k;
    g.alpha = alpha;
    g.beta = beta;
    g.a = p.pa.data();
    g.lda = p.m;
    g.b = p.pb.data();
    g.ldb = p.n;
    g.c = p.pc.data();
    g.ldc = p.m;
    g.count = p.count;
    groups.push_back(g);
    for (int i = 0; i < p.count; ++i) {
      items.push_back(make_item(Op::N, Op::T, p.m, p.n, p.k, alpha, p.pa[i], p.m, p.pb[i], p.n,
                                beta, p.pc[i], p.m));
    }
  }
  auto bad = groups;
  bad[2].ldb = 1;
  try {
    gemm_groups<double>(ctx, bad);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), "groups[2].ldb");
  }
  bad = groups;
  bad[1].count = -1;
  try {
    gemm_groups<double>(ctx, bad);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), "groups[1].count");
  }
  for (const Part& p : parts) EXPECT_TRUE(test::same_bytes(p.c, p.c0));

  gemm_groups<double>(ctx, groups);
  std::vector<std::vector<double>> got;
  for (Part& p : parts) {
    Problem q;
    q.dtype = Scalar::f64;
    q.tb = Op::T;
    q.m = p.m;
    q.n = p.n;
    q.k = p.k;
    q.batch = p.count;
    q.alpha = alpha;
    q.beta = beta;
    q.a = {p.a.data(), nullptr, p.m, p.m * p.k};
    q.b = {p.b.data(), nullptr, p.n, p.k * p.n};
    q.c = {p.c.data(), nullptr, p.m, p.m * p.n};
    Problem orig = q;
    orig.c.base = p.c0.data();
    auto check = reference::check_against_reference(q, orig);
    EXPECT_TRUE(check.ok) << check.message;
    got.push_back(p.c);
    p.c = p.c0;  // the same storage: the arrays still point into it
  }
  gemm_grouped(ctx, items);
  for (std::size_t i = 0; i < parts.size(); ++i) EXPECT_TRUE(test::same_bytes(parts[i].c, got[i]));
}

TEST(GemmGrouped, EachGroupIsSelectedOnItsOwn) {
  ScopedEnv log("GEMMROUTE_LOG", "1");
  Context ctx;
  std::vector<float> a(40 * 40, 0.5f), b(40 * 40, 0.25f), c1(40 * 40), c2(40 * 40), c3(40 * 40);
  std::vector<GemmItem> list = {
      make_item(Op::N, Op::N, 4, 4, 4, 1.0f, a.data(), 4, b.data(), 4, 0.0f, c1.data(), 4),
      make_item(Op::N, Op::N, 40, 40, 40, 1.0f, a.data(), 40, b.data(), 40, 0.0f, c2.data(), 40),
      make_item(Op::N, Op::N, 4, 4, 4, 1.0f, a.data(), 4, b.data(), 4, 0.0f, c3.data(), 4)};
  testing::internal::CaptureStderr();
  gemm_grouped(ctx, list);
  std::string text = testing::internal::GetCapturedStderr();
  // Two groups: the two 4^3 items together (a pointer-array batch of 2), the 40^3 alone.
  EXPECT_NE(text.find("key f32 N N strided 4 4 4 2 |"), std::string::npos) << text;
  EXPECT_NE(text.find("key f32 N N strided 40 40 40 1 |"), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2) << text;
}

// Many small groups run together over the threads (cpu/grouped.cpp): every C must hold the
// very bytes that calling each group on its own gives (the same key, so the same candidate),
// for the table's choices and for each candidate pinned.
TEST(GemmGrouped, ManySmallGroupsGiveTheBytesOfEachGroupAlone) {
  std::mt19937_64 rng(11);
  const std::int64_t sizes[] = {3, 8, 13, 16, 24, 40, 64};
  std::uniform_int_distribution<int> pick(0, 6);
  struct Item {
    std::int64_t m, n, k;
    std::vector<double> a, b, c0, c, alone;
  };
  std::vector<Item> items(600);
  for (auto& it : items) {
    it.m = sizes[pick(rng)];
    it.n = sizes[pick(rng)];
    it.k = sizes[pick(rng)];
    for (int i = 0; i < it.m * it.k; ++i) it.a.push_back(test::random_scalar<double>(rng));
    for (int i = 0; i < it.k * it.n; ++i) it.b.push_back(test::random_scalar<double>(rng));
    for (int i = 0; i < it.m * it.n; ++i) it.c0.push_back(test::random_scalar<double>(rng));
  }
  const double alpha = 0.75, beta = -0.5;
  for (const char* pin : {"", "openblas", "openblas:par=item", "cpu.tile", "cpu.direct"}) {
    Context ctx;
    Options o;
    o.pin = pin;
    std::vector<GemmItem> list;
    for (auto& it : items) {
      it.c = it.c0;
      it.alone = it.c0;
      list.push_back(make_item<double>(Op::N, Op::N, it.m, it.n, it.k, alpha, it.a.data(), it.m,
                                       it.b.data(), it.k, beta, it.c.data(), it.m));
    }
    gemm_grouped(ctx, list, o);
    // Each group alone: the items of one size, in order, as one pointer-array batch.
    std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::vector<Item*>> groups;
    for (auto& it : items) groups[{it.m, it.n, it.k}].push_back(&it);
    for (auto& [mnk, group] : groups) {
      const auto [m, n, k] = mnk;
      std::vector<const double*> a, b;
      std::vector<double*> c;
      for (Item* it : group) {
        a.push_back(it->a.data());
        b.push_back(it->b.data());
        c.push_back(it->alone.data());
      }
      gemm<double>(ctx, Op::N, Op::N, m, n, k, alpha, a.data(), m, b.data(), k, beta, c.data(), m,
                   static_cast<std::int64_t>(group.size()), o);
    }
    for (const auto& it : items) {
      ASSERT_TRUE(test::same_bytes(it.c, it.alone))
          << "pin '" << pin << "' " << it.m << "x" << it.n << "x" << it.k;
    }
  }
}

TEST(GemmOverrides, PinThatCannotRunSaysWhy) {
  Context ctx;
  Operands o;
  Options pin;
  pin.pin = "cpu.small";
  std::vector<float> a(20 * 20), b(20 * 20), c(20 * 20);
  try {
    gemm<float>(ctx, Op::N, Op::N, 20, 20, 20, 1.0f, a.data(), 20, 0, b.data(), 20, 0, 0.0f,
                c.data(), 20, 0, 1, pin);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::not_runnable);
    EXPECT_NE(std::string(e.what()).find("max(m, n, k) > 16"), std::string::npos) << e.what();
  }
  pin.pin = "cpu.nothing";
  EXPECT_THROW(gemm<float>(ctx, Op::N, Op::N, 2, 2, 2, 1.0f, a.data(), 2, 0, b.data(), 2, 0, 0.0f,
                           c.data(), 2, 0, 1, pin),
               Error);
  pin.pin = "openblas";
  pin.route = Route::native;
  EXPECT_THROW(gemm<float>(ctx, Op::N, Op::N, 2, 2, 2, 1.0f, a.data(), 2, 0, b.data(), 2, 0, 0.0f,
                           c.data(), 2, 0, 1, pin),
               Error);
}

TEST(GemmOverrides, EnvironmentIsReadWhenTheContextIsMade) {
  {
    ScopedEnv route("GEMMROUTE_ROUTE", "sideways");
    try {
      Context ctx;
      ADD_FAILURE();
    } catch (const Error& e) {
      EXPECT_EQ(e.argument(), "GEMMROUTE_ROUTE");
    }
  }
  {
    ScopedEnv table("GEMMROUTE_TABLE", "/nonexistent/table");
    try {
      Context ctx;
      ADD_FAILURE();
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::bad_table);
      EXPECT_NE(std::string(e.what()).find("/nonexistent/table:0:0:"), std::string::npos);
    }
  }
  {
    ScopedEnv pin("GEMMROUTE_PIN", "cpu.direct");
    ScopedEnv log("GEMMROUTE_LOG", "1");
    Context ctx;
    Operands o;
    testing::internal::CaptureStderr();
    gemm<float>(ctx, Op::N, Op::N, o.m, o.n, o.k, 1.0f, o.a.data(), o.m, o.m * o.k, o.b.data(), o.k,
                o.k * o.n, 0.0f, o.c.data(), o.m, o.m * o.n, o.batch);
    std::string log_text = testing::internal::GetCapturedStderr();
    EXPECT_NE(log_text.find("gemmroute: key f32 N N packed 5 4 3 2 | pin cpu.direct"),
              std::string::npos)
        << log_text;
    EXPECT_NE(log_text.find("choice cpu.direct"), std::string::npos) << log_text;
  }
}

TEST(GemmDeterminism, SameCallTwiceSameBytes) {
  Context ctx;
  std::mt19937_64 rng(11);
  for (std::int64_t size : {4, 12, 40, 100}) {
    const std::int64_t batch = 17;
    std::vector<double> a(size * size * batch), b(size * size * batch), c(size * size * batch);
    for (auto& x : a) x = test::random_scalar<double>(rng);
    for (auto& x : b) x = test::random_scalar<double>(rng);
    for (auto& x : c) x = test::random_scalar<double>(rng);
    auto c1 = c, c2 = c;
    for (auto* out : {&c1, &c2}) {
      gemm<double>(ctx, Op::T, Op::N, size, size, size, 0.3, a.data(), size, size * size, b.data(),
                   size, size * size, -1.1, out->data(), size, size * size, batch);
    }
    EXPECT_TRUE(test::same_bytes(c1, c2)) << size;
  }
}

// Floats from a 256-byte boundary, so that buffers of one call made in turn have the same
// alignment (a repeat is recognised by each pointer's alignment, up to 256 bytes).
class AlignedFloats {
 public:
  explicit AlignedFloats(std::int64_t n) : raw_(static_cast<std::size_t>(n) + 64) {
    const auto at = reinterpret_cast<std::uintptr_t>(raw_.data());
    data_ = raw_.data() + (256 - at % 256) % 256 / sizeof(float);
    size_ = n;
  }
  float* data() { return data_; }
  std::vector<float> values() const { return {data_, data_ + size_}; }
  void assign(const std::vector<float>& v) { std::copy(v.begin(), v.end(), data_); }

 private:
  std::vector<float> raw_;
  float* data_;
  std::int64_t size_;
};

// A thread's last call is kept so that the same call again skips validation and selection
// (src/core/gemm.cpp). Each variation below differs from the first case in one thing that can
// change what runs (route, determinism, TF32, scalars, forms, sizes, leading dimensions,
// alignment, order, a pin; and the Context): after the first case, it runs twice on this thread,
// the second time as a repeat, and once on a fresh thread that has kept nothing. The repeat must
// choose what the fresh thread chooses, and all three give the same bytes. A fixture table
// makes the choice change with k, ta, batch, m and n; the route changes it too.
struct RepeatCase {
  const char* what;
  Order order = Order::col_major;
  Op ta = Op::N;
  std::int64_t m = 24, n = 20, k = 24, lda = 24, offset = 0, batch = 3;
  float alpha = 1.25f, beta = 0.5f;
  Options options;
};

TEST(GemmRepeat, TheSameCallAgainRunsAsAFreshCallWould) {
  std::vector<RepeatCase> cases(15);
  cases[0].what = "first";
  cases[1].what = "route vendor";
  cases[1].options.route = Route::vendor;
  cases[2].what = "route native";
  cases[2].options.route = Route::native;
  cases[3].what = "k";
  cases[3].k = 16;
  cases[4].what = "deterministic";
  cases[4].options.deterministic = true;
  cases[5].what = "tf32";
  cases[5].options.tf32 = true;
  cases[6].what = "beta 0";
  cases[6].beta = 0.0f;
  cases[7].what = "alpha";
  cases[7].alpha = -3.0f;
  cases[8].what = "op T";
  cases[8].ta = Op::T;
  cases[9].what = "padded lda";
  cases[9].lda = 27;
  cases[10].what = "bases one element on";
  cases[10].offset = 1;
  cases[11].what = "row major";
  cases[11].order = Order::row_major;
  cases[12].what = "batch";
  cases[12].batch = 200;
  cases[13].what = "pin";
  cases[13].options.pin = "cpu.direct";
  cases[14].what = "pin and route";
  cases[14].options.pin = "cpu.direct";
  cases[14].options.route = Route::native;
  std::mt19937_64 rng(21);
  const std::int64_t stride = 16384, room = stride * 200 + 1;
  AlignedFloats a(room), b(room), once(room), again(room), fresh(room);
  std::vector<float> c0(room);
  for (float* x : {a.data(), b.data()}) {
    for (std::int64_t i = 0; i < room; ++i) x[i] = test::random_scalar<float>(rng);
  }
  for (auto& x : c0) x = test::random_scalar<float>(rng);
  // Rows that give the first case, and the cases that change its key, different choices, so a
  // repeat that ran the first case's choice shows in the choice as well as in the bytes.
  const auto table_path = std::filesystem::temp_directory_path() /
                          ("gemmroute-repeat-" + std::to_string(getpid()) + ".table");
  {
    std::ofstream t(table_path);
    t << "gemmroute-table 1\nfingerprint.backend cpu\nmethod transcribed test fixture\n"
         "row f32 N N strided 24 20 24 3 transcribed cpu.tile cpu.direct\n"
         "row f32 N N strided 24 20 16 3 transcribed cpu.direct cpu.tile\n"
         "row f32 T N strided 24 20 24 3 transcribed cpu.direct cpu.tile\n"
         "row f32 N N strided 24 20 24 200 transcribed cpu.direct cpu.tile\n"
         "row f32 N N strided 20 24 24 3 transcribed cpu.direct cpu.tile\n";
  }
  ScopedEnv table("GEMMROUTE_TABLE", table_path.c_str());
  Context ctx, other;
  std::filesystem::remove(table_path);
  auto call = [&](Context& on, const RepeatCase& r, AlignedFloats& c) {
    c.assign(c0);
    // Leading dimensions that fit every case (24: m = k = 24 >= n), so each case changes only
    // what it says.
    gemm<float>(on, r.order, r.ta, Op::N, r.m, r.n, r.k, r.alpha, a.data() + r.offset, r.lda,
                stride, b.data() + r.offset, 24, stride, r.beta, c.data() + r.offset, 24, stride,
                r.batch, r.options);
  };
  auto spelling = [] {
    const Candidate* c = detail::kept_choice();
    return c ? std::string(c->spelling()) : std::string("(none)");
  };
  for (Context* on : {&ctx, &other}) {
    for (const RepeatCase& r : cases) {
      call(*on, cases[0], once);  // kept: each case differs from it in one thing
      call(*on, cases[0], once);
      call(*on, r, once);
      const std::string chosen = spelling();
      call(*on, r, again);  // the thread's last call: kept
      std::string fresh_choice;
      std::thread([&] {
        call(*on, r, fresh);
        fresh_choice = spelling();
      }).join();
      EXPECT_EQ(chosen, fresh_choice) << r.what;
      EXPECT_EQ(spelling(), fresh_choice) << r.what << ", repeated";
      EXPECT_TRUE(test::same_bytes(once.values(), fresh.values())) << r.what;
      EXPECT_TRUE(test::same_bytes(again.values(), fresh.values())) << r.what << ", repeated";
    }
  }
  // Each case in turn with the first, so that both are found among the thread's kept calls,
  // not only as its last: each still runs as a fresh call would.
  for (const RepeatCase& r : cases) {
    for (int turn = 0; turn < 3; ++turn) {
      call(ctx, cases[0], once);
      call(ctx, r, again);
    }
    std::string fresh_choice;
    std::thread([&] {
      call(ctx, r, fresh);
      fresh_choice = spelling();
    }).join();
    EXPECT_EQ(spelling(), fresh_choice) << r.what << ", in turn with the first";
    EXPECT_TRUE(test::same_bytes(again.values(), fresh.values()))
        << r.what << ", in turn with the first";
  }
}

// A pinned call is kept like a routed one, but a repeat whose pin names nothing, or names a
// candidate the call's route refuses, is refused as a first call is, writing nothing.
TEST(GemmRepeat, ARepeatWithAPinThatCannotRunIsStillRefused) {
  Context ctx;
  Operands o;
  auto call = [&](const Options& opt) {
    gemm<float>(ctx, Op::N, Op::N, o.m, o.n, o.k, 1.5f, o.a.data(), o.m, o.m * o.k, o.b.data(), o.k,
                o.k * o.n, 0.5f, o.c.data(), o.m, o.m * o.n, o.batch, opt);
  };
  Options routed, pinned, nothing, refused;
  pinned.pin = "cpu.direct";
  nothing.pin = "cpu.nothing";
  refused.pin = "openblas";
  refused.route = Route::native;
  for (const Options* kept : {&routed, &pinned}) {
    call(*kept);
    call(*kept);  // a repeat: kept
    if (kept == &pinned) {
      EXPECT_EQ(detail::kept_choice()->spelling(), "cpu.direct");
    }
    const auto before = o.c;
    for (const Options* bad : {&nothing, &refused}) {
      try {
        call(*bad);
        ADD_FAILURE() << "no error for pin " << bad->pin;
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), Errc::not_runnable) << e.what();
      }
      EXPECT_TRUE(test::same_bytes(o.c, before)) << bad->pin;
    }
  }
}

// A repeat that differs only in a pointer being null is refused, naming it, as a first call is.
TEST(GemmRepeat, ARepeatWithANullPointerIsStillRefused) {
  Context ctx;
  Operands o;
  auto call = [&](const float* b) {
    gemm<float>(ctx, Op::N, Op::N, o.m, o.n, o.k, 1.5f, o.a.data(), o.m, o.m * o.k, b, o.k,
                o.k * o.n, 0.5f, o.c.data(), o.m, o.m * o.n, o.batch);
  };
  call(o.b.data());
  call(o.b.data());
  const auto before = o.c;
  try {
    call(nullptr);
    ADD_FAILURE() << "no error for a null B";
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), "b") << e.what();
  }
  EXPECT_TRUE(test::same_bytes(o.c, before));
}

// Two machines sold under one name (one fingerprint id) each get their own table: the default
// table is the one of <id>.table and <id>-<label>.table whose fingerprint matches the device in
// the most fields; <id>.table on a tie; generic.table only where no table of the id exists.
TEST(DefaultTable, TheTableOfTheIdWhoseFingerprintMatchesMost) {
  namespace fs = std::filesystem;
  const auto backend = make_backend(Device::cpu());
  const Fingerprint& mine = backend->fingerprint();
  const std::string id = mine.id();
  const fs::path root =
      fs::temp_directory_path() / ("gemmroute-tables-" + std::to_string(getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "cpu");
  auto write = [&](const std::string& name, const std::string& openblas) {
    std::ofstream t(root / "cpu" / name);
    t << "gemmroute-table 2\n";
    for (const auto& [k, v] : mine.fields) {
      t << "fingerprint." << k << " " << (k == "openblas" ? openblas : v) << "\n";
    }
    t << "method transcribed test fixture\nrow f32 N N packed 2 2 2 1 transcribed cpu.direct\n";
  };
  const std::vector<std::string> dirs{root.string()};
  const std::string& openblas = *mine.get("openblas");
  EXPECT_EQ(default_table_path(*backend, dirs), "");
  write("generic.table", openblas);
  EXPECT_EQ(default_table_path(*backend, dirs), (root / "cpu" / "generic.table").string());
  write(id + ".table", "another OpenBLAS");
  EXPECT_EQ(default_table_path(*backend, dirs), (root / "cpu" / (id + ".table")).string());
  write(id + "x.table", openblas);  // not of the id: no '-' after it
  write(id + "-zen9.table", openblas);
  EXPECT_EQ(default_table_path(*backend, dirs), (root / "cpu" / (id + "-zen9.table")).string());
  write(id + ".table", openblas);  // a tie: the plain name
  EXPECT_EQ(default_table_path(*backend, dirs), (root / "cpu" / (id + ".table")).string());
  fs::remove_all(root);
}

}  // namespace
}  // namespace gemmroute
