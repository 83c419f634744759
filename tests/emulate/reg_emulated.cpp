// src/cuda/reg.cu's kernels (`cuda.reg`, the f32 register tiles: 128 x 128 with its split-k sum,
// and 256 x 128; `cuda.wide` for f64, c32, c64) run on the host (host.hpp), each call through
// the file's own
// launch functions (extracted with the kernels; their <<<>>> launches run every block of the
// grid here, one block at a time), so a change to the kernels or to which of them a form runs
// can be checked without a GPU. Every product is compared exactly with a reference; the run
// counts 8- and 16-byte accesses and asynchronous copies at misaligned addresses, writes past the
// dynamic shared memory a launch asked for, and barriers some threads never reach. The GPU is
// taken to have the H200's 132 multiprocessors, which decides where k is split. A launch through
// cudaLaunchKernelEx with a cluster attribute runs a cluster's blocks together (host.hpp's
// run_cluster); a kernel of this file's own checks that first (check_clusters).
//
//   reg_emulated random COUNT SEED   COUNT random cases a scalar
#include <mutex>

#include "host.hpp"

namespace emulate {

inline dim3 dims(dim3 d) { return d; }
inline dim3 dims(unsigned x) { return {x, 1, 1}; }
inline dim3 dims(int x) { return {static_cast<unsigned>(x), 1, 1}; }

// Every block of a grid, one cluster at a time in an order shuffled launch by launch (a GPU
// promises none: which chunk of a split tile finishes last varies), a cluster's blocks together
// (fibers::run_cluster), each over `bytes` of dynamic shared memory with a guard after it.
// (A cluster of one is a block: its shared memory is made NaN for the next.)
inline std::mt19937 block_order(2026);
inline void run_grid(dim3 grid, dim3 block, dim3 cluster, std::size_t bytes,
                     const std::function<void()>& body) {
  if (grid.x % cluster.x || grid.y % cluster.y || grid.z % cluster.z) {
    std::fprintf(stderr, "a grid that its clusters do not divide\n");
    std::exit(1);
  }
  gridDim = grid;
  blockDim = block;
  cluster_dim = cluster;
  std::vector<uint3> clusters;
  for (unsigned z = 0; z < grid.z; z += cluster.z) {
    for (unsigned y = 0; y < grid.y; y += cluster.y) {
      for (unsigned x = 0; x < grid.x; x += cluster.x) clusters.push_back({x, y, z});
    }
  }
  std::shuffle(clusters.begin(), clusters.end(), block_order);
  const int blocks = static_cast<int>(cluster.x * cluster.y * cluster.z);
  for (const uint3& c : clusters) {
    prepare_cluster(blocks, bytes);
    const auto enter = [&](int b) {
      const unsigned r = static_cast<unsigned>(b);
      blockIdx = {c.x + r % cluster.x, c.y + r / cluster.x % cluster.y,
                  c.z + r / (cluster.x * cluster.y)};
      enter_cluster_block(b);
    };
    // A block that ended: its guard checked, then its shared memory NaN, so that a read of
    // it by another block of the cluster fails the comparison.
    const auto leave = [&](int b) {
      g_shared = cluster_shared[b];
      check_guard(bytes, "cuda.reg block");
      std::memset(g_shared, 0xFF, bytes);
    };
    fibers::run_cluster(blocks, static_cast<int>(block.x), enter, leave, body);
  }
  cluster_dim = dim3{};
}

// K<<<grid, block, bytes, stream>>>(args...).
template <class K, class G, class B>
auto launch(K kernel, G grid_in, B block_in, std::size_t bytes, cudaStream_t) {
  return [=](auto... args) {
    run_grid(dims(grid_in), dims(block_in), dim3{}, bytes, [&] { kernel(args...); });
  };
}

}  // namespace emulate

// cudaLaunchKernelEx (cuda_runtime.h): its cluster attribute, if any, groups the blocks.
void emulate_launch_ex(const cudaLaunchConfig_t& config, const std::function<void()>& body) {
  dim3 cluster;
  for (unsigned i = 0; i < config.numAttrs; ++i) {
    if (config.attrs[i].id == cudaLaunchAttributeClusterDimension) {
      const auto& d = config.attrs[i].val.clusterDim;
      cluster = {d.x, d.y, d.z};
    }
  }
  emulate::run_grid(config.gridDim, config.blockDim, cluster, config.dynamicSmemBytes, body);
}

namespace gemmroute::cuda {

// What reg.cu's launch functions ask of the Context (src/cuda/exec.hpp, which needs the CUDA
// runtime): the multiprocessors, the stream, the workspace (kWorkspaceBytes as exec.hpp has it)
// and its lock.
inline constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;
struct CudaExec {
  int sms() const { return 132; }
  cudaStream_t cuda_stream() const { return nullptr; }
  void allow_shared(const void*, std::size_t) const {}
  void* workspace() const { return workspace_.data(); }
  std::mutex& launch_mutex() const { return mutex_; }
  mutable std::vector<unsigned char> workspace_ = std::vector<unsigned char>(kWorkspaceBytes);
  mutable std::mutex mutex_;
};
inline void check_launch(const char*) {}
inline void check(int, const char*) {}
inline int cudaMemsetAsync(void* at, int value, std::size_t bytes, cudaStream_t) {
  std::memset(at, value, bytes);
  return 0;
}

namespace {
#include "reg_kernels.inc"
}  // namespace
}  // namespace gemmroute::cuda

