// The public entry points: build a Problem, validate, quick-return, select, launch.
#include "gemmroute/gemm.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
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

void check_order(Order order, const char* argument) {
  if (order != Order::col_major && order != Order::row_major) {
    throw Error(Errc::invalid_argument, argument,
                "argument '" + std::string(argument) + "': not col_major or row_major (" +
                    std::to_string(static_cast<int>(order)) + ")");
  }
}

void check_options(const Options& options) {
  if (!options.route) return;
  const Route r = *options.route;
  if (r != Route::automatic && r != Route::native && r != Route::vendor) {
    throw Error(Errc::invalid_argument, "options.route",
                "argument 'options.route': not automatic, native or vendor (" +
                    std::to_string(static_cast<int>(r)) + ")");
  }
}

// Selection with GEMMROUTE_LOG's line, out of line so the unlogged path carries no Trace.
[[gnu::noinline]] const Candidate& choose_logged(detail::ContextState& st, const Problem& p,
                                                 const Key& key, const Table* table,
                                                 const Overrides& ov, const Lookup* lookup) {
  Trace trace;
  Selection s = select(p, key, table, *st.backend, *st.exec, ov, &trace, lookup);
  std::string line = format_log_line(key, table, s, trace, ov) + "\n";
  std::fputs(line.c_str(), stderr);
  return *s.candidate;
}

// GEMMROUTE_LOG's line for what a grouped call's launch does beyond each group's choice.
[[gnu::noinline]] void log_group_launches(const Backend& backend,
                                          std::span<const GroupLaunch> launches) {
  const std::string note = backend.group_launch_note(launches);
  if (!note.empty()) std::fputs(("gemmroute: grouped call | " + note + "\n").c_str(), stderr);
}

// Selects for a validated problem, printing GEMMROUTE_LOG's line when asked. `lookup`: the
// table's look-up for the problem's key, when the caller has it already.
const Candidate& choose(detail::ContextState& st, const Problem& p, const Table* table,
                        const Overrides& ov, const Lookup* lookup = nullptr) {
  const Key key = key_of(p);
  if (st.recorder) st.recorder->note(key);
  if (!st.env.log) {
    return *select(p, key, table, *st.backend, *st.exec, ov, nullptr, lookup).candidate;
  }
  return choose_logged(st, p, key, table, ov, lookup);
}

// Options::tf32 asks f32 calls to compute in TF32; nothing else changes.
void apply_precision(Problem& p, const Options& options) {
  if (options.tf32 && p.dtype == Scalar::f32) p.dtype.compute = Compute::tf32;
}

// A thread's recent routed strided calls, so that the same call again skips validation and
// selection (a program calling one shape in a loop: most of a small call's host time). Both are
// functions of what is kept here: the Context (its backend, Exec and environment), the table and
// the overrides; the scalars, forms, sizes, leading dimensions, strides, alpha and beta; which
// pointers are null and each pointer's alignment up to the backend's selection_alignment (CPU:
// the packed layout's 16 bytes; CUDA: 256, cuda.stream's granule and cuBLASLt's caps). A pinned
// call is kept too, with the candidate its pin resolved to (a pin that names nothing never
// matches, so it throws again). A call with GEMMROUTE_LOG or GEMMROUTE_RECORD, Options::table
// (loaded on first use, after validation), or pointer arrays, takes the full path and is not kept.
struct RepeatCall {
  std::uint64_t context = 0;  // ContextState::id: never reused, 0 is none
  const Table* table = nullptr;
  const Candidate* pinned = nullptr;  // the pin's candidate; null: not pinned
  Route route = Route::automatic;
  Selector selector = kDefaultSelector;
  bool deterministic = false;
  Problem given;              // as the call gave it, each pointer as its alignment (or null)
  Op ta = Op::N, tb = Op::N;  // as validation folded them (the only fields validation changes)
  const Candidate* choice = nullptr;
};

// The thread's last kKeptCalls distinct calls, so that a program alternating between a few
// shapes, or between buffers of different alignment (ping-pong buffers; rotated operand sets),
// keeps the fast path. `last`: the call the thread made last (looked at first); `next`: the one
// a new call replaces, in turn.
constexpr int kKeptCalls = 4;
struct KeptCalls {
  std::array<RepeatCall, kKeptCalls> calls{};
  int last = 0;
  int next = 0;
};

constinit thread_local KeptCalls t_kept{};

