// The public API on a CUDA Context: device pointers (strided and pointer arrays), every
// candidate pinned and the table's choice, the caller's stream, CUDA graph capture, several
// host threads on their own Contexts and on one, grouped batches, and the error a machine
// without a GPU gives.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <exception>
#include <memory>
#include <random>
#include <thread>

#include "core/context_state.hpp"
#include "gemmroute/gemmroute.hpp"
#include "gpu.hpp"
#include "reference/reference.hpp"

namespace gemmroute {
namespace {

// A strided batch in host memory with a device copy; check() compares the device C after the
// calls against `calls` applications of the reference.
template <class T>
struct Batch {
  std::int64_t m, n, k, batch;
  std::vector<T> a, b, c0;
  test::DeviceMemory da, db, dc;
  T alpha, beta;

  Batch(std::int64_t m_, std::int64_t n_, std::int64_t k_, std::int64_t batch_,
        std::mt19937_64& rng)
      : m(m_),
        n(n_),
        k(k_),
        batch(batch_),
        da(sizeof(T) * m_ * k_ * batch_),
        db(sizeof(T) * k_ * n_ * batch_),
        dc(sizeof(T) * m_ * n_ * batch_) {
    for (std::int64_t i = 0; i < m * k * batch; ++i) a.push_back(test::random_scalar<T>(rng));
    for (std::int64_t i = 0; i < k * n * batch; ++i) b.push_back(test::random_scalar<T>(rng));
    for (std::int64_t i = 0; i < m * n * batch; ++i) c0.push_back(test::random_scalar<T>(rng));
    alpha = test::random_scalar<T>(rng);
    beta = test::random_scalar<T>(rng);
    test::cuda_ok(cudaMemcpy(da.ptr, a.data(), da.bytes, cudaMemcpyHostToDevice), "upload");
    test::cuda_ok(cudaMemcpy(db.ptr, b.data(), db.bytes, cudaMemcpyHostToDevice), "upload");
    reset();
  }
  void reset() {
    test::cuda_ok(cudaMemcpy(dc.ptr, c0.data(), dc.bytes, cudaMemcpyHostToDevice), "upload");
    test::cuda_ok(cudaDeviceSynchronize(), "upload");  // lands before any stream's launch
  }
  const T* A() const { return static_cast<const T*>(da.ptr); }
  const T* B() const { return static_cast<const T*>(db.ptr); }
  T* C() const { return static_cast<T*>(dc.ptr); }
  void call(Context& ctx, const Options& o = {}) const {
    gemm<T>(ctx, Op::N, Op::N, m, n, k, alpha, A(), m, m * k, B(), k, k * n, beta, C(), m, m * n,
            batch, o);
  }
  bool unchanged() const {
    std::vector<T> got(c0.size());
    test::cuda_ok(cudaMemcpy(got.data(), dc.ptr, dc.bytes, cudaMemcpyDeviceToHost), "download");
    return test::same_bytes(got, c0);
  }
  // The device C equals `calls` successive applications of the reference to C0.
  std::string check(int calls = 1) const {
    std::vector<T> got(c0.size()), want = c0;
    test::cuda_ok(cudaMemcpy(got.data(), dc.ptr, dc.bytes, cudaMemcpyDeviceToHost), "download");
    Problem p;
    p.dtype = scalar_of_v<T>;
    p.m = m;
    p.n = n;
    p.k = k;
    p.batch = batch;
    p.alpha = std::complex<double>(alpha);
    p.beta = std::complex<double>(beta);
    p.a = {a.data(), nullptr, m, m * k};
    p.b = {b.data(), nullptr, k, k * n};
    for (int i = 1; i < calls; ++i) {
      p.c = {want.data(), nullptr, m, m * n};
      reference::reference_gemm(p);
    }
    Problem got_p = p, orig = p;
    got_p.c = {got.data(), nullptr, m, m * n};
    orig.c = {want.data(), nullptr, m, m * n};
    auto r = reference::check_against_reference(got_p, orig);
    return r.ok ? "" : r.message;
  }
};

TEST(CudaApi, EveryCandidatePinnedAndTheTablesChoice) {
  GEMMROUTE_REQUIRE_GPU();
  Context ctx(Device::cuda(0));
  EXPECT_EQ(ctx.device().kind, BackendKind::cuda);
  std::mt19937_64 rng(1);
  const Backend& backend = *detail::Access::state(ctx).backend;
  for (auto [m, n, k, batch] :
       {std::tuple{3, 5, 7, 100}, {16, 16, 16, 40}, {33, 17, 64, 3}, {130, 70, 90, 2}}) {
    Batch<float> f(m, n, k, batch, rng);
    Batch<std::complex<double>> z(m, n, k, batch, rng);
    f.call(ctx);
    z.call(ctx);
    cudaDeviceSynchronize();
    EXPECT_EQ(f.check(), "") << "auto " << m;
    EXPECT_EQ(z.check(), "") << "auto " << m;
    for (const Candidate* c : backend.candidates()) {
      Options o;
      o.pin = std::string(c->spelling());
      f.reset();
      try {
        f.call(ctx, o);
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), Errc::not_runnable) << e.what();
        continue;  // a pin that cannot run says why, and writes nothing
      }
      cudaDeviceSynchronize();
      EXPECT_EQ(f.check(), "") << c->spelling() << " " << m;
    }
  }
}

