// cuBLASLt candidates on the GPU (label gpu): lt.heuristic and records from the tuner's search
// space each match the reference (bf16, f16 with C of the input type or f32, TF32) or refuse
// with a reason and throw; records rebuilt from the heuristic's answers run; deterministic mode
// skips split-K records and gives the same bytes ten times; a table of another cuBLASLt version
// falls back to the heuristic; and selection runs inside CUDA graph capture.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "core/context_state.hpp"
#include "core/select.hpp"
#include "cuda/lt.hpp"
#include "gemmroute/error.hpp"
#include "gemmroute/gemmroute.hpp"
#include "gpu.hpp"
#include "mixed_support.hpp"

namespace gemmroute {
namespace {

using namespace test;  // NOLINT: the mixed helpers

// A packed batch (ld = rows, items back to back): the layout the tuner measures.
Case packed_case(DType d, Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k,
                 std::int64_t batch, std::mt19937_64& rng) {
  Case x;
  Problem& p = x.p;
  p.dtype = d;
  p.ta = ta;
  p.tb = tb;
  p.m = m;
  p.n = n;
  p.k = k;
  p.batch = batch;
  std::uniform_real_distribution<float> u(0.5f, 1.5f);
  p.alpha = u(rng);
  p.beta = u(rng) - 1.0f;
  auto make = [&](std::vector<std::uint8_t>& buf, Scalar s, std::int64_t rows, std::int64_t cols,
                  Operand& op) {
    op.ld = rows;
    op.stride = rows * cols;
    buf.assign(static_cast<std::size_t>(op.stride * batch) * size_of(s), 0);
    fill(s, buf, op.stride * batch, rng);
    op.base = buf.data();
  };
  make(x.a, d.in, p.rows_a(), p.cols_a(), p.a);
  make(x.b, d.in, p.rows_b(), p.cols_b(), p.b);
  make(x.c, d.out, m, n, p.c);
  return x;
}

// A copy of a strided Case whose problem points into the copy's own buffers.
Case copy_of(const Case& x) {
  Case y = x;
  y.p.a.base = y.a.data();
  y.p.b.base = y.b.data();
  y.p.c.base = y.c.data();
  return y;
}

// Device copies of a strided Case; the problem rebased onto them.
struct OnDevice {
  DeviceMemory a, b, c;
  Problem p;
  explicit OnDevice(const Case& x) : a(x.a.size()), b(x.b.size()), c(x.c.size() + 256), p(x.p) {
    cuda_ok(cudaMemcpy(a.ptr, x.a.data(), x.a.size(), cudaMemcpyHostToDevice), "upload a");
    cuda_ok(cudaMemcpy(b.ptr, x.b.data(), x.b.size(), cudaMemcpyHostToDevice), "upload b");
    cuda_ok(cudaMemcpy(c.ptr, x.c.data(), x.c.size(), cudaMemcpyHostToDevice), "upload c");
    p.a.base = a.ptr;
    p.b.base = b.ptr;
    p.c.base = c.ptr;
  }
  void download(Case& x) const {
    cuda_ok(cudaMemcpy(x.a.data(), a.ptr, x.a.size(), cudaMemcpyDeviceToHost), "download a");
    cuda_ok(cudaMemcpy(x.b.data(), b.ptr, x.b.size(), cudaMemcpyDeviceToHost), "download b");
    cuda_ok(cudaMemcpy(x.c.data(), c.ptr, x.c.size(), cudaMemcpyDeviceToHost), "download c");
  }
};

const Backend& backend() {
  return *Gpu::get().backend;
}
const Exec& exec() {
  return *Gpu::get().exec;
}

// Runs `c` on the case if it can (and checks C against the reference, A and B unchanged), else
// checks that it says why and that its launch throws without writing C. Returns whether it ran.
bool run_or_refuse(const Candidate& c, Case& x) {
  const auto a0 = x.a, b0 = x.b, c0 = x.c;
  OnDevice dev(x);
  const Verdict v = runnable(c, dev.p, exec());
  if (v.ok) {
    EXPECT_NO_THROW(c.launch(dev.p, exec()));
    Gpu::get().sync();
    dev.download(x);
    EXPECT_EQ(x.a, a0);
    EXPECT_EQ(x.b, b0);
    const auto r = check(x, c0);
    EXPECT_TRUE(r.ok) << c.spelling() << ": " << r.message;
  } else {
    EXPECT_STRNE(v.reason, "");
    try {
      c.launch(dev.p, exec());
      ADD_FAILURE() << "launch ran a problem can_run refused";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::not_runnable);
    }
    Gpu::get().sync();
    dev.download(x);
    EXPECT_EQ(x.c, c0) << "a refused launch wrote C";
  }
  x.c = c0;
  return v.ok;
}

// lt.heuristic over every dtype cuBLASLt runs, every form, packed and padded (2-byte-aligned
// items) batches, beta == 0 with NaN in C, and the quick path.
TEST(CudaLt, HeuristicMatchesTheReferenceOrRefuses) {
  GEMMROUTE_REQUIRE_GPU();
  const Candidate& h = *backend().find("lt.heuristic");
  std::mt19937_64 rng(61);
  struct Shape {
    std::int64_t m, n, k, batch;
  };
  int ran = 0;
  for (DType d : kMixed) {
    for (Op ta : {Op::N, Op::T}) {
      for (Op tb : {Op::N, Op::T}) {
        for (Shape s : {Shape{1, 1, 1, 2}, Shape{7, 9, 33, 3}, Shape{64, 48, 256, 2},
                        Shape{129, 65, 1000, 1}}) {
          for (bool padded : {false, true}) {
            SCOPED_TRACE(describe(d, ta, tb, s.m, s.n, s.k, s.batch, false) +
                         (padded ? " padded" : " packed"));
            Case x = padded ? make_case(d, ta, tb, s.m, s.n, s.k, s.batch, false, rng)
                            : packed_case(d, ta, tb, s.m, s.n, s.k, s.batch, rng);
            ran += run_or_refuse(h, x);
          }
        }
      }
    }
  }
  EXPECT_GT(ran, 0);
  // beta == 0: NaN in C never leaks; alpha == 0 and k == 0: beta * C0, A and B unread.
  for (DType d : kMixed) {
    Case y = packed_case(d, Op::T, Op::N, 64, 32, 128, 2, rng);
    y.p.beta = 0.0;
    for (std::int64_t i = 0; i < 64 * 32 * 2; ++i) store(d.out, y.c, i, std::nanf(""));
    ASSERT_TRUE(run_or_refuse(h, y)) << to_string(d);
    for (bool k_zero : {false, true}) {
      Case z = packed_case(d, Op::N, Op::N, 8, 8, k_zero ? 0 : 8, 2, rng);
      if (!k_zero) {
        z.p.alpha = 0.0;
        std::fill(z.a.begin(), z.a.end(), 0xff);
        std::fill(z.b.begin(), z.b.end(), 0xff);
      }
      const auto want = model(z);
      OnDevice dev(z);
      h.launch(dev.p, exec());
      Gpu::get().sync();
      dev.download(z);
      EXPECT_TRUE(z.c == want) << to_string(d) << (k_zero ? " k == 0" : " alpha == 0");
    }
  }
  // Refusals: uniform dtypes and pointer arrays.
  Case f = packed_case(Scalar::bf16, Op::N, Op::N, 4, 4, 4, 1, rng);
  f.p.dtype = Scalar::f32;
  EXPECT_FALSE(h.can_run(f.p).ok);
}

// The search space of a few LLM-like shapes: heuristic answers and extended configurations,
// each resolvable from its spelling, each correct on the problem it was found for.
TEST(CudaLt, SearchSpaceRecordsRunCorrectly) {
  GEMMROUTE_REQUIRE_GPU();
  std::mt19937_64 rng(67);
  struct Shape {
    DType d;
    std::int64_t m, n, k;
  };
  const bool quick = quick_suite();
  for (Shape s : {Shape{Scalar::bf16, 256, 16, 512},
                  Shape{{Scalar::f16, Scalar::f32, Compute::f32}, 192, 64, 320},
                  Shape{kTf32, 128, 96, 256}}) {
    SCOPED_TRACE(to_string(s.d));
    Case x = packed_case(s.d, Op::T, Op::N, s.m, s.n, s.k, 1, rng);
    OnDevice probe(x);
    SearchBudget budget;
    budget.heuristic = quick ? 4 : 16;
    budget.checks = quick ? 50 : 600;
    budget.extended = quick ? 2 : 8;
    const SearchSpace space = backend().search_space(probe.p, budget);
    std::printf("%s: %s\n", to_string(key_of(x.p)).c_str(), space.summary.c_str());
    ASSERT_FALSE(space.candidates.empty()) << space.summary;
    ASSERT_EQ(space.sources.size(), space.candidates.size());
    EXPECT_EQ(space.sources.front(), "top-1");
    int extended = 0;
    for (std::size_t i = 0; i < space.candidates.size(); ++i) {
      const Candidate& c = *space.candidates[i];
      SCOPED_TRACE(std::string(c.spelling()) + " (" + space.sources[i] + ")");
      extended += space.sources[i] == "extended";
      const Resolved r = backend().resolve(c.spelling());
      ASSERT_TRUE(r.candidate) << r.error;
      EXPECT_EQ(r.candidate->spelling(), c.spelling());
      EXPECT_TRUE(run_or_refuse(*r.candidate, x)) << "a searched record refused its own problem";
    }
    EXPECT_GT(extended, 0) << space.summary;
  }
}

// A table file for one key whose entries are `spellings` in order, with this device's
// fingerprint but cuBLASLt's version replaced by `cublaslt` when given.
std::string write_table_file(const Key& key, const std::vector<std::string>& spellings,
                             const std::string& name, const std::string& cublaslt = "") {
  Table t;
  t.fingerprint = backend().fingerprint();
  if (!cublaslt.empty()) t.fingerprint.set("cublaslt", cublaslt);
  Row row;
  row.key = key;
  row.origin = Origin::transcribed;
  for (const std::string& s : spellings) {
    Entry e;
    e.spelling = s;
    row.entries.push_back(e);
  }
  t.rows.push_back(row);
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path) << write_table(t);
  return path;
}

