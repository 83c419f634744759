// The mixed dtypes on the GPU: cublas runs bf16 and f16 (C of the input type or f32, f32
// compute) and f32:f32:tf32 (CUBLAS_COMPUTE_32F_FAST_TF32), strided batches, and pointer arrays
// (refused for bf16 and f16), within the reference's bound for each (one output rounding plus the
// accumulation term; TF32's 2^-10 epsilon for its inputs' rounding), C's padding and A and B
// unchanged, the quick path (alpha == 0, k == 0) rounding beta * C0 once; every native CUDA kernel
// refuses them with a reason and its launch throws; the public API runs them, and TF32 only when
// Options::tf32 asks.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <random>

#include "cuda/candidates.hpp"
#include "gemmroute/error.hpp"
#include "gemmroute/gemmroute.hpp"
#include "gpu.hpp"
#include "mixed_support.hpp"

namespace gemmroute {
namespace {

using namespace test;  // NOLINT: the mixed helpers

// Device copies of a Case's three buffers; the problem rebased onto them.
struct OnDevice {
  DeviceMemory a, b, c, pa, pb, pc;
  Problem p;

  explicit OnDevice(const Case& x) : a(x.a.size()), b(x.b.size()), c(x.c.size()), p(x.p) {
    cuda_ok(cudaMemcpy(a.ptr, x.a.data(), x.a.size(), cudaMemcpyHostToDevice), "upload a");
    cuda_ok(cudaMemcpy(b.ptr, x.b.data(), x.b.size(), cudaMemcpyHostToDevice), "upload b");
    cuda_ok(cudaMemcpy(c.ptr, x.c.data(), x.c.size(), cudaMemcpyHostToDevice), "upload c");
    auto rebase = [&](Operand& op, const std::vector<std::uint8_t>& host, DeviceMemory& dev,
                      const std::vector<const void*>& ptrs, DeviceMemory& array) {
      if (!op.array) {
        op.base = dev.ptr;
        return;
      }
      std::vector<const void*> moved;
      for (const void* q : ptrs) {
        moved.push_back(static_cast<const char*>(dev.ptr) +
                        (static_cast<const std::uint8_t*>(q) - host.data()));
      }
      array = DeviceMemory(moved.size() * sizeof(void*));
      cuda_ok(
          cudaMemcpy(array.ptr, moved.data(), moved.size() * sizeof(void*), cudaMemcpyHostToDevice),
          "upload pointers");
      op.array = static_cast<const void* const*>(array.ptr);
    };
    rebase(p.a, x.a, a, x.pa, pa);
    rebase(p.b, x.b, b, x.pb, pb);
    rebase(p.c, x.c, c, x.pc, pc);
    cuda_ok(cudaDeviceSynchronize(), "upload");
  }
  // The device's A, B and C back into the Case's buffers.
  void download(Case& x) const {
    cuda_ok(cudaMemcpy(x.a.data(), a.ptr, x.a.size(), cudaMemcpyDeviceToHost), "download a");
    cuda_ok(cudaMemcpy(x.b.data(), b.ptr, x.b.size(), cudaMemcpyDeviceToHost), "download b");
    cuda_ok(cudaMemcpy(x.c.data(), c.ptr, x.c.size(), cudaMemcpyDeviceToHost), "download c");
  }
};

// Whether every byte of C outside its items is as it was.
bool padding_unchanged(const Case& x, const std::vector<std::uint8_t>& c0) {
  const Problem& p = x.p;
  const auto e = static_cast<std::int64_t>(size_of(p.dtype.out));
  for (std::int64_t off = 0; off * e < static_cast<std::int64_t>(x.c.size()); ++off) {
    const std::int64_t item = off / p.c.stride, local = off % p.c.stride;
    const bool inside = item < p.batch && local < p.c.ld * p.n && local % p.c.ld < p.m;
    if (!inside && std::memcmp(x.c.data() + off * e, c0.data() + off * e, e) != 0) return false;
  }
  return true;
}

const Candidate& cublas() {
  return *Gpu::get().backend->find("cublas");
}

TEST(CudaMixed, CublasMatchesTheReference) {
  GEMMROUTE_REQUIRE_GPU();
  std::mt19937_64 rng(41);
  struct Shape {
    std::int64_t m, n, k, batch;
  };
  for (DType d : kMixed) {
    for (Op ta : {Op::N, Op::T}) {
      for (Op tb : {Op::N, Op::T}) {
        for (bool pointers : {false, true}) {
          for (Shape s : {Shape{1, 1, 1, 2}, Shape{7, 9, 33, 3}, Shape{64, 48, 256, 2},
                          Shape{129, 65, 1000, 1}}) {
            SCOPED_TRACE(describe(d, ta, tb, s.m, s.n, s.k, s.batch, pointers));
            Case x = make_case(d, ta, tb, s.m, s.n, s.k, s.batch, pointers, rng);
            if (pointers && (size_of(d.in) == 2 || size_of(d.out) == 2)) {
              EXPECT_FALSE(cublas().can_run(x.p).ok);  // cuBLAS faults on unaligned items
              continue;
            }
            ASSERT_TRUE(cublas().can_run(x.p).ok);
            const auto a0 = x.a, b0 = x.b, c0 = x.c;
            OnDevice dev(x);
            cublas().launch(dev.p, *Gpu::get().exec);
            Gpu::get().sync();
            dev.download(x);
            EXPECT_EQ(x.a, a0);
            EXPECT_EQ(x.b, b0);
            EXPECT_TRUE(padding_unchanged(x, c0));
            const auto r = check(x, c0);
            EXPECT_TRUE(r.ok) << r.message;
          }
        }
      }
    }
  }
}

TEST(CudaMixed, QuickPathAndBetaZero) {
  GEMMROUTE_REQUIRE_GPU();
  std::mt19937_64 rng(43);
  for (DType d : kMixed) {
    SCOPED_TRACE(to_string(d));
    // alpha == 0 (A and B all NaN) and k == 0: C is beta * C0 rounded once, as the model says.
    for (bool k_zero : {false, true}) {
      Case x = make_case(d, Op::N, Op::N, 5, 4, k_zero ? 0 : 6, 3, false, rng);
      if (!k_zero) {
        x.p.alpha = 0.0;
        std::fill(x.a.begin(), x.a.end(), 0xff);
        std::fill(x.b.begin(), x.b.end(), 0xff);
      }
      const auto want = model(x);
      OnDevice dev(x);
      cublas().launch(dev.p, *Gpu::get().exec);
      Gpu::get().sync();
      dev.download(x);
      EXPECT_TRUE(x.c == want) << (k_zero ? "k == 0" : "alpha == 0");
    }
    // beta == 0: NaN in C never leaks.
    Case y = make_case(d, Op::T, Op::N, 6, 5, 7, 2, false, rng);
    y.p.beta = 0.0;
    for (std::int64_t i = 0; i < 2; ++i)
      for (std::int64_t j = 0; j < 5; ++j)
        for (std::int64_t r = 0; r < 6; ++r)
          store(d.out, y.c, i * y.p.c.stride + j * y.p.c.ld + r, std::nanf(""));
    const auto c0 = y.c;
    OnDevice dev(y);
    cublas().launch(dev.p, *Gpu::get().exec);
    Gpu::get().sync();
    dev.download(y);
    const auto r = check(y, c0);
    EXPECT_TRUE(r.ok) << r.message;
  }
}

// Every CUDA candidate runs a mixed problem correctly or refuses it with a reason (the native
// kernels refuse every one), and a refused launch throws not_runnable and writes nothing.
TEST(CudaMixed, EveryCandidateRunsOrRefusesWithAReason) {
  GEMMROUTE_REQUIRE_GPU();
  std::mt19937_64 rng(47);
  for (const Candidate* c : Gpu::get().backend->candidates()) {
    for (DType d : kMixed) {
      SCOPED_TRACE(std::string(c->spelling()) + " " + to_string(d));
      Case x = make_case(d, Op::N, Op::T, 9, 7, 13, 2, false, rng);
      const auto c0 = x.c;
      OnDevice dev(x);
      const Verdict v = runnable(*c, dev.p, *Gpu::get().exec);
      if (c->provider() == Provider::native) {
        EXPECT_FALSE(v.ok) << "a native kernel ran it";
      }
      if (v.ok) {
        EXPECT_NO_THROW(c->launch(dev.p, *Gpu::get().exec));
        Gpu::get().sync();
        dev.download(x);
        const auto r = check(x, c0);
        EXPECT_TRUE(r.ok) << r.message;
      } else {
        EXPECT_STRNE(v.reason, "");
        try {
          c->launch(dev.p, *Gpu::get().exec);
          ADD_FAILURE() << "launch ran a problem can_run refused";
        } catch (const Error& e) {
          EXPECT_EQ(e.code(), Errc::not_runnable);
        }
        Gpu::get().sync();
        dev.download(x);
        EXPECT_EQ(x.c, c0) << "a refused launch wrote C";
      }
    }
  }
}

// The public API on device pointers: bf16 in, bf16 and f32 out; f32 with and without
// Options::tf32. TF32 rounds the inputs to 10 bits, so on data with full 24-bit mantissas its
// results differ from f32's; without the option they must be f32's (within f32's bound).
TEST(CudaMixed, PublicApiAndTf32OnlyWhenAsked) {
  GEMMROUTE_REQUIRE_GPU();
  Context ctx(Device::cuda(0));
  std::mt19937_64 rng(53);
  const std::int64_t m = 96, n = 80, k = 512;
  for (DType d : {DType(Scalar::bf16), DType(Scalar::bf16, Scalar::f32, Compute::f32),
                  DType(Scalar::f16), DType(Scalar::f16, Scalar::f32, Compute::f32)}) {
    SCOPED_TRACE(to_string(d));
    Case x = make_case(d, Op::N, Op::N, m, n, k, 2, false, rng);
    const auto c0 = x.c;
    OnDevice dev(x);
    const auto alpha = static_cast<float>(x.p.alpha.real());
    const auto beta = static_cast<float>(x.p.beta.real());
    auto call = [&]<class In, class Out>() {
      gemm(ctx, Op::N, Op::N, m, n, k, alpha, static_cast<const In*>(dev.p.a.base), x.p.a.ld,
           x.p.a.stride, static_cast<const In*>(dev.p.b.base), x.p.b.ld, x.p.b.stride, beta,
           static_cast<Out*>(const_cast<void*>(dev.p.c.base)), x.p.c.ld, x.p.c.stride, 2);
    };
    if (d.in == Scalar::bf16) {
      d.out == Scalar::f32 ? call.operator()<bfloat16, float>()
                           : call.operator()<bfloat16, bfloat16>();
    } else {
      d.out == Scalar::f32 ? call.operator()<float16, float>()
                           : call.operator()<float16, float16>();
    }
    cuda_ok(cudaDeviceSynchronize(), "gemm");
    dev.download(x);
    const auto r = check(x, c0);
    EXPECT_TRUE(r.ok) << r.message;
  }

  // make_case's f32 values are uniform draws rounded to f32: full 24-bit mantissas.
  Case f = make_case(Scalar::f32, Op::N, Op::N, m, n, k, 1, false, rng);
  f.p.beta = 0.0;
  const auto c0 = f.c;
  std::vector<std::uint8_t> plain, tf32;
  for (bool ask : {false, true}) {
    OnDevice dev(f);
    Options o;
    o.tf32 = ask;
    o.pin = "cublas";
    gemm(ctx, Op::N, Op::N, m, n, k, static_cast<float>(f.p.alpha.real()),
         static_cast<const float*>(dev.p.a.base), f.p.a.ld, 0,
         static_cast<const float*>(dev.p.b.base), f.p.b.ld, 0, 0.0f,
         static_cast<float*>(const_cast<void*>(dev.p.c.base)), f.p.c.ld, 0, 1, o);
    cuda_ok(cudaDeviceSynchronize(), "gemm");
    dev.download(f);
    f.p.dtype = ask ? kTf32 : DType(Scalar::f32);
    const auto r = check(f, c0);
    EXPECT_TRUE(r.ok) << (ask ? "tf32: " : "f32: ") << r.message;
    (ask ? tf32 : plain) = f.c;
    f.p.dtype = Scalar::f32;
    f.c = c0;
  }
  EXPECT_NE(plain, tf32) << "Options::tf32 made no difference (or f32 ran in TF32)";
}

}  // namespace
}  // namespace gemmroute
