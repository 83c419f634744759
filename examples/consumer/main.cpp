// The README's example: a batch of 1000 8x8 products, checked by hand.
#include <gemmroute/gemmroute.hpp>

#include <cstdio>
#include <vector>

int main() {
  gemmroute::Context ctx;  // the CPU; finds this device's table
  const std::int64_t m = 8, n = 8, k = 8, batch = 1000;
  std::vector<float> a(m * k * batch, 1.0f), b(k * n * batch, 0.5f), c(m * n * batch);
  gemmroute::gemm<float>(ctx, gemmroute::Op::N, gemmroute::Op::N, m, n, k, 1.0f, a.data(), m, m * k,
                         b.data(), k, k * n, 0.0f, c.data(), m, m * n, batch);
  for (float x : c) {
    if (x != 4.0f) {
      std::printf("wrong: %g\n", x);
      return 1;
    }
  }
  std::printf("ok: %lld products\n", static_cast<long long>(batch));
  return 0;
}