// A pointer as the largest power of two up to `most` that divides it; null stays null.
const void* pointer_class(const void* p, std::uintptr_t most) noexcept {
  const auto bits = reinterpret_cast<std::uintptr_t>(p) | most;
  return p ? reinterpret_cast<const void*>(bits & (~bits + 1)) : nullptr;
}

bool same_operand(const Operand& x, const Operand& kept, std::uintptr_t most) noexcept {
  return pointer_class(x.base, most) == kept.base && x.ld == kept.ld && x.stride == kept.stride;
}

bool same_call(const detail::ContextState& st, const Table* table, const Overrides& ov,
               const Problem& p, const RepeatCall& r) noexcept {
  const Problem& g = r.given;
  return r.context == st.id && r.table == table && r.pinned == ov.pinned && r.route == ov.route &&
         r.selector == ov.selector && r.deterministic == ov.deterministic && p.dtype == g.dtype &&
         p.ta == g.ta && p.tb == g.tb && p.m == g.m && p.n == g.n && p.k == g.k &&
         p.batch == g.batch && p.alpha == g.alpha && p.beta == g.beta &&
         same_operand(p.a, g.a, st.selection_alignment) &&
         same_operand(p.b, g.b, st.selection_alignment) &&
         same_operand(p.c, g.c, st.selection_alignment);
}

// The kept call that `p` repeats (the thread's last call first), or null.
const RepeatCall* find_kept(const detail::ContextState& st, const Table* table, const Overrides& ov,
                            const Problem& p) noexcept {
  if (!ov.pin.empty() && !ov.pinned) return nullptr;  // names nothing: the full path says so
  KeptCalls& kept = t_kept;
  for (int i = 0; i < kKeptCalls; ++i) {
    const int slot = (kept.last + i) % kKeptCalls;
    if (same_call(st, table, ov, p, kept.calls[slot])) {
      kept.last = slot;
      return &kept.calls[slot];
    }
  }
  return nullptr;
}

// Keeps a validated call, in place of the oldest kept: `given_ta` and `given_tb` are its forms
// before validation folded them.
void keep_call(const detail::ContextState& st, const Table* table, const Overrides& ov,
               const Problem& validated, Op given_ta, Op given_tb,
               const Candidate& choice) noexcept {
  KeptCalls& kept = t_kept;
  kept.last = kept.next;
  kept.next = (kept.next + 1) % kKeptCalls;
  RepeatCall& r = kept.calls[kept.last];
  r.context = st.id;
  r.table = table;
  r.pinned = ov.pinned;  // null without a pin
  r.route = ov.route;
  r.selector = ov.selector;
  r.deterministic = ov.deterministic;
  r.given = validated;
  r.given.ta = given_ta;
  r.given.tb = given_tb;
  for (Operand* o : {&r.given.a, &r.given.b, &r.given.c}) {
    o->base = pointer_class(o->base, st.selection_alignment);
  }
  r.ta = validated.ta;
  r.tb = validated.tb;
  r.choice = &choice;
}

}  // namespace

const Candidate* detail::kept_choice() noexcept {
  return t_kept.calls[t_kept.last].choice;
}

