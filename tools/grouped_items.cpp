// gemmroute_grouped_items: what gemm_grouped (one GemmItem a matrix) costs the host per item on
// the CPU, through the public API: N items of 1 x 1 to 4 x 4 (four groups), each its own A, B
// and C, so the time is mostly validation, grouping and the pointer arrays (docs/decisions.md,
// "gemm_groups<T>(ctx, groups)"). Prints the best of 7 calls, in ns per item. Time it alone on
// the machine.
//
//   gemmroute_grouped_items [N...]     (item counts, default 100000 1000000)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "gemmroute/gemmroute.hpp"

namespace {

using namespace gemmroute;
using Clock = std::chrono::steady_clock;

constexpr int kRuns = 7;

double ns_per_item(Context& ctx, std::int64_t count) {
  // 48 floats an item: A, B and C of up to 4 x 4, 16 floats apart.
  std::vector<float> memory(static_cast<std::size_t>(count) * 48, 0.5f);
  std::vector<GemmItem> items;
  items.reserve(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t n = 1 + i % 4;
    float* x = memory.data() + i * 48;
    items.push_back(make_item(Op::N, Op::N, n, n, n, 1.0f, x, n, x + 16, n, 0.0f, x + 32, n));
  }
  double best = 1e300;
  for (int run = 0; run < kRuns; ++run) {
    const auto t0 = Clock::now();
    gemm_grouped(ctx, items);
    const std::chrono::duration<double, std::nano> took = Clock::now() - t0;
    best = std::min(best, took.count() / static_cast<double>(count));
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::int64_t> counts;
  for (int i = 1; i < argc; ++i) counts.push_back(std::atoll(argv[i]));
  if (counts.empty()) counts = {100000, 1000000};
  for (const std::int64_t c : counts) {
    if (c < 1 || c > 100000000) {
      std::fprintf(stderr, "usage: gemmroute_grouped_items [N (1..10^8)...]\n");
      return 2;
    }
  }
  try {
    Context ctx;
    for (const std::int64_t c : counts) {
      std::printf("gemm_grouped, %lld items of 1^3 to 4^3: %6.1f ns an item (best of %d calls)\n",
                  static_cast<long long>(c), ns_per_item(ctx, c), kRuns);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemmroute_grouped_items: %s\n", e.what());
    return 1;
  }
  return 0;
}