// The first split-K record of the search space of a problem, or empty.
std::string split_k_record(const Problem& probe) {
  SearchBudget budget;
  budget.heuristic = 64;
  budget.checks = 4000;
  budget.extended = 400;
  const SearchSpace space = backend().search_space(probe, budget);
  for (const auto& c : space.candidates) {
    if (!c->reproducible(probe)) return std::string(c->spelling());
  }
  return {};
}

// Deterministic mode: the walk skips a split-K record (saying why), and ten calls give the same
// bytes; without it the record runs.
TEST(CudaLt, DeterministicModeGivesTheSameBytesTenTimes) {
  GEMMROUTE_REQUIRE_GPU();
  std::mt19937_64 rng(71);
  // Small m and n, long k: where split-K exists.
  Case x = packed_case(Scalar::bf16, Op::T, Op::N, 64, 64, 8192, 1, rng);
  x.p.beta = 0.0;
  OnDevice dev(x);
  const std::string split = split_k_record(dev.p);
  if (split.empty()) GTEST_SKIP() << "skipped: cuBLASLt offers no split-K record here";
  const std::string path =
      write_table_file(key_of(dev.p), {split, "lt.heuristic", "cublas"}, "gemmroute-lt-det.table");
  Context ctx(Device::cuda(0));
  auto& st = detail::Access::state(ctx);
  Options o;
  o.table = path;
  const Table* table = st.table_for(o);
  for (bool det : {false, true}) {
    o.deterministic = det;
    Trace trace;
    const Selection s =
        select(dev.p, key_of(dev.p), table, *st.backend, *st.exec, st.overrides_for(o), &trace);
    if (det) {
      EXPECT_NE(s.candidate->spelling(), split);
      EXPECT_TRUE(s.candidate->reproducible(dev.p));
      ASSERT_FALSE(trace.steps.empty());
      EXPECT_EQ(trace.steps[0].spelling, split);
      EXPECT_NE(trace.steps[0].reason.find("deterministic"), std::string::npos);
    } else {
      EXPECT_EQ(s.candidate->spelling(), split) << "the split-K record can run";
    }
  }
  o.deterministic = true;
  std::vector<std::uint8_t> first;
  for (int run = 0; run < 10; ++run) {
    gemm(ctx, Op::T, Op::N, x.p.m, x.p.n, x.p.k, static_cast<float>(x.p.alpha.real()),
         static_cast<const bfloat16*>(dev.p.a.base), x.p.a.ld, 0,
         static_cast<const bfloat16*>(dev.p.b.base), x.p.b.ld, 0, 0.0f,
         static_cast<bfloat16*>(const_cast<void*>(dev.p.c.base)), x.p.c.ld, 0, 1, o);
    cuda_ok(cudaDeviceSynchronize(), "gemm");
    Case y = copy_of(x);
    dev.download(y);
    if (run == 0) {
      first = y.c;
      const auto r = check(y, x.c);
      EXPECT_TRUE(r.ok) << r.message;
    } else {
      EXPECT_EQ(y.c, first) << "run " << run << " gave other bytes";
    }
  }
  std::filesystem::remove(path);
}