namespace {

using namespace emulate;

// Random sizes up to 300 (a third of m and n a multiple of the tile, or one more), every form,
// every storage, one to three items; k up to 300 (a quarter of the f32 cases up to 800), so that k
// is split where the tiles are few, in up to 24 chunks; one f32 case in 64 has m over 1,024
// (1,025-2,224, n up to 40, one item).
// Half the cases are packed from a 128-byte boundary with every size a multiple of 4, the calls
// whose operands all take 16-byte loads (the f32 kernels of 16-byte runs).
template <class T>
void sweep_random(long count, unsigned seed) {
  using namespace gemmroute::cuda;
  std::mt19937 r(seed);
  const std::vector<Op> f = forms<T>();
  constexpr bool kF32 = std::is_same_v<T, float>;
  const std::int64_t tile = kF32 ? kRegTile : 64;
  for (long i = 0; i < count; ++i) {
    Case c;
    auto side = [&] {
      std::int64_t v = 1 + r() % 300;
      if (r() % 3 == 0) v = std::max<std::int64_t>(v / tile * tile, tile) + r() % 2;
      return v;
    };
    c.m = side();
    c.n = side();
    c.k = 1 + r() % 300;
    if (kF32 && r() % 4 == 0) c.k = 300 + r() % 500;  // more chunks: 7 to 24 where tiles are few
    c.ta = f[r() % f.size()];
    c.tb = f[r() % f.size()];
    randomize<T>(c, r);
    if (r() % 2 == 0) {
      c.m = (c.m + 3) / 4 * 4;
      c.n = (c.n + 3) / 4 * 4;
      c.k = (c.k + 3) / 4 * 4;
      c.la = c.lb = c.lc = Storage::packed;
    }
    c.batch = 1 + r() % 3;
    if (kF32 && r() % 64 == 0) {  // m past the 1,024 rows a block's column of the split sum takes
      c.m = 1025 + r() % 1200;
      c.n = 1 + r() % 40;
      c.k = 128 + r() % 400;
      c.batch = 1;
    }
    c.kernel = kF32 ? "cuda.reg" : "cuda.wide";
    run_case<T>(c, [&](const Problem& p) {
      const CudaExec exec;
      if constexpr (kF32) {
        launch_sgemm(p, exec);
      } else {
        launch_reg<T, 64, 64, 8, 4>(p, exec);
      }
    });
    if constexpr (kF32) {  // the same case on the 256 x 128 tile
      c.kernel = "cuda.reg:m=256:n=128:k=8:t=8x16";
      run_case<T>(c, [&](const Problem& p) { launch_sgemm_big(p, CudaExec{}); });
    }
  }
}

}  // namespace

namespace {

// The emulator's clusters, checked on a kernel of their own (no shipped kernel launches one):
// in clusters of 4 blocks along x, each block leaves blockIdx.x + 1 in its shared memory, and
// after the cluster's barrier reads every block's through map_shared_rank; a barrier that
// opened early, a rank mapped to the wrong block or a block's memory read after it ended gives
// the wrong sum.
void cluster_sum_kernel(int* out) {
  const cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  int* const mine = reinterpret_cast<int*>(g_shared);
  if (threadIdx.x == 0) *mine = static_cast<int>(blockIdx.x) + 1;
  cluster.sync();
  int sum = 0;
  for (unsigned r = 0; r < cluster.num_blocks(); ++r) sum += *cluster.map_shared_rank(mine, r);
  if (threadIdx.x == 32) out[blockIdx.x] = sum + 1000 * static_cast<int>(cluster.block_rank());
  cluster.sync();  // no block's memory goes while another may read it
}

void check_clusters() {
  constexpr unsigned kBlocks = 12, kCluster = 4;
  std::vector<int> out(kBlocks, -1);
  cudaLaunchAttribute cluster[1] = {};
  cluster[0].id = cudaLaunchAttributeClusterDimension;
  cluster[0].val.clusterDim = {kCluster, 1, 1};
  cudaLaunchConfig_t config;
  config.gridDim = {kBlocks, 1, 1};
  config.blockDim = {64, 1, 1};
  config.dynamicSmemBytes = sizeof(int);
  config.attrs = cluster;
  config.numAttrs = 1;
  cudaLaunchKernelEx(&config, cluster_sum_kernel, out.data());
  ++emulate::runs;
  for (unsigned b = 0; b < kBlocks; ++b) {
    const unsigned first = b / kCluster * kCluster;  // the cluster's first block
    const int want = static_cast<int>(kCluster * (first + 1) + kCluster * (kCluster - 1) / 2 +
                                      1000 * (b - first));
    if (out[b] != want) {
      std::fprintf(stderr, "  clusters: block %u read %d, not %d\n", b, out[b], want);
      ++emulate::failures;
      return;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "";
  if (what != "random" || argc != 4) {
    std::fprintf(stderr, "usage: reg_emulated random COUNT SEED\n");
    return 2;
  }
  const long count = std::atol(argv[2]);
  const auto seed = static_cast<unsigned>(std::atol(argv[3]));
  check_clusters();
  each_scalar([&]<class T>() { sweep_random<T>(count, seed); });
  return finish(what, "reg.cu");
}
