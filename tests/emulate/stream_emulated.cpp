// src/cuda/stream.cu's kernels (`cuda.stream:t=`, `v=`, `mma=`) run on the host (host.hpp), each
// launch set up by the file's own `setup` (extracted with the kernels), so a change to either can
// be checked without a GPU. Every product is compared exactly with a reference; the run counts
// 8- and 16-byte accesses and asynchronous copies at misaligned addresses, writes past the shared
// memory `setup` sized, and barriers some threads never reach. The tensor-core tiles run the
// path the kernel takes below sm_80 (the same 8 x 8 x 4 products through warp shuffles), so they
// check the fragments' indexing, not the mma instruction. A case the candidate would refuse
// (Stream::can_run: v= where m is not a multiple of its rows, mma= but for f64 and c64, i= where
// m or n is over its side, c64 at i=8, i=8:cols=2 but for f64 and c32, v=:rows=2 but for f32,
// buffers over 227 KiB) is skipped.
//
//   stream_emulated random COUNT SEED   COUNT random cases a scalar for each tile
#include "host.hpp"

namespace gemmroute::cuda {
namespace {
#include "stream_kernels.inc"
}  // namespace
}  // namespace gemmroute::cuda

namespace {

using namespace emulate;
using gemmroute::cuda::kRunLength;

long skipped = 0;
constexpr std::size_t kMaxShared = 227 * 1024;  // Stream::kMaxShared

// Runs the launch of tile TL over p: `setup`'s arguments, up to three persistent blocks (each
// takes groups three apart), one block at a time.
template <class T, class TL>
bool run_stream(const Problem& p) {
  using namespace gemmroute::cuda;
  const auto [s, pl] = setup<T, TL>(p);
  if (pl.shared > kMaxShared) return false;
  const std::int64_t blocks = std::min<std::int64_t>(s.groups, 3);
  blockDim.x = kThreads;
  gridDim.x = static_cast<unsigned>(blocks);
  for (std::int64_t b = 0; b < blocks; ++b) {
    prepare_shared(pl.shared);
    blockIdx.x = static_cast<unsigned>(b);
    fibers::run_block(kThreads, [&] {
      if constexpr (kHasSingle<T, TL>) {
        if (pl.single) {
          stream_kernel<T, TL, true>(s);
          return;
        }
      }
      stream_kernel<T, TL, false>(s);
    });
    check_guard(pl.shared, "cuda.stream block");
  }
  return true;
}

template <class T>
struct Tiles {
  static constexpr int R = kRunLength<T>;
  using Square1 = gemmroute::cuda::Tile<1, 1, false>;
  using Square2 = gemmroute::cuda::Tile<2, 2, false>;
  using Square4 = gemmroute::cuda::Tile<4, 4, false>;
  using Rows1 = gemmroute::cuda::Tile<R, 1, true>;
  using Rows2 = gemmroute::cuda::Tile<R, 2, true>;
  using Rows4 = gemmroute::cuda::Tile<R, 4, true>;
  using Rows4x2 = gemmroute::cuda::Tile<2 * R, 4, true>;
  using Mma8 = gemmroute::cuda::MmaTile<1>;
  using Mma16 = gemmroute::cuda::MmaTile<2>;
  using Item4 = gemmroute::cuda::ItemTile<4>;
  using Item8 = gemmroute::cuda::ItemTile<8>;
  using Item8Cols2 = gemmroute::cuda::ItemTile<8, 2>;
  using TwoRows4 = gemmroute::cuda::Tile<2, 4, true>;
  using TwoRows8 = gemmroute::cuda::Tile<2, 8, true>;
};

constexpr const char* kSpellings[] = {"t=1", "t=2",        "t=4",        "v=1",       "v=2",
                                      "v=4", "v=4:runs=2", "mma=8",      "mma=16",    "i=4",
                                      "i=8", "i=8:cols=2", "v=4:rows=2", "v=8:rows=2"};
constexpr int kTiles = 14;
// The item tiles' side (m and n at most that), 0 for the others.
constexpr int kItemSide[kTiles] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 8, 8, 0, 0};
// The f32 tiles of two rows (m even).
constexpr bool two_rows(int tile) {
  return tile >= 12;
}