TEST(CudaApi, DevicePointerArrays) {
  GEMMROUTE_REQUIRE_GPU();
  Context ctx(Device::cuda(0));
  std::mt19937_64 rng(2);
  Batch<double> d(9, 11, 13, 50, rng);
  std::vector<const double*> a, b;
  std::vector<double*> c;
  for (std::int64_t i = 0; i < d.batch; ++i) {
    a.push_back(d.A() + i * d.m * d.k);
    b.push_back(d.B() + i * d.k * d.n);
    c.push_back(d.C() + i * d.m * d.n);
  }
  test::DeviceMemory pa(a.size() * 8), pb(b.size() * 8), pc(c.size() * 8);
  cudaMemcpy(pa.ptr, a.data(), pa.bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(pb.ptr, b.data(), pb.bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(pc.ptr, c.data(), pc.bytes, cudaMemcpyHostToDevice);
  gemm<double>(ctx, Op::N, Op::N, d.m, d.n, d.k, d.alpha, static_cast<const double* const*>(pa.ptr),
               d.m, static_cast<const double* const*>(pb.ptr), d.k, d.beta,
               static_cast<double* const*>(pc.ptr), d.m, d.batch);
  cudaDeviceSynchronize();
  EXPECT_EQ(d.check(), "");
}

TEST(CudaApi, RunsOnTheCallersStreamAndInsideGraphCapture) {
  GEMMROUTE_REQUIRE_GPU();
  cudaStream_t stream = nullptr;
  test::cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  {
    Context ctx(Device::cuda(0), stream);
    EXPECT_EQ(ctx.stream(), stream);
    std::mt19937_64 rng(3);
    Batch<float> f(8, 8, 8, 1000, rng);
    f.call(ctx);
    test::cuda_ok(cudaStreamSynchronize(stream), "sync");
    EXPECT_EQ(f.check(), "");

    // Selection and launch inside capture: no synchronisation, allocation or timing there.
    for (const char* pin : {"", "cublas", "cuda.direct", "cuda.tiled", "cuda.small:s=8:t=2"}) {
      f.reset();
      Options o;
      o.pin = pin;
      cudaGraph_t graph = nullptr;
      test::cuda_ok(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "capture");
      f.call(ctx, o);
      test::cuda_ok(cudaStreamEndCapture(stream, &graph), "end capture");
      cudaGraphExec_t exec = nullptr;
      test::cuda_ok(cudaGraphInstantiate(&exec, graph, 0), "instantiate");
      test::cuda_ok(cudaGraphLaunch(exec, stream), "launch");
      test::cuda_ok(cudaGraphLaunch(exec, stream), "launch");
      test::cuda_ok(cudaStreamSynchronize(stream), "sync");
      EXPECT_EQ(f.check(2), "") << "graph replayed twice, pin '" << pin << "'";
      cudaGraphExecDestroy(exec);
      cudaGraphDestroy(graph);
    }
  }
  cudaStreamDestroy(stream);
}

TEST(CudaApi, ManyHostThreadsOnTheirOwnContextsAndOnOne) {
  GEMMROUTE_REQUIRE_GPU();
  Context shared(Device::cuda(0));
  auto work = [](Context& ctx, int seed, std::string* failure) {
    std::mt19937_64 rng(seed);
    for (int r = 0; r < 12; ++r) {
      const std::int64_t m = 1 + rng() % 40, n = 1 + rng() % 40, k = 1 + rng() % 40;
      Batch<float> f(m, n, k, 1 + rng() % 300, rng);
      try {  // an exception would end the process from this thread: reported as a failure
        f.call(ctx);
      } catch (const std::exception& e) {
        *failure = e.what();
        return;
      }
      test::cuda_ok(cudaStreamSynchronize(static_cast<cudaStream_t>(ctx.stream())), "sync");
      if (std::string why = f.check(); !why.empty()) {
        *failure = why;
        return;
      }
    }
  };
  std::vector<std::string> failures(8);
  std::vector<std::thread> threads;
  std::vector<std::unique_ptr<Context>> own;
  for (int t = 0; t < 4; ++t) own.push_back(std::make_unique<Context>(Device::cuda(0)));
  for (int t = 0; t < 4; ++t) threads.emplace_back(work, std::ref(*own[t]), t, &failures[t]);
  for (int t = 4; t < 8; ++t) threads.emplace_back(work, std::ref(shared), t, &failures[t]);
  for (auto& th : threads) th.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
}

// A kernel's dynamic shared-memory limit belongs to the kernel on its device, not to a Context:
// a second Context raising it for a smaller launch must not lower it under the first Context's
// larger one (kept per Context, this failed ManyHostThreadsOnTheirOwnContextsAndOnOne at random
// with cudaErrorInvalidValue).
TEST(CudaApi, ContextsShareEachKernelsSharedMemoryLimit) {
  GEMMROUTE_REQUIRE_GPU();
  std::mt19937_64 rng(11);
  Context first(Device::cuda(0)), second(Device::cuda(0));
  Options o;
  o.pin = "cuda.stream:v=4";
  Batch<float> large(16, 16, 16, 4096, rng);  // beta != 0: A, B and C staged, over 64 KiB
  Batch<float> small(16, 16, 16, 4096, rng);
  small.beta = 0.0f;  // A and B only: a smaller launch of the same kernel, still over 48 KiB
  auto run = [&](const Batch<float>& x, Context& ctx) {
    x.call(ctx, o);
    test::cuda_ok(cudaStreamSynchronize(static_cast<cudaStream_t>(ctx.stream())), "sync");
    return x.check();
  };
  EXPECT_EQ(run(large, first), "");
  EXPECT_EQ(run(small, second), "");
  large.reset();
  EXPECT_EQ(run(large, first), "");
}

// Every item of a Batch as a grouped item.
template <class T>
void append_items(const Batch<T>& x, std::vector<GemmItem>& items) {
  for (std::int64_t i = 0; i < x.batch; ++i) {
    items.push_back(make_item(Op::N, Op::N, x.m, x.n, x.k, x.alpha, x.A() + i * x.m * x.k, x.m,
                              x.B() + i * x.k * x.n, x.k, x.beta, x.C() + i * x.m * x.n, x.m));
  }
}

// Several scalars and sizes in one grouped call, items interleaved; the c32 group alone stages
// 15,000 pointers (several staging launches, and the staging array grows after the first call).
// Pinned to cublas, the two f32 groups and the two f64 groups each run as one cuBLAS grouped
// call.
TEST(CudaApi, GroupedBatchesRunEveryGroup) {
  GEMMROUTE_REQUIRE_GPU();
  Context ctx(Device::cuda(0));
  std::mt19937_64 rng(4);
  Batch<float> f(3, 5, 7, 40, rng);
  Batch<float> f2(16, 9, 33, 25, rng);
  Batch<double> d(9, 11, 13, 30, rng);
  Batch<double> d2(2, 70, 5, 12, rng);
  Batch<std::complex<float>> c(2, 2, 2, 5000, rng);
  Batch<std::complex<double>> z(17, 4, 33, 10, rng);
  std::vector<GemmItem> small;
  append_items(f, small);
  gemm_grouped(ctx, small);
  cudaDeviceSynchronize();
  EXPECT_EQ(f.check(), "");

  std::vector<GemmItem> parts[6];
  append_items(f, parts[0]);
  append_items(f2, parts[1]);
  append_items(d, parts[2]);
  append_items(d2, parts[3]);
  append_items(c, parts[4]);
  append_items(z, parts[5]);
  std::vector<GemmItem> items;
  for (std::size_t i = 0; i < parts[4].size(); ++i) {
    for (auto& part : parts) {
      if (i < part.size()) items.push_back(part[i]);
    }
  }
  auto reset = [&] {
    f.reset();
    f2.reset();
    d.reset();
    d2.reset();
    c.reset();
    z.reset();
  };
  auto check = [&](int calls, const std::string& what) {
    EXPECT_EQ(f.check(calls), "") << what;
    EXPECT_EQ(f2.check(calls), "") << what;
    EXPECT_EQ(d.check(calls), "") << what;
    EXPECT_EQ(d2.check(calls), "") << what;
    EXPECT_EQ(c.check(calls), "") << what;
    EXPECT_EQ(z.check(calls), "") << what;
  };
  reset();
  gemm_grouped(ctx, items);
  gemm_grouped(ctx, items);
  cudaDeviceSynchronize();
  check(2, "auto");

  // Every candidate pinned: it runs every group right, or says why and writes nothing.
  for (const Candidate* cand : detail::Access::state(ctx).backend->candidates()) {
    Options o;
    o.pin = std::string(cand->spelling());
    reset();
    try {
      gemm_grouped(ctx, items, o);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::not_runnable) << e.what();
      cudaDeviceSynchronize();
      EXPECT_TRUE(f.unchanged() && f2.unchanged() && d.unchanged() && d2.unchanged() &&
                  c.unchanged() && z.unchanged())
          << cand->spelling() << " wrote C, then threw";
      continue;
    }
    cudaDeviceSynchronize();
    check(1, std::string(cand->spelling()));
  }
}

// How a group's A and B items lie: leading dimensions padded by 0..3 elements, or `tight`
// (ld == rows) with `gap` elements between consecutive items (0: back to back).
struct Layout {
  bool tight = false;
  std::int64_t gap = 0;
};

// One group of a grouped call held strided in device memory: items of op(A) op(B) with
// padded leading dimensions (or as `layout` says), so the group is also one strided batch.
template <class T>
struct Group {
  Op ta, tb;
  std::int64_t m, n, k, batch, lda, ldb, ldc, gap;
  T alpha, beta;
  std::vector<T> a, b, c0;
  test::DeviceMemory da, db, dc;

  Group(std::mt19937_64& rng, std::int64_t least, std::int64_t bound, bool beta_zero,
        Layout layout = {}) {
    std::uniform_int_distribution<std::int64_t> size(least, bound), pad(0, layout.tight ? 0 : 3),
        count(1, 40);
    gap = layout.gap;
    const Op forms[] = {Op::N, Op::T, Op::C};
    ta = forms[rng() % 3];
    tb = forms[rng() % 3];
    m = size(rng);
    n = size(rng);
    k = size(rng);
    batch = count(rng);
    lda = (ta == Op::N ? m : k) + pad(rng);
    ldb = (tb == Op::N ? k : n) + pad(rng);
    ldc = m + pad(rng);
    alpha = test::random_scalar<T>(rng);
    beta = beta_zero ? T(0) : test::random_scalar<T>(rng);
    for (std::int64_t i = 0; i < a_stride() * batch; ++i) a.push_back(test::random_scalar<T>(rng));
    for (std::int64_t i = 0; i < b_stride() * batch; ++i) b.push_back(test::random_scalar<T>(rng));
    for (std::int64_t i = 0; i < c_stride() * batch; ++i) c0.push_back(test::random_scalar<T>(rng));
    da = test::DeviceMemory(a.size() * sizeof(T));
    db = test::DeviceMemory(b.size() * sizeof(T));
    dc = test::DeviceMemory(c0.size() * sizeof(T));
    test::cuda_ok(cudaMemcpy(da.ptr, a.data(), da.bytes, cudaMemcpyHostToDevice), "upload");
    test::cuda_ok(cudaMemcpy(db.ptr, b.data(), db.bytes, cudaMemcpyHostToDevice), "upload");
    reset();
  }
  std::int64_t a_stride() const { return lda * (ta == Op::N ? k : m) + gap; }
  std::int64_t b_stride() const { return ldb * (tb == Op::N ? n : k) + gap; }
  std::int64_t c_stride() const { return ldc * n; }
  T* C() const { return static_cast<T*>(dc.ptr); }
  void reset() {
    test::cuda_ok(cudaMemcpy(dc.ptr, c0.data(), dc.bytes, cudaMemcpyHostToDevice), "upload");
    test::cuda_ok(cudaDeviceSynchronize(), "upload");
  }
  void append(std::vector<GemmItem>& items) const {
    const T* A = static_cast<const T*>(da.ptr);
    const T* B = static_cast<const T*>(db.ptr);
    for (std::int64_t i = 0; i < batch; ++i) {
      items.push_back(make_item(ta, tb, m, n, k, alpha, A + i * a_stride(), lda, B + i * b_stride(),
                                ldb, beta, C() + i * c_stride(), ldc));
    }
  }
  // The group as a GemmGroup, its pointer arrays in `arrays` (device memory).
  GemmGroup<T> as_group(test::DeviceMemory& arrays) const {
    std::vector<const void*> host;
    for (std::int64_t i = 0; i < batch; ++i)
      host.push_back(static_cast<const T*>(da.ptr) + i * a_stride());
    for (std::int64_t i = 0; i < batch; ++i)
      host.push_back(static_cast<const T*>(db.ptr) + i * b_stride());
    for (std::int64_t i = 0; i < batch; ++i) host.push_back(C() + i * c_stride());
    arrays = test::DeviceMemory(host.size() * sizeof(void*));
    test::cuda_ok(cudaMemcpy(arrays.ptr, host.data(), arrays.bytes, cudaMemcpyHostToDevice),
                  "upload");
    auto* p = static_cast<void**>(arrays.ptr);
    GemmGroup<T> g;
    g.ta = ta;
    g.tb = tb;
    g.m = m;
    g.n = n;
    g.k = k;
    g.alpha = alpha;
    g.beta = beta;
    g.a = reinterpret_cast<const T* const*>(p);
    g.lda = lda;
    g.b = reinterpret_cast<const T* const*>(p + batch);
    g.ldb = ldb;
    g.c = reinterpret_cast<T* const*>(p + 2 * batch);
    g.ldc = ldc;
    g.count = batch;
    return g;
  }
  void strided(Context& ctx, const Options& o) const {
    gemm<T>(ctx, ta, tb, m, n, k, alpha, static_cast<const T*>(da.ptr), lda, a_stride(),
            static_cast<const T*>(db.ptr), ldb, b_stride(), beta, C(), ldc, c_stride(), batch, o);
  }
  std::vector<T> download() const {
    std::vector<T> got(c0.size());
    test::cuda_ok(cudaMemcpy(got.data(), dc.ptr, dc.bytes, cudaMemcpyDeviceToHost), "download");
    return got;
  }
  std::string check() const {
    std::vector<T> got = download(), want = c0;
    Problem p;
    p.dtype = scalar_of_v<T>;
    p.ta = ta;
    p.tb = tb;
    p.m = m;
    p.n = n;
    p.k = k;
    p.batch = batch;
    p.alpha = std::complex<double>(alpha);
    p.beta = std::complex<double>(beta);
    p.a = {a.data(), nullptr, lda, a_stride()};
    p.b = {b.data(), nullptr, ldb, b_stride()};
    Problem got_p = p, orig = p;
    got_p.c = {got.data(), nullptr, ldc, c_stride()};
    orig.c = {want.data(), nullptr, ldc, c_stride()};
    const auto r = reference::check_against_reference(got_p, orig);
    return r.ok ? "" : r.message;
  }
};

// Many small groups of every form, padded leading dimensions, beta zero or not, and one group
// too large for the grouped kernel: cuda.grouped runs the small ones in one launch. Every group
// matches the reference, and the small ones give the bits of the cuda.small family run on the
// group alone (the grouped kernel computes each item as that family does, whatever the tile).
template <class T>
void grouped_small_groups(std::uint64_t seed, Layout layout = {}) {
  Context ctx(Device::cuda(0));
  std::mt19937_64 rng(seed);
  std::vector<std::unique_ptr<Group<T>>> groups;
  for (int g = 0; g < 40; ++g) {
    const std::int64_t bound = g < 10 ? 4 : g < 25 ? 16 : 64;
    groups.push_back(std::make_unique<Group<T>>(rng, 1, bound, g % 4 == 0, layout));
  }
  groups.push_back(std::make_unique<Group<T>>(rng, 65, 90, false));  // runs its own choice
  std::vector<GemmItem> items;
  for (const auto& g : groups) g->append(items);
  std::shuffle(items.begin(), items.end(), rng);  // groups form whatever the order
  gemm_grouped(ctx, items);
  test::cuda_ok(cudaDeviceSynchronize(), "grouped");
  std::vector<std::vector<T>> fused;
  for (const auto& g : groups) {
    EXPECT_EQ(g->check(), "") << to_string(scalar_of_v<T>) << " " << g->m << "x" << g->n << "x"
                              << g->k << " " << to_string(g->ta) << to_string(g->tb);
    fused.push_back(g->download());
  }
  // The same groups as GemmGroups: one call, the same bits.
  std::vector<test::DeviceMemory> arrays(groups.size());
  std::vector<GemmGroup<T>> as_groups;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    groups[i]->reset();
    as_groups.push_back(groups[i]->as_group(arrays[i]));
  }
  gemm_groups<T>(ctx, as_groups);
  test::cuda_ok(cudaDeviceSynchronize(), "groups");
  for (std::size_t i = 0; i < groups.size(); ++i) {
    EXPECT_TRUE(test::same_bytes(groups[i]->download(), fused[i]))
        << "group " << i << " differs between gemm_groups and gemm_grouped";
  }
  Options family;
  family.pin = "cuda.small:s=64:t=4";
  for (std::size_t i = 0; i + 1 < groups.size(); ++i) {
    Group<T>& g = *groups[i];
    g.reset();
    g.strided(ctx, family);
    test::cuda_ok(cudaDeviceSynchronize(), "alone");
    EXPECT_TRUE(test::same_bytes(g.download(), fused[i]))
        << "group " << i << " (" << g.m << "x" << g.n << "x" << g.k << ") differs from "
        << family.pin << " alone";
  }
}