// A table of another cuBLASLt version: its record is not runnable (a note says why) and the
// heuristic runs instead.
TEST(CudaLt, AnotherVersionFallsBackToTheHeuristic) {
  GEMMROUTE_REQUIRE_GPU();
  std::mt19937_64 rng(73);
  Case x = packed_case(Scalar::bf16, Op::T, Op::N, 256, 32, 512, 1, rng);
  OnDevice dev(x);
  SearchBudget budget;
  budget.heuristic = 1;
  budget.checks = 0;
  budget.extended = 0;
  const SearchSpace space = backend().search_space(dev.p, budget);
  ASSERT_FALSE(space.candidates.empty());
  const std::string record(space.candidates.front()->spelling());
  const std::string path =
      write_table_file(key_of(dev.p), {record}, "gemmroute-lt-old.table", "0.0.1");
  const Table t = load_table(path, backend());
  ASSERT_FALSE(t.notes.empty());
  EXPECT_EQ(t.rows[0].entries[0].unrunnable, "measured with another fingerprint.cublaslt");
  Trace trace;
  Overrides ov;
  ov.selector = Selector::nearest;
  const Selection s = select(dev.p, key_of(dev.p), &t, backend(), exec(), ov, &trace);
  EXPECT_EQ(s.candidate->spelling(), "lt.heuristic");
  EXPECT_EQ(s.source, Source::last_resort);
  std::filesystem::remove(path);
}

