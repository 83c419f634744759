// src/cuda/small.cu's kernels (the batch kernel `cuda.small` and the grouped launch) run on the
// host (host.hpp), set up by the file's own host functions (small_args, fused_launches), so a
// change to either can be checked without a GPU. Every product is compared exactly with a
// reference; the run counts 8- and 16-byte accesses at misaligned addresses (the GPU faults on
// them), writes past the shared memory the host side sized, and barriers some threads never reach.
// Shared memory and every element no item owns start as NaN, and so does C where beta == 0, so
// reading any of them shows in the products. A grouped call of several groups runs as
// launch_fused does: its groups split by size class, each class's launches from fused_launches,
// every block of each (each finds its group in the launch's table).
//
//   small_emulated random COUNT SEED   COUNT random grouped calls (1 to 5 groups) and COUNT
//                                      random batch calls a scalar
//   small_emulated f32|f64|c32|c64     single-group grouped calls at each pair of kSizes,
//                                      k = 1..64, every form
//   small_emulated batch               the batch kernel's small tiles, every size they take
#include "host.hpp"

namespace gemmroute::cuda {
namespace {
#include "small_kernels.inc"
}  // namespace
}  // namespace gemmroute::cuda

namespace {

using namespace emulate;
using namespace gemmroute::cuda;

// Every block of each of the launches fused_launches makes of these groups (one size class).
template <class T, int TILE>
void run_fused(const std::vector<const Problem*>& groups) {
  if (groups.empty()) return;
  fused_launches<T, TILE>(groups, [](const FusedLaunch<T>& launch) {
    blockDim.x = kThreads;
    gridDim.x = static_cast<unsigned>(launch.blocks);
    for (std::int64_t b = 0; b < launch.blocks; ++b) {
      prepare_shared(launch.shared);
      blockIdx.x = static_cast<unsigned>(b);
      fibers::run_block(kThreads, [&] { grouped_kernel<T, TILE>(launch.table); });
      check_guard(launch.shared, "grouped block");
    }
  });
}

// One grouped call of these groups (one scalar), as launch_fused runs it; then each checked.
template <class T>
void run_grouped_call(std::vector<Case> cases) {
  std::vector<Operands<T>> operands(cases.size());
  std::vector<const Problem*> by_tile[3];
  for (std::size_t g = 0; g < cases.size(); ++g) {
    prepare(cases[g], operands[g]);
    const int tile = fused_tile(operands[g].p);
    cases[g].kernel = "grouped (t=" + std::to_string(tile) + ")";
    by_tile[tile == 1 ? 0 : tile == 2 ? 1 : 2].push_back(&operands[g].p);
  }
  const long misaligned_before = misaligned, overruns_before = shared_overruns;
  run_fused<T, 4>(by_tile[2]);
  run_fused<T, 2>(by_tile[1]);
  run_fused<T, 1>(by_tile[0]);
  const bool clean = misaligned == misaligned_before && shared_overruns == overruns_before;
  for (std::size_t g = 0; g < cases.size(); ++g) check(cases[g], operands[g], clean);
}

// The batch kernel (launch_small), two blocks so that each takes groups a grid apart.
template <class T, int S, int TILE>
void run_small(const Problem& p) {
  const Packing pk = packing<T>(p, TILE, Layout::kByRows);
  const SmallArgs<T> args = small_args<T>(p, pk);
  const std::int64_t groups = (p.batch + pk.items - 1) / pk.items;
  blockDim.x = kThreads;
  gridDim.x = groups >= 2 ? 2 : 1;
  for (unsigned b = 0; b < gridDim.x; ++b) {
    prepare_shared(pk.shared);
    blockIdx.x = b;
    fibers::run_block(kThreads, [&] { small_kernel<T, S, TILE>(args); });
    check_guard(pk.shared, "cuda.small block");
  }
}

// One case through the batch kernel's s:t tile.
template <class T>
void run_batch(Case c, int s, int tile) {
  c.kernel = "cuda.small:s=" + std::to_string(s) + ":t=" + std::to_string(tile);
  run_case<T>(c, [&](const Problem& p) {
    switch (s * 10 + tile) {
      case 41:
        run_small<T, 4, 1>(p);
        break;
      case 42:
        run_small<T, 4, 2>(p);
        break;
      case 82:
        run_small<T, 8, 2>(p);
        break;
      case 162:
        run_small<T, 16, 2>(p);
        break;
      default:
        std::fprintf(stderr, "no tile s=%d t=%d here\n", s, tile);
        std::exit(2);
    }
  });
}

constexpr int kBatchTiles[][2] = {{4, 1}, {4, 2}, {8, 2}, {16, 2}};

template <class T>
void sweep_random(long count, unsigned seed) {
  std::mt19937 r(seed);
  const std::vector<Op> f = forms<T>();
  for (long i = 0; i < count; ++i) {
    std::vector<Case> call(1 + r() % 5);
    for (Case& c : call) {
      c.m = 1 + r() % 64;
      c.n = 1 + r() % 64;
      c.k = 1 + r() % 64;
      c.ta = f[r() % f.size()];
      c.tb = f[r() % f.size()];
      randomize<T>(c, r);
    }
    run_grouped_call<T>(call);
  }
  for (long i = 0; i < count; ++i) {
    const auto& t = kBatchTiles[r() % 4];
    Case c;
    c.m = 1 + r() % t[0];
    c.n = 1 + r() % t[0];
    c.k = 1 + r() % t[0];
    c.ta = f[r() % f.size()];
    c.tb = f[r() % f.size()];
    randomize<T>(c, r);
    c.batch = 1 + r() % 600;
    run_batch<T>(c, t[0], t[1]);
  }
}

// Every k in 1..64 at each pair of kSizes, every form, one group a call.
template <class T>
void sweep_grouped(unsigned seed) {
  constexpr int kSizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 23, 32, 33, 48, 63, 64};
  std::mt19937 r(seed);
  for (int m : kSizes) {
    for (int n : kSizes) {
      for (int k = 1; k <= 64; ++k) {
        for (Op ta : forms<T>()) {
          for (Op tb : forms<T>()) {
            Case c{"", m, n, k, 1, ta, tb};
            randomize<T>(c, r);
            run_grouped_call<T>({c});
          }
        }
      }
    }
  }
}