namespace {

// Every plain call's path: the order (a row-major call runs as its column-major transpose),
// the options, validation, then the choice and the launch; or, for one of the thread's kept
// calls again, its validated forms and its choice.
void run(Context& ctx, Order order, Problem& p, const Options& options) {
  check_order(order, "order");
  const bool swapped = order == Order::row_major;
  if (swapped) swap_for_row_major(p);
  detail::ContextState& st = detail::Access::state(ctx);
  check_options(options);
  apply_precision(p, options);
  const bool keepable = options.table.empty() && !st.env.log && !st.recorder && !p.pointer_array();
  const Overrides ov = st.overrides_for(options);
  if (keepable) {
    if (const RepeatCall* r = find_kept(st, st.table.get(), ov, p)) {
      p.ta = r->ta;
      p.tb = r->tb;
      r->choice->launch(p, *st.exec);
      return;
    }
  }
  const Op given_ta = p.ta, given_tb = p.tb;
  validate(p, swapped, st.host_memory);
  if (is_noop(p)) return;
  const Table* table = st.table_for(options);
  const Candidate& c = choose(st, p, table, ov);
  if (keepable) keep_call(st, table, ov, p, given_ta, given_tb, c);
  c.launch(p, *st.exec);
}

// A grouped item as a validated pointer-array batch of one (row-major items already swapped).
struct Prepared {
  Problem problem;
  const void* a;
  const void* b;
  void* c;
};

Prepared prepare_item(const GemmItem& it, std::size_t index, bool read_pointer_arrays,
                      const Options& options) {
  try {
    check_order(it.order, "order");
    Prepared pr{};
    Problem& p = pr.problem;
    p.dtype = it.dtype;
    apply_precision(p, options);
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
    p.a.ld = it.lda;
    p.b.ld = it.ldb;
    p.c.ld = it.ldc;
    const bool swapped = it.order == Order::row_major;
    if (swapped) {
      swap_for_row_major(p);
      std::swap(pr.a, pr.b);
    }
    // Validated as a pointer-array batch of one; the group's arrays replace these later.
    p.a.array = &pr.a;
    p.b.array = &pr.b;
    p.c.array = &pr.c;
    validate(p, swapped, read_pointer_arrays);
    p.a.array = p.b.array = p.c.array = nullptr;
    return pr;
  } catch (const Error& e) {
    const std::string where = "items[" + std::to_string(index) + "]";
    throw Error(e.code(), where + "." + e.argument(),
                "item " + std::to_string(index) + ": " + e.message());
  }
}

// What items of one group share, scalars by their bits: NaN equals itself here (and -0 differs
// from 0), so the ordering is total and an item joins only a group of exactly its arguments.
using GroupKey = std::tuple<std::uint32_t, Op, Op, std::int64_t, std::int64_t, std::int64_t,
                            std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t,
                            std::int64_t, std::int64_t, std::int64_t>;

std::uint64_t group_hash(const GroupKey& k) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&](std::uint64_t v) { h = (h ^ v) * 0x100000001b3ull; };
  std::apply([&](const auto&... v) { (mix(static_cast<std::uint64_t>(v)), ...); }, k);
  h ^= h >> 33;  // the multiplications carry upwards only: bring the high bits down
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 33);
}

GroupKey group_key(const Problem& p) {
  auto bits = [](double v) { return std::bit_cast<std::uint64_t>(v); };
  return {dtype_bits(p.dtype),
          p.ta,
          p.tb,
          p.m,
          p.n,
          p.k,
          bits(p.alpha.real()),
          bits(p.alpha.imag()),
          bits(p.beta.real()),
          bits(p.beta.imag()),
          p.a.ld,
          p.b.ld,
          p.c.ld};
}

// Selects every group of a grouped call (validated pointer-array batches) before any runs, so
// that a group that cannot run (pin, route, runnability, workspace) leaves every C unwritten.
// Each distinct key is looked up in the table once per Context (many groups of one call, and
// every call after, share it). Without a pin, and where native kernels may run, the backend may
// run groups together in a launch of its own (GroupLaunch::may_fuse).
std::vector<GroupLaunch> select_groups(detail::ContextState& st, std::span<Problem> groups,
                                       const Options& options) {
  const Table* table = st.table_for(options);
  Overrides ov = st.overrides_for(options);
  const bool may_fuse = ov.pin.empty() && ov.route != Route::vendor;
  std::vector<GroupLaunch> launches;
  launches.reserve(groups.size());
  for (Problem& p : groups) {
    if (table && ov.pin.empty()) {
      const Lookup lookup = st.cached_lookup(*table, key_of(p), ov.selector);
      launches.push_back({&choose(st, p, table, ov, &lookup), &p, may_fuse});
    } else {
      launches.push_back({&choose(st, p, table, ov), &p, may_fuse});
    }
  }
  if (st.env.log) log_group_launches(*st.backend, launches);
  return launches;
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
                      Operand c, DType dtype = scalar_of_v<T>) {
  return Problem{dtype, ta, tb, m, n, k, batch, widen(alpha), widen(beta), a, b, c};
}

template <class In, class Out>
constexpr DType mixed_dtype() {
  return DType(scalar_of_v<In>, scalar_of_v<Out>, Compute::f32);
}

template <class T>
void gemm(Context& ctx, Order order, Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k,
          T alpha, const T* a, std::int64_t lda, std::int64_t stride_a, const T* b,
          std::int64_t ldb, std::int64_t stride_b, T beta, T* c, std::int64_t ldc,
          std::int64_t stride_c, std::int64_t batch, const Options& options) {
  Problem p = sized_problem(ta, tb, m, n, k, batch, alpha, beta, {a, nullptr, lda, stride_a},
                            {b, nullptr, ldb, stride_b}, {c, nullptr, ldc, stride_c});
  run(ctx, order, p, options);
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
  run(ctx, order, p, options);
}