// gemm() on a caller's stream while it is being captured into a CUDA graph: selection (a record
// from a table, and lt.heuristic on a shape seen first inside the capture) and the launches are
// captured, and the graph's replay writes what a plain call writes.
TEST(CudaLt, SelectionRunsInsideGraphCapture) {
  GEMMROUTE_REQUIRE_GPU();
  std::mt19937_64 rng(79);
  Case x = packed_case(Scalar::bf16, Op::T, Op::N, 128, 64, 256, 2, rng);
  x.p.beta = 0.0;
  Case y = packed_case(Scalar::f16, Op::T, Op::N, 96, 40, 200, 1, rng);
  y.p.beta = 0.0;
  OnDevice dx(x), dy(y);
  SearchBudget budget;
  budget.heuristic = 2;
  budget.checks = 0;
  budget.extended = 0;
  const SearchSpace space = backend().search_space(dx.p, budget);
  ASSERT_FALSE(space.candidates.empty());
  const std::string path = write_table_file(
      key_of(dx.p), {std::string(space.candidates.back()->spelling())}, "gemmroute-lt-graph.table");
  cudaStream_t stream = nullptr;
  cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  {
    Context ctx(Device::cuda(0), reinterpret_cast<CUstream_st*>(stream));
    Options o;
    o.table = path;
    auto call = [&] {
      gemm(ctx, Op::T, Op::N, x.p.m, x.p.n, x.p.k, static_cast<float>(x.p.alpha.real()),
           static_cast<const bfloat16*>(dx.p.a.base), x.p.a.ld, x.p.a.stride,
           static_cast<const bfloat16*>(dx.p.b.base), x.p.b.ld, x.p.b.stride, 0.0f,
           static_cast<bfloat16*>(const_cast<void*>(dx.p.c.base)), x.p.c.ld, x.p.c.stride, 2, o);
      gemm(ctx, Op::T, Op::N, y.p.m, y.p.n, y.p.k, static_cast<float>(y.p.alpha.real()),
           static_cast<const float16*>(dy.p.a.base), y.p.a.ld, 0,
           static_cast<const float16*>(dy.p.b.base), y.p.b.ld, 0, 0.0f,
           static_cast<float16*>(const_cast<void*>(dy.p.c.base)), y.p.c.ld, 0, 1, o);
    };
    cudaGraph_t graph = nullptr;
    cuda_ok(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "begin capture");
    call();
    cuda_ok(cudaStreamEndCapture(stream, &graph), "end capture");
    cudaGraphExec_t instance = nullptr;
    cuda_ok(cudaGraphInstantiate(&instance, graph, 0), "instantiate");
    cuda_ok(cudaGraphLaunch(instance, stream), "graph launch");
    cuda_ok(cudaStreamSynchronize(stream), "graph");
    Case gx = copy_of(x), gy = copy_of(y);
    dx.download(gx);
    dy.download(gy);
    EXPECT_TRUE(check(gx, x.c).ok);
    EXPECT_TRUE(check(gy, y.c).ok);
    call();
    cuda_ok(cudaStreamSynchronize(stream), "plain");
    Case px = copy_of(x), py = copy_of(y);
    dx.download(px);
    dy.download(py);
    EXPECT_EQ(px.c, gx.c);
    EXPECT_EQ(py.c, gy.c);
    cudaGraphExecDestroy(instance);
    cudaGraphDestroy(graph);
  }
  cudaStreamDestroy(stream);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace gemmroute
