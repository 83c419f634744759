// gemmroute_repeat_calls: what the call path costs a thread that calls one small f32 GEMM again
// and again on the CPU, through the public API: on the same pointers every time, and on two
// sets of pointers whose alignment classes differ (one element apart), which a thread's kept
// calls must both hold to skip validation and selection (docs/decisions.md, "A repeated call
// skips validation and selection"). Each arm routed (the table's choice) and pinned; prints the
// best of 7 runs of 2 x 10^6 calls, in ns per call. Time it alone on the machine.
//
//   gemmroute_repeat_calls [N [PIN]]     (N: the square size, default 2; PIN default cpu.direct)
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gemmroute/gemmroute.hpp"

namespace {

using namespace gemmroute;
using Clock = std::chrono::steady_clock;

constexpr int kCalls = 2000000;
constexpr int kRuns = 7;

// Best of kRuns of kCalls calls, in ns per call; with `alternate`, odd calls move every operand
// one element on (alignment class 4 bytes instead of 16 or more).
double time_calls(Context& ctx, std::int64_t n, float* base, bool alternate, const Options& o) {
  double best = 1e300;
  for (int run = 0; run < kRuns; ++run) {
    const auto t0 = Clock::now();
    for (int i = 0; i < kCalls; ++i) {
      float* x = base + (alternate && (i & 1) ? 1 : 0);
      gemm<float>(ctx, Op::N, Op::N, n, n, n, 1.0f, x, n, 0, x + 1024, n, 0, 0.0f, x + 2048, n, 0,
                  1, o);
    }
    const std::chrono::duration<double, std::nano> took = Clock::now() - t0;
    best = std::min(best, took.count() / kCalls);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 2;
  if (n < 1 || n > 16) {
    std::fprintf(stderr, "usage: gemmroute_repeat_calls [N (1..16) [PIN]]\n");
    return 2;
  }
  Options routed, pinned;
  pinned.pin = argc > 2 ? argv[2] : "cpu.direct";
  // A, B and C 1024 floats apart, starting at a 256-byte boundary.
  std::vector<float> memory(4096 + 64, 0.5f);
  const auto address = reinterpret_cast<std::uintptr_t>(memory.data());
  float* base = memory.data() + (256 - address % 256) % 256 / sizeof(float);
  try {
    Context ctx;
    std::printf("f32 N N %lld^3, batch 1, %d calls, best of %d runs (pin: %s)\n",
                static_cast<long long>(n), kCalls, kRuns, pinned.pin.c_str());
    std::printf("routed, same pointers           %6.1f ns per call\n",
                time_calls(ctx, n, base, false, routed));
    std::printf("routed, two alignment classes   %6.1f ns per call\n",
                time_calls(ctx, n, base, true, routed));
    std::printf("pinned, same pointers           %6.1f ns per call\n",
                time_calls(ctx, n, base, false, pinned));
    std::printf("pinned, two alignment classes   %6.1f ns per call\n",
                time_calls(ctx, n, base, true, pinned));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemmroute_repeat_calls: %s\n", e.what());
    return 1;
  }
  return 0;
}
