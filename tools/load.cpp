// gemmroute_load: how calls behave when the cores are shared. T caller threads each call one
// strided batched GEMM again and again for a while, on operands of their own, through the
// public API (the table's choice, or a pinned candidate); the program prints the median and
// the 90th percentile of the time per call over every thread, and the calls per second of all
// threads together. scripts/load-experiment runs it alone, beside a process that keeps every
// core busy, and from more threads than cores (docs/under-load.md).
#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gemmroute/gemmroute.hpp"

namespace {

using namespace gemmroute;
using Clock = std::chrono::steady_clock;

struct Config {
  std::string dtype = "f32";
  std::int64_t m = 8, n = 8, k = 8, batch = 2000;
  int threads = 1;
  double seconds = 2;
  std::string pin;
};

template <class T>
std::vector<double> run_thread(Context& ctx, const Config& c, Clock::time_point until,
                               unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-1, 1);
  auto fill = [&](std::int64_t count) {
    std::vector<T> v(static_cast<std::size_t>(count));
    for (auto& x : v) {
      if constexpr (std::is_floating_point_v<T>) {
        x = static_cast<T>(d(rng));
      } else {
        x = T(static_cast<typename T::value_type>(d(rng)),
              static_cast<typename T::value_type>(d(rng)));
      }
    }
    return v;
  };
  const auto a = fill(c.m * c.k * c.batch), b = fill(c.k * c.n * c.batch);
  auto cm = fill(c.m * c.n * c.batch);
  Options o;
  o.pin = c.pin;
  std::vector<double> us;
  while (Clock::now() < until) {
    const auto t0 = Clock::now();
    gemm<T>(ctx, Op::N, Op::N, c.m, c.n, c.k, T(0.75), a.data(), c.m, c.m * c.k, b.data(), c.k,
            c.k * c.n, T(-0.5), cm.data(), c.m, c.m * c.n, c.batch, o);
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  return us;
}

std::vector<double> run_any(Context& ctx, const Config& c, Clock::time_point until, unsigned seed) {
  if (c.dtype == "f32") return run_thread<float>(ctx, c, until, seed);
  if (c.dtype == "f64") return run_thread<double>(ctx, c, until, seed);
  if (c.dtype == "c32") return run_thread<std::complex<float>>(ctx, c, until, seed);
  if (c.dtype == "c64") return run_thread<std::complex<double>>(ctx, c, until, seed);
  return {};
}

int usage() {
  std::fputs(
      "usage: gemmroute_load [--dtype f32|f64|c32|c64] [--m M --n N --k K --batch B]\n"
      "                      [--threads T] [--seconds S] [--pin SPELLING]\n",
      stderr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Config c;
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 >= argc) return usage();
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--dtype")
      c.dtype = value;
    else if (flag == "--m")
      c.m = std::atoll(value.c_str());
    else if (flag == "--n")
      c.n = std::atoll(value.c_str());
    else if (flag == "--k")
      c.k = std::atoll(value.c_str());
    else if (flag == "--batch")
      c.batch = std::atoll(value.c_str());
    else if (flag == "--threads")
      c.threads = std::atoi(value.c_str());
    else if (flag == "--seconds")
      c.seconds = std::atof(value.c_str());
    else if (flag == "--pin")
      c.pin = value;
    else
      return usage();
  }
  if (c.threads < 1 || c.seconds <= 0 || c.m < 1 || c.n < 1 || c.k < 1 || c.batch < 1) {
    return usage();
  }
  try {
    Context ctx;  // one Context for every thread, as a program would share it
    // A short first call outside the timing: the table, OpenBLAS and the threads start here.
    run_any(ctx, c, Clock::now() + std::chrono::milliseconds(200), 0);
    std::vector<std::vector<double>> per(static_cast<std::size_t>(c.threads));
    std::vector<std::thread> pool;
    const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                          std::chrono::duration<double>(c.seconds));
    for (int t = 0; t < c.threads; ++t) {
      pool.emplace_back([&, t] {
        per[static_cast<std::size_t>(t)] = run_any(ctx, c, until, static_cast<unsigned>(t + 1));
      });
    }
    for (auto& th : pool) th.join();
    std::vector<double> all;
    for (const auto& v : per) all.insert(all.end(), v.begin(), v.end());
    if (all.empty()) {
      std::fprintf(stderr, "gemmroute_load: no call finished (unknown --dtype?)\n");
      return 1;
    }
    std::sort(all.begin(), all.end());
    const double median = all[all.size() / 2], p90 = all[all.size() * 9 / 10];
    std::printf(
        "%s %lldx%lldx%lld batch %lld pin '%s' threads %d: %zu calls, median %.1f us, "
        "p90 %.1f us, %.0f calls/s\n",
        c.dtype.c_str(), static_cast<long long>(c.m), static_cast<long long>(c.n),
        static_cast<long long>(c.k), static_cast<long long>(c.batch), c.pin.c_str(), c.threads,
        all.size(), median, p90, static_cast<double>(all.size()) / c.seconds);
  } catch (const Error& e) {
    std::fprintf(stderr, "gemmroute_load: %s\n", e.what());
    return 1;
  }
  return 0;
}