// One case through the tile numbered `tile` (kSpellings); false where the candidate refuses it.
template <class T>
bool run_tile(const Problem& p, int tile) {
  using X = Tiles<T>;
  constexpr bool kF64 = std::is_same_v<T, double> || std::is_same_v<T, Cx<double>>;
  const int rows = tile == 6 ? 2 * X::R : X::R;
  if (tile >= 3 && tile <= 6 && p.m % rows != 0) return false;
  if (two_rows(tile) && p.m % 2 != 0) return false;
  const int side = kItemSide[tile];
  if (side != 0 && (p.m > side || p.n > side)) return false;
  switch (tile) {
    case 0:
      return run_stream<T, typename X::Square1>(p);
    case 1:
      return run_stream<T, typename X::Square2>(p);
    case 2:
      return run_stream<T, typename X::Square4>(p);
    case 3:
      return run_stream<T, typename X::Rows1>(p);
    case 4:
      return run_stream<T, typename X::Rows2>(p);
    case 5:
      return run_stream<T, typename X::Rows4>(p);
    case 6:
      return run_stream<T, typename X::Rows4x2>(p);
    case 7:
      if constexpr (kF64) return run_stream<T, typename X::Mma8>(p);
      return false;
    case 8:
      if constexpr (kF64) return run_stream<T, typename X::Mma16>(p);
      return false;
    case 9:
      return run_stream<T, typename X::Item4>(p);
    case 10:
      if constexpr (sizeof(T) < 16) return run_stream<T, typename X::Item8>(p);
      return false;
    case 11:
      if constexpr (sizeof(T) == 8) return run_stream<T, typename X::Item8Cols2>(p);
      return false;
    case 12:
      if constexpr (std::is_same_v<T, float>) return run_stream<T, typename X::TwoRows4>(p);
      return false;
    case 13:
      if constexpr (std::is_same_v<T, float>) return run_stream<T, typename X::TwoRows8>(p);
      return false;
  }
  return false;
}

// Random sizes (a third of m, n and k each a multiple of 8: the v= tiles run where m is, and
// read B's runs along k or j where k or n is; the item tiles' m and n within their side, k
// within 1..64 and half the time within their side too; the two-row tiles' m even), packed
// storage from a 128-byte boundary or one element past it (copies of 16, 8 or 4 bytes), and
// batches of one to seven groups' worth of items.
template <class T>
void sweep_random(long count, unsigned seed) {
  std::mt19937 r(seed);
  const std::vector<Op> f = forms<T>();
  for (int tile = 0; tile < kTiles; ++tile) {
    for (long i = 0; i < count; ++i) {
      Case c;
      c.m = 1 + r() % 64;
      if (r() % 3 == 0) c.m = std::max<std::int64_t>(c.m / 8 * 8, 8);
      c.n = 1 + r() % 64;
      if (r() % 3 == 0) c.n = std::max<std::int64_t>(c.n / 8 * 8, 8);
      c.k = 1 + r() % 64;
      if (r() % 3 == 0) c.k = std::max<std::int64_t>(c.k / 8 * 8, 8);
      if (two_rows(tile)) c.m = 2 * (1 + r() % 32);  // even, half of them 2 mod 4
      if (const int side = kItemSide[tile]) {
        c.m = 1 + r() % side;
        c.n = 1 + r() % side;
        if (r() % 2 == 0) c.k = 1 + r() % side;
      }
      c.ta = f[r() % f.size()];
      c.tb = f[r() % f.size()];
      randomize<T>(c, r, 2);
      const std::int64_t bytes = (c.m * c.k + c.k * c.n + c.m * c.n) * std::int64_t{sizeof(T)};
      c.batch = (1 + r() % 7) * std::max<std::int64_t>(16 * 1024 / bytes, 1) + r() % 5;
      c.kernel = std::string("cuda.stream:") + kSpellings[tile];
      if (!run_case<T>(c, [&](const Problem& p) { return run_tile<T>(p, tile); })) ++skipped;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "";
  if (what != "random" || argc != 4) {
    std::fprintf(stderr, "usage: stream_emulated random COUNT SEED\n");
    return 2;
  }
  const long count = std::atol(argv[2]);
  const auto seed = static_cast<unsigned>(std::atol(argv[3]));
  each_scalar([&]<class T>() { sweep_random<T>(count, seed); });
  std::printf("%ld cases skipped (the candidate refuses them)\n", skipped);
  return finish(what, "stream.cu");
}