template <class In, class Out>
requires MixedTypes<In, Out>
void gemm(Context& ctx, Order order, Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k,
          float alpha, const In* a, std::int64_t lda, std::int64_t stride_a, const In* b,
          std::int64_t ldb, std::int64_t stride_b, float beta, Out* c, std::int64_t ldc,
          std::int64_t stride_c, std::int64_t batch, const Options& options) {
  Problem p = sized_problem(ta, tb, m, n, k, batch, alpha, beta, {a, nullptr, lda, stride_a},
                            {b, nullptr, ldb, stride_b}, {c, nullptr, ldc, stride_c},
                            mixed_dtype<In, Out>());
  run(ctx, order, p, options);
}

template <class In, class Out>
requires MixedTypes<In, Out>
void gemm(Context& ctx, Order order, Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k,
          float alpha, const In* const* a, std::int64_t lda, const In* const* b, std::int64_t ldb,
          float beta, Out* const* c, std::int64_t ldc, std::int64_t batch, const Options& options) {
  Problem p = sized_problem(ta, tb, m, n, k, batch, alpha, beta,
                            {nullptr, reinterpret_cast<const void* const*>(a), lda, 0},
                            {nullptr, reinterpret_cast<const void* const*>(b), ldb, 0},
                            {nullptr, reinterpret_cast<const void* const*>(c), ldc, 0},
                            mixed_dtype<In, Out>());
  run(ctx, order, p, options);
}

void gemm_grouped(Context& ctx, std::span<const GemmItem> items, const Options& options) {
  detail::ContextState& st = detail::Access::state(ctx);
  check_options(options);
  // Validate every item before any write, grouping them as they are validated (nothing is
  // written until every item has passed). Items and the groups' pointer arrays are gathered on
  // the host (so they are read here on every backend); a device backend stages the arrays into
  // its memory after selection (Exec::stage_pointers).
  //
  // Groups share everything a pointer-array batch shares; groups come in order of first
  // appearance and items in their order. Per item only its group and its three pointers are kept
  // (32 bytes, not the item's whole Problem), then every group's operands go into one flat array
  // (a few allocations per call, not three a group).
  struct Placed {
    std::uint32_t group;
    const void* a;
    const void* b;
    void* c;
  };
  constexpr std::uint32_t kNone = ~std::uint32_t{0};
  std::vector<Problem> groups;
  std::vector<GroupKey> keys;
  std::vector<Placed> placed;
  placed.reserve(items.size());
  // Open addressing over the groups seen, kept at most half full (a call has few groups).
  std::vector<std::uint32_t> slot(64, kNone);
  auto find_or_add = [&](const Problem& p) {
    if (2 * (groups.size() + 1) > slot.size()) {
      slot.assign(2 * slot.size(), kNone);
      const std::size_t mask = slot.size() - 1;
      for (std::size_t g = 0; g < groups.size(); ++g) {
        std::size_t at = group_hash(keys[g]) & mask;
        while (slot[at] != kNone) at = (at + 1) & mask;
        slot[at] = static_cast<std::uint32_t>(g);
      }
    }
    const std::size_t mask = slot.size() - 1;
    GroupKey key = group_key(p);
    std::size_t at = group_hash(key) & mask;
    while (slot[at] != kNone && keys[slot[at]] != key) at = (at + 1) & mask;
    if (slot[at] == kNone) {
      slot[at] = static_cast<std::uint32_t>(groups.size());
      groups.push_back(p);
      groups.back().batch = 0;
      keys.push_back(std::move(key));
    }
    ++groups[slot[at]].batch;
    return slot[at];
  };
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Prepared pr = prepare_item(items[i], i, true, options);
    if (is_noop(pr.problem)) continue;
    placed.push_back({find_or_add(pr.problem), pr.a, pr.b, pr.c});
  }
  if (groups.empty()) return;
  // Every group's a, then every group's b, then every group's c, each in group order (so a run
  // of groups is also one pointer array per operand, as cuBLAS's grouped GEMM takes them);
  // `first[g]` counts the items before group g, `next[g]` those placed so far.
  std::vector<std::size_t> first(groups.size()), next(groups.size());
  for (std::size_t g = 1; g < groups.size(); ++g)
    first[g] = first[g - 1] + static_cast<std::size_t>(groups[g - 1].batch);
  const std::size_t total = first.back() + static_cast<std::size_t>(groups.back().batch);
  std::vector<const void*> pointers(3 * total);
  auto point = [&](const void* const* at) {
    for (std::size_t g = 0; g < groups.size(); ++g) {
      groups[g].a.array = at + first[g];
      groups[g].b.array = at + total + first[g];
      groups[g].c.array = at + 2 * total + first[g];
    }
  };
  point(pointers.data());
  for (const Placed& it : placed) {
    const std::size_t at = first[it.group] + next[it.group]++;
    pointers[at] = it.a;
    pointers[total + at] = it.b;
    pointers[2 * total + at] = it.c;
  }

  for (Problem& p : groups) validate(p, false, true);
  const std::vector<GroupLaunch> launches = select_groups(st, groups, options);
  const Exec::Staged staged = st.exec->stage_pointers(pointers);
  point(staged.data());
  st.backend->launch_groups(launches, *st.exec);
}

