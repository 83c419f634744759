// A program that records (GEMMROUTE_RECORD, set by record_test.cpp): 8 threads, each calling
// 20 keys; thread t uses m = 1 + t % 4 and calls each key t + 1 times, so keys are shared
// between threads. With the argument `fork`, it then forks a child that exits at once: the
// child must write nothing (its parent writes the counts).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include <gemmroute/gemmroute.hpp>

int main(int argc, char** argv) {
  gemmroute::Context ctx;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&ctx, t] {
      const std::int64_t m = 1 + t % 4, k = 2;
      std::vector<double> a(m * k, 1.0), b(k * 20, 1.0), c(m * 20, 0.0);
      for (int rep = 0; rep <= t; ++rep) {
        for (std::int64_t n = 1; n <= 20; ++n) {
          gemmroute::gemm<double>(ctx, gemmroute::Op::N, gemmroute::Op::N, m, n, k, 1.0, a.data(),
                                  m, m * k, b.data(), k, k * n, 0.0, c.data(), m, m * n, 1);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  if (argc > 1 && std::strcmp(argv[1], "fork") == 0) {
    const pid_t child = fork();
    if (child == 0) std::exit(0);  // static destructors run: it must write no block
    int status = 0;
    waitpid(child, &status, 0);
  }
  return 0;
}
