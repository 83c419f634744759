// libxsmm: LIBXSMM's JIT kernels, called the way LIBXSMM's own users call them: one kernel
// dispatched per call (kept in a small per-thread cache keyed by the item shape, so a repeated
// shape skips LIBXSMM's registry), then called once per item with the next item's A, B and C
// as prefetch hints, the items spread over the OpenMP threads as the native kernels spread
// them (for_each_item).
//
// What LIBXSMM 1.17 dispatches on x86: f32 and f64, op(A) = A, op(B) = B or B^T, alpha = 1 and
// beta 0 or 1 (probed: every other combination returns no kernel). For other alpha and beta the
// kernel writes A B into a tile on the stack (whole columns, at most kTile elements) and C <-
// alpha T + beta C follows, which is what a LIBXSMM user with general scalars has to do. So
// the table's timings (random alpha and beta) include that epilogue.
#include <array>
#include <cstdint>

#include "core/candidate.hpp"
#include "cpu/batch.hpp"
#include "cpu/candidates.hpp"
#include "cpu/libraries.hpp"

namespace gemmroute::cpu {
namespace {

constexpr std::int64_t kIntMax = 2147483647;
constexpr std::int64_t kTile = 4096;  // elements of the stack tile (32 KiB of f64)

// The kernels one call runs: `main` for (m, cols, k) and, on the tile path when cols does not
// divide n, `tail` for the last n % cols columns.
struct Kernels {
  void* main = nullptr;
  void* tail = nullptr;
  std::int64_t cols = 0;
  bool tiled = false;  // the kernels write a tile (ld m, beta 0); the epilogue scales into C
};

// Everything a dispatch depends on.
struct ShapeKey {
  Scalar dtype = Scalar::f32;
  Op tb = Op::N;
  bool tiled = false, beta_zero = false;
  std::int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
  friend bool operator==(const ShapeKey&, const ShapeKey&) = default;
};

bool direct_scalars(const Problem& p) {
  return p.alpha == std::complex<double>(1.0, 0.0) &&
         (p.beta == std::complex<double>(0.0, 0.0) || p.beta == std::complex<double>(1.0, 0.0));
}

ShapeKey key_for(const Problem& p) {
  ShapeKey key;
  key.dtype = p.dtype.in;
  key.tb = p.tb;
  key.tiled = !direct_scalars(p);
  key.beta_zero = key.tiled || p.beta == std::complex<double>(0.0, 0.0);
  key.m = p.m;
  key.n = p.n;
  key.k = p.k;
  key.lda = p.a.ld;
  key.ldb = p.b.ld;
  key.ldc = key.tiled ? p.m : p.c.ld;
  return key;
}

// One LIBXSMM dispatch of an (m, n, k) kernel with the key's forms and leading dimensions.
void* dispatch_one(const ShapeKey& key, std::int64_t n) {
  const LibxsmmLibrary& lib = libxsmm_library();
  const int m = static_cast<int>(key.m), k = static_cast<int>(key.k);
  const int lda = static_cast<int>(key.lda), ldb = static_cast<int>(key.ldb),
            ldc = static_cast<int>(key.ldc);
  const int flags = key.tb == Op::N ? 0 : kLibxsmmFlagTransB;
  const int prefetch = kLibxsmmPrefetchAuto;
  if (key.dtype == Scalar::f32) {
    const float alpha = 1, beta = key.beta_zero ? 0 : 1;
    return reinterpret_cast<void*>(lib.smmdispatch(m, static_cast<int>(n), k, &lda, &ldb, &ldc,
                                                   &alpha, &beta, &flags, &prefetch));
  }
  const double alpha = 1, beta = key.beta_zero ? 0 : 1;
  return reinterpret_cast<void*>(lib.dmmdispatch(m, static_cast<int>(n), k, &lda, &ldb, &ldc,
                                                 &alpha, &beta, &flags, &prefetch));
}

Kernels dispatch_all(const ShapeKey& key) {
  Kernels ks;
  ks.tiled = key.tiled;
  ks.cols = key.tiled ? std::min(key.n, kTile / key.m) : key.n;
  ks.main = dispatch_one(key, ks.cols);
  if (ks.main && key.n % ks.cols != 0) {
    ks.tail = dispatch_one(key, key.n % ks.cols);
    if (!ks.tail) ks.main = nullptr;
  }
  return ks;
}

// The kernels for a problem that passed the static checks, from this thread's cache: 16
// direct-mapped slots, so a repeated shape costs a hash and a compare.
const Kernels& kernels_for(const Problem& p) {
  struct Slot {
    bool used = false;
    ShapeKey key;
    Kernels kernels;
  };
  thread_local std::array<Slot, 16> cache;
  const ShapeKey key = key_for(p);
  std::uint64_t h = static_cast<std::uint64_t>(key.dtype) * 0x9E3779B97F4A7C15ull;
  for (std::int64_t v : {std::int64_t(key.tb), std::int64_t(key.tiled), std::int64_t(key.beta_zero),
                         key.m, key.n, key.k, key.lda, key.ldb, key.ldc}) {
    h = (h ^ static_cast<std::uint64_t>(v)) * 0x100000001B3ull;
  }
  Slot& slot = cache[h >> 60];
  if (!slot.used || !(slot.key == key)) slot = {true, key, dispatch_all(key)};
  return slot.kernels;
}

template <class T>
using KernelFn = void (*)(const T*, const T*, T*, ...);

// Runs the batch; the kernels are non-null (a copy: the cache slot may be reused meanwhile).
template <class T>
void run_items(const Problem& p, const Kernels ks) {
  const auto main = reinterpret_cast<KernelFn<T>>(ks.main);
  const auto tail = reinterpret_cast<KernelFn<T>>(ks.tail);
  const std::int64_t last = p.batch - 1;
  if (!ks.tiled) {
    for_each_item(p, [&](std::int64_t i) {
      const std::int64_t next = i < last ? i + 1 : i;  // the last item prefetches itself
      main(p.item_a<T>(i), p.item_b<T>(i), p.item_c<T>(i), p.item_a<T>(next), p.item_b<T>(next),
           p.item_c<T>(next));
    });
    return;
  }
  const T alpha = p.alpha_as<T>(), beta = p.beta_as<T>();
  const std::int64_t m = p.m, n = p.n, ldc = p.c.ld, ldb = p.b.ld;
  const std::int64_t b_col = p.tb == Op::N ? ldb : 1;  // op(B)(:, j) starts at b + j * b_col
  for_each_item(p, [&](std::int64_t i) {
    alignas(64) T tile[kTile];  // (m, cols) of A op(B), ld m
    const std::int64_t next = i < last ? i + 1 : i;
    const T* a = p.item_a<T>(i);
    const T* b = p.item_b<T>(i);
    T* c = p.item_c<T>(i);
    for (std::int64_t j0 = 0; j0 < n; j0 += ks.cols) {
      const std::int64_t cols = std::min(ks.cols, n - j0);
      const auto fn = cols == ks.cols ? main : tail;
      fn(a, b + j0 * b_col, tile, p.item_a<T>(next), p.item_b<T>(next), tile);
      for (std::int64_t j = 0; j < cols; ++j) {
        T* cj = c + (j0 + j) * ldc;
        const T* tj = tile + j * m;
        if (beta == T(0)) {
          for (std::int64_t r = 0; r < m; ++r) cj[r] = alpha * tj[r];
        } else {
          for (std::int64_t r = 0; r < m; ++r) cj[r] = alpha * tj[r] + beta * cj[r];
        }
      }
    }
  });
}

class Libxsmm final : public Candidate {
 public:
  std::string_view spelling() const override { return "libxsmm"; }
  Provider provider() const override { return Provider::vendor; }
  Verdict can_run(const Problem& p) const override {
    if (!libxsmm_library().ok()) return Verdict::no("library not found (LIBXSMM)");
    if (const char* why = uniform_only(p.dtype)) return Verdict::no(why);
    if (is_complex(p.dtype)) return Verdict::no("LIBXSMM has no complex GEMM");
    if (p.ta != Op::N) return Verdict::no("LIBXSMM 1.17 dispatches op(A) = A only");
    if (p.m > kIntMax || p.n > kIntMax || p.k > kIntMax || p.a.ld > kIntMax || p.b.ld > kIntMax ||
        p.c.ld > kIntMax) {
      return Verdict::no("a size or leading dimension exceeds LIBXSMM's 32-bit int");
    }
    if (p.m == 0 || p.n == 0 || p.k == 0 || p.alpha == std::complex<double>(0.0, 0.0)) {
      return Verdict::yes();  // the quick path; nothing is dispatched
    }
    if (!direct_scalars(p) && p.m > kTile) {
      return Verdict::no("m > 4096 with alpha != 1 or beta not 0 or 1 (the tile holds a column)");
    }
    if (!kernels_for(p).main) return Verdict::no("LIBXSMM's dispatch returned no kernel");
    return Verdict::yes();
  }
  void launch(const Problem& p, const Exec& exec) const override {
    if (!can_run(p).ok) require_runnable(*this, p, exec);  // throws: no workspace is used
    dispatch(p.dtype, [&]<class T>() {
      if constexpr (std::is_floating_point_v<T>) {
        if (p.m == 0 || p.n == 0 || quick_path<T>(p)) return;
        run_items<T>(p, kernels_for(p));
      }
    });
  }
};

}  // namespace

const Candidate& libxsmm_candidate() {
  static const Libxsmm instance;
  return instance;
}

}  // namespace gemmroute::cpu
