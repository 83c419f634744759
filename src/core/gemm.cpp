// The public entry points: build a Problem, validate, quick-return, select, launch.
#include "gemmroute/gemm.hpp"

#include <cstdio>
#include <map>
#include <tuple>
#include <vector>

#include "core/context_state.hpp"
#include "core/problem.hpp"
#include "core/select.hpp"
#include "gemmroute/error.hpp"

namespace gemmroute {
namespace {

// Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap the operands.
void swap_for_row_major(Problem& p) {
  std::swap(p.m, p.n);
  std::swap(p.ta, p.tb);
  std::swap(p.a, p.b);
}

void run(Context& ctx, Problem& p, const Options& options, bool swapped) {
  detail::ContextState& st = detail::Access::state(ctx);
  validate(p, swapped, st.host_memory);
  if (is_noop(p)) return;
  const Table* table = st.table_for(options);
  Overrides ov = st.overrides_for(options);
  Key key = key_of(p);
  if (!st.env.log) {
    select(p, key, table, *st.backend, *st.exec, ov, nullptr).candidate->launch(p, *st.exec);
    return;
  }
  Trace trace;
  Selection s = select(p, key, table, *st.backend, *st.exec, ov, &trace);
  std::string line = format_log_line(key, table, s, trace, ov) + "\n";
  std::fputs(line.c_str(), stderr);
  s.candidate->launch(p, *st.exec);
}

}  // namespace

// A scalar as the Problem keeps it. For std::complex<float>, GCC copies the by-value argument
// through the stack as two 4-byte stores; converting the pair whole then loads 8 bytes over
// them, which waits for both stores (twice per call, a fifth of the call path). The empty asm
// keeps the parts apart, so each is loaded as it was stored.
template <class T>
std::complex<double> widen(const T& v) {
  if constexpr (std::is_same_v<T, std::complex<float>>) {
    float re = v.real(), im = v.imag();
#if defined(__x86_64__) && defined(__GNUC__)
    asm("" : "+x"(re), "+x"(im));
#endif
    return {re, im};
  } else {
    return std::complex<double>(v);
  }
}

// Every field given, so the Problem is written once, field by field (a default-initialised
// one is cleared first with a string store, a few ns of a call's 50 ns budget).
template <class T>
Problem sized_problem(Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k,
                      std::int64_t batch, const T& alpha, const T& beta, Operand a, Operand b,
                      Operand c) {
  return Problem{scalar_of_v<T>, ta, tb, m, n, k, batch, widen(alpha), widen(beta), a, b, c};
}

template <class T>
void gemm(Context& ctx, Order order, Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k,
          T alpha, const T* a, std::int64_t lda, std::int64_t stride_a, const T* b,
          std::int64_t ldb, std::int64_t stride_b, T beta, T* c, std::int64_t ldc,
          std::int64_t stride_c, std::int64_t batch, const Options& options) {
  Problem p = sized_problem(ta, tb, m, n, k, batch, alpha, beta, {a, nullptr, lda, stride_a},
                            {b, nullptr, ldb, stride_b}, {c, nullptr, ldc, stride_c});
  const bool swapped = order == Order::row_major;
  if (swapped) swap_for_row_major(p);
  run(ctx, p, options, swapped);
}

template <class T>
void gemm(Context& ctx, Order order, Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k,
          T alpha, const T* const* a, std::int64_t lda, const T* const* b, std::int64_t ldb, T beta,
          T* const* c, std::int64_t ldc, std::int64_t batch, const Options& options) {
  // Null arrays stay null so validation names them.
  Problem p = sized_problem(ta, tb, m, n, k, batch, alpha, beta,
                            {nullptr, reinterpret_cast<const void* const*>(a), lda, 0},
                            {nullptr, reinterpret_cast<const void* const*>(b), ldb, 0},
                            {nullptr, reinterpret_cast<const void* const*>(c), ldc, 0});
  const bool swapped = order == Order::row_major;
  if (swapped) swap_for_row_major(p);
  run(ctx, p, options, swapped);
}

void gemm_grouped(Context& ctx, std::span<const GemmItem> items, const Options& options) {
  // Validate every item before any write: a batch of one pointer each.
  struct Prepared {
    Problem problem;
    const void* a;
    const void* b;
    void* c;
  };
  std::vector<Prepared> prepared;
  prepared.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    const GemmItem& it = items[i];
    Prepared pr{};
    Problem& p = pr.problem;
    p.dtype = it.dtype;
    p.ta = it.ta;
    p.tb = it.tb;
    p.m = it.m;
    p.n = it.n;
    p.k = it.k;
    p.batch = 1;
    p.alpha = it.alpha;
    p.beta = it.beta;
    pr.a = it.a;
    pr.b = it.b;
    pr.c = it.c;
    std::int64_t lda = it.lda, ldb = it.ldb;
    const bool swapped = it.order == Order::row_major;
    if (swapped) {
      std::swap(p.m, p.n);
      std::swap(p.ta, p.tb);
      std::swap(pr.a, pr.b);
      std::swap(lda, ldb);
    }
    p.a = {nullptr, &pr.a, lda, 0};
    p.b = {nullptr, &pr.b, ldb, 0};
    p.c = {nullptr, reinterpret_cast<const void* const*>(&pr.c), it.ldc, 0};
    try {
      validate(p, swapped);
    } catch (const Error& e) {
      std::string index = std::to_string(i);
      throw Error(e.code(), "items[" + index + "]." + e.argument(),
                  "item " + index + ": " + e.message());
    }
    prepared.push_back(pr);
  }
  // Group by everything a pointer-array batch shares, in order of first appearance.
  using GroupKey = std::tuple<Scalar, Op, Op, std::int64_t, std::int64_t, std::int64_t, double,
                              double, double, double, std::int64_t, std::int64_t, std::int64_t>;
  std::map<GroupKey, std::size_t> index;
  struct Group {
    Problem problem;
    std::vector<const void*> a, b, c;
  };
  std::vector<Group> groups;
  for (const Prepared& pr : prepared) {
    const Problem& p = pr.problem;
    if (is_noop(p)) continue;
    GroupKey key{p.dtype, p.ta,           p.tb,           p.m,           p.n,
                 p.k,     p.alpha.real(), p.alpha.imag(), p.beta.real(), p.beta.imag(),
                 p.a.ld,  p.b.ld,         p.c.ld};
    auto [it, fresh] = index.emplace(key, groups.size());
    if (fresh) groups.push_back(Group{p, {}, {}, {}});
    Group& g = groups[it->second];
    g.a.push_back(pr.a);
    g.b.push_back(pr.b);
    g.c.push_back(pr.c);
  }
  for (Group& g : groups) {
    Problem& p = g.problem;
    p.batch = static_cast<std::int64_t>(g.c.size());
    p.a.array = g.a.data();
    p.b.array = g.b.data();
    p.c.array = g.c.data();
    run(ctx, p, options, false);
  }
}

#define GEMMROUTE_INSTANTIATE(T)                                                              \
  template void gemm<T>(Context&, Order, Op, Op, std::int64_t, std::int64_t, std::int64_t, T, \
                        const T*, std::int64_t, std::int64_t, const T*, std::int64_t,         \
                        std::int64_t, T, T*, std::int64_t, std::int64_t, std::int64_t,        \
                        const Options&);                                                      \
  template void gemm<T>(Context&, Order, Op, Op, std::int64_t, std::int64_t, std::int64_t, T, \
                        const T* const*, std::int64_t, const T* const*, std::int64_t, T,      \
                        T* const*, std::int64_t, std::int64_t, const Options&);

GEMMROUTE_INSTANTIATE(float)
GEMMROUTE_INSTANTIATE(double)
GEMMROUTE_INSTANTIATE(std::complex<float>)
GEMMROUTE_INSTANTIATE(std::complex<double>)
#undef GEMMROUTE_INSTANTIATE

}  // namespace gemmroute