template <class T>
void gemm_groups(Context& ctx, std::span<const GemmGroup<T>> groups, const Options& options) {
  detail::ContextState& st = detail::Access::state(ctx);
  check_options(options);
  std::vector<Problem> problems;
  problems.reserve(groups.size());
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const GemmGroup<T>& g = groups[i];
    Problem p = sized_problem(g.ta, g.tb, g.m, g.n, g.k, g.count, g.alpha, g.beta,
                              {nullptr, reinterpret_cast<const void* const*>(g.a), g.lda, 0},
                              {nullptr, reinterpret_cast<const void* const*>(g.b), g.ldb, 0},
                              {nullptr, reinterpret_cast<const void* const*>(g.c), g.ldc, 0});
    apply_precision(p, options);
    try {
      validate(p, false, st.host_memory);
    } catch (const Error& e) {
      // The group's own field names: its item count is `count`, a batch's size elsewhere.
      const bool count = e.argument() == "batch";
      const std::string field = count ? "count" : e.argument();
      std::string message = e.message();
      constexpr std::string_view kBatch = "argument 'batch'";
      if (count && message.starts_with(kBatch))
        message.replace(0, kBatch.size(), "argument 'count'");
      throw Error(e.code(), "groups[" + std::to_string(i) + "]." + field,
                  "group " + std::to_string(i) + ": " + message);
    }
    if (!is_noop(p)) problems.push_back(p);
  }
  if (problems.empty()) return;
  st.backend->launch_groups(select_groups(st, problems, options), *st.exec);
}

#define GEMMROUTE_INSTANTIATE(T)                                                              \
  template void gemm<T>(Context&, Order, Op, Op, std::int64_t, std::int64_t, std::int64_t, T, \
                        const T*, std::int64_t, std::int64_t, const T*, std::int64_t,         \
                        std::int64_t, T, T*, std::int64_t, std::int64_t, std::int64_t,        \
                        const Options&);                                                      \
  template void gemm<T>(Context&, Order, Op, Op, std::int64_t, std::int64_t, std::int64_t, T, \
                        const T* const*, std::int64_t, const T* const*, std::int64_t, T,      \
                        T* const*, std::int64_t, std::int64_t, const Options&);               \
  template void gemm_groups<T>(Context&, std::span<const GemmGroup<T>>, const Options&);

GEMMROUTE_INSTANTIATE(float)
GEMMROUTE_INSTANTIATE(double)
GEMMROUTE_INSTANTIATE(std::complex<float>)
GEMMROUTE_INSTANTIATE(std::complex<double>)
#undef GEMMROUTE_INSTANTIATE

#define GEMMROUTE_INSTANTIATE_MIXED(In, Out)                                                       \
  template void gemm<In, Out>(Context&, Order, Op, Op, std::int64_t, std::int64_t, std::int64_t,   \
                              float, const In*, std::int64_t, std::int64_t, const In*,             \
                              std::int64_t, std::int64_t, float, Out*, std::int64_t, std::int64_t, \
                              std::int64_t, const Options&);                                       \
  template void gemm<In, Out>(Context&, Order, Op, Op, std::int64_t, std::int64_t, std::int64_t,   \
                              float, const In* const*, std::int64_t, const In* const*,             \
                              std::int64_t, float, Out* const*, std::int64_t, std::int64_t,        \
                              const Options&);

GEMMROUTE_INSTANTIATE_MIXED(bfloat16, bfloat16)
GEMMROUTE_INSTANTIATE_MIXED(bfloat16, float)
GEMMROUTE_INSTANTIATE_MIXED(float16, float16)
GEMMROUTE_INSTANTIATE_MIXED(float16, float)
#undef GEMMROUTE_INSTANTIATE_MIXED

}  // namespace gemmroute