TEST(CudaApi, GroupedSmallGroupsRunTogetherWithTheFamilysBits) {
  GEMMROUTE_REQUIRE_GPU();
  grouped_small_groups<float>(11);
  grouped_small_groups<double>(12);
  grouped_small_groups<std::complex<float>>(13);
  grouped_small_groups<std::complex<double>>(14);
}

// Groups whose A and B items are each contiguous (ld == rows), as the grouped kernel's staging
// finds them: back to back (one range a block), 16-byte aligned with gaps between them (16-byte
// vectors item by item, where the item's size allows), or at odd element offsets (element by
// element). The same reference and the same bits as the family's.
TEST(CudaApi, GroupedContiguousItemsGiveTheFamilysBits) {
  GEMMROUTE_REQUIRE_GPU();
  for (const std::int64_t gap : {0, 1, 4, 8}) {
    const Layout layout{true, gap};
    grouped_small_groups<float>(21 + gap, layout);
    grouped_small_groups<double>(22 + gap, layout);
    grouped_small_groups<std::complex<float>>(23 + gap, layout);
    grouped_small_groups<std::complex<double>>(24 + gap, layout);
  }
}

// The grouped launches of one call are chained (programmatic dependent launch): a later launch
// may start before an earlier one ends, yet the call completes in stream order. A copy of the
// large groups' C queued right after the call (no synchronisation between) reads their final
// values: the large groups run in the call's first, longest launch, and the launches of the
// small groups after it would otherwise let the copy start while it still ran.
template <class T>
void grouped_call_then_copy(std::uint64_t seed) {
  Context ctx(Device::cuda(0));
  const auto stream = static_cast<cudaStream_t>(detail::Access::state(ctx).exec->stream());
  std::mt19937_64 rng(seed);
  std::vector<std::unique_ptr<Group<T>>> large, small;
  for (int g = 0; g < 48; ++g) {
    large.push_back(std::make_unique<Group<T>>(rng, 48, 64, g % 2 == 0));
  }
  for (int g = 0; g < 24; ++g) {
    small.push_back(std::make_unique<Group<T>>(rng, 1, g % 2 ? 4 : 16, false));
  }
  std::vector<GemmItem> items;
  for (const auto& g : large) g->append(items);
  for (const auto& g : small) g->append(items);
  std::vector<test::DeviceMemory> copies;
  for (int r = 0; r < 3; ++r) {
    for (const auto& g : large) g->reset();
    for (const auto& g : small) g->reset();
    copies.clear();
    gemm_grouped(ctx, items);
    for (const auto& g : large) {
      copies.emplace_back(g->dc.bytes);
      test::cuda_ok(cudaMemcpyAsync(copies.back().ptr, g->dc.ptr, g->dc.bytes,
                                    cudaMemcpyDeviceToDevice, stream),
                    "copy");
    }
    test::cuda_ok(cudaStreamSynchronize(stream), "grouped then copy");
    for (std::size_t i = 0; i < large.size(); ++i) {
      std::vector<T> copy(large[i]->c0.size());
      test::cuda_ok(
          cudaMemcpy(copy.data(), copies[i].ptr, copies[i].bytes, cudaMemcpyDeviceToHost),
          "download");
      EXPECT_TRUE(test::same_bytes(copy, large[i]->download()))
          << "run " << r << ": the copy of group " << i << " ran before its launch ended";
      EXPECT_EQ(large[i]->check(), "") << "group " << i;
    }
    for (const auto& g : small) EXPECT_EQ(g->check(), "");
  }
}

TEST(CudaApi, GroupedCallsCompleteInStreamOrder) {
  GEMMROUTE_REQUIRE_GPU();
  grouped_call_then_copy<float>(31);
  grouped_call_then_copy<double>(32);
}

// Grouped calls from several host threads on one Context share its staging area.
TEST(CudaApi, GroupedBatchesFromManyThreadsOnOneContext) {
  GEMMROUTE_REQUIRE_GPU();
  Context shared(Device::cuda(0));
  std::string failures[4];
  auto work = [&](int t) {
    std::mt19937_64 rng(40 + t);
    Batch<float> f(4 + t, 3, 5, 4500, rng);  // 13,500 pointers: more than one staging launch
    Batch<double> d(6, 2 + t, 7, 20, rng);
    std::vector<GemmItem> items;
    append_items(f, items);
    append_items(d, items);
    for (int r = 0; r < 5; ++r) gemm_grouped(shared, items);
    cudaStreamSynchronize(static_cast<cudaStream_t>(detail::Access::state(shared).exec->stream()));
    failures[t] = f.check(5) + d.check(5);
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back(work, t);
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
}

}  // namespace
}  // namespace gemmroute
