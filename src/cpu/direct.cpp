// cpu.direct: the generic native kernel and the CPU's last resort. Every scalar, every form,
// any layout. Per item: for op(A) = A, column axpys (C(:, j) += A(:, q) * alpha op(B)(q, j)),
// which walk A and C with unit stride; for op(A) = A^T or A^H, dot products down the columns
// of A. Working precision, one item per thread.
#include <complex>

#include "core/candidate.hpp"
#include "cpu/batch.hpp"
#include "cpu/candidates.hpp"

namespace gemmroute::cpu {
namespace {

template <class T>
T conj_if(T v, bool c) {
  if constexpr (std::is_floating_point_v<T>) {
    (void)c;
    return v;
  } else {
    return c ? std::conj(v) : v;
  }
}

template <class T>
void direct_item(const Problem& p, const T* a, const T* b, T* c) {
  const T alpha = p.alpha_as<T>();
  const T beta = p.beta_as<T>();
  const std::int64_t lda = p.a.ld, ldb = p.b.ld, ldc = p.c.ld;
  const bool conj_a = p.ta == Op::C, conj_b = p.tb == Op::C;
  auto op_b = [&](std::int64_t q, std::int64_t j) {
    return p.tb == Op::N ? b[q + j * ldb] : conj_if(b[j + q * ldb], conj_b);
  };
  for (std::int64_t j = 0; j < p.n; ++j) {
    T* cj = c + j * ldc;
    if (p.ta == Op::N) {
      scale_item(p.m, 1, beta, cj, ldc);
      for (std::int64_t q = 0; q < p.k; ++q) {
        const T s = alpha * op_b(q, j);
        const T* aq = a + q * lda;
        for (std::int64_t i = 0; i < p.m; ++i) cj[i] += aq[i] * s;
      }
    } else {
      for (std::int64_t i = 0; i < p.m; ++i) {
        const T* ai = a + i * lda;
        T sum(0);
        for (std::int64_t q = 0; q < p.k; ++q) sum += conj_if(ai[q], conj_a) * op_b(q, j);
        cj[i] = beta == T(0) ? alpha * sum : alpha * sum + beta * cj[i];
      }
    }
  }
}

class Direct final : public Candidate {
 public:
  std::string_view spelling() const override { return "cpu.direct"; }
  Provider provider() const override { return Provider::native; }
  Verdict can_run(const Problem&) const override { return Verdict::yes(); }
  void launch(const Problem& p, const Exec& exec) const override {
    if (!can_run(p).ok) require_runnable(*this, p, exec);  // throws: no workspace is used
    dispatch(p.dtype, [&]<class T>() {
      if (quick_path<T>(p)) return;
      for_each_item(p, [&](std::int64_t i) {
        direct_item<T>(p, p.item_a<T>(i), p.item_b<T>(i), p.item_c<T>(i));
      });
    });
  }
};

}  // namespace

const Candidate& direct_candidate() {
  static const Direct instance;
  return instance;
}

}  // namespace gemmroute::cpu