// The batch kernel's tiles up to s = 16, every size they take (a quarter of those at s = 16).
template <class T>
void sweep_batch(unsigned seed) {
  std::mt19937 r(seed);
  const std::vector<Op> f = forms<T>();
  for (const auto& t : kBatchTiles) {
    for (int m = 1; m <= t[0]; ++m) {
      for (int n = 1; n <= t[0]; ++n) {
        for (int k = 1; k <= t[0]; ++k) {
          if (t[0] == 16 && r() % 4 != 0) continue;
          Case c{"", m, n, k, 1, f[r() % f.size()], f[r() % f.size()]};
          randomize<T>(c, r);
          c.batch = 1 + r() % 600;
          run_batch<T>(c, t[0], t[1]);
        }
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "";
  if (what == "random" && argc == 4) {
    const long count = std::atol(argv[2]);
    const auto seed = static_cast<unsigned>(std::atol(argv[3]));
    each_scalar([&]<class T>() { sweep_random<T>(count, seed); });
  } else if (what == "f32") {
    sweep_grouped<float>(1);
  } else if (what == "f64") {
    sweep_grouped<double>(2);
  } else if (what == "c32") {
    sweep_grouped<Cx<float>>(3);
  } else if (what == "c64") {
    sweep_grouped<Cx<double>>(4);
  } else if (what == "batch") {
    each_scalar([&]<class T>() { sweep_batch<T>(9); });
  } else {
    std::fprintf(stderr,
                 "usage: small_emulated random COUNT SEED | f32 | f64 | c32 | c64 | batch\n");
    return 2;
  }
  return finish(what, "small.cu");
}
