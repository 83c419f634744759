#include "measure/measure.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>

#include "reference/reference.hpp"

#ifndef GEMMROUTE_VERSION
#define GEMMROUTE_VERSION "unknown"
#endif
namespace gemmroute::measure {

std::string_view commit_id();  // generated at build time (cmake/commit.cmake)

std::string_view to_string(Status s) noexcept {
  switch (s) {
    case Status::ok:
      return "ok";
    case Status::failed:
      return "failed";
    case Status::error:
      return "error";
    case Status::not_runnable:
      return "not-runnable";
  }
  return "?";
}

bool parse_status(std::string_view t, Status& s) noexcept {
  for (Status v : {Status::ok, Status::failed, Status::error, Status::not_runnable}) {
    if (t == to_string(v)) {
      s = v;
      return true;
    }
  }
  return false;
}

std::string tuner_version() {
  return std::string("gemmroute ") + GEMMROUTE_VERSION + " (commit " + std::string(commit_id()) +
         ")";
}

std::string method_line(const MeasureDevice& d, const MeasureOptions& o) {
  // Numbers are short; the names (clock, cache source) come from the device and may be long,
  // so the line is built whole, never cut at a buffer's end.
  auto g = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return std::string(buf);
  };
  return d.clock_name() + "; warm-up >= " + g(o.harness.warmup_us / 1000.0) +
         " ms per arm; operands rotated over >= " + g(o.operands.rotation_factor) + "x the " +
         g(static_cast<double>(d.cache_bytes()) / 1048576.0) + " MiB cache (" + d.cache_source() +
         "); arms interleaved in one process, order rotated each repetition and reversed on odd "
         "ones, an untimed lead-in call before each sample; median of " +
         std::to_string(o.harness.repetitions) +
         " repetitions, each >= " + g(o.harness.min_sample_us) +
         " us of back-to-back calls; spread = interquartile range / median; each arm checked "
         "once per point against the long-double reference (<= " +
         g(o.check_macs) + " multiply-adds sampled); random full-mantissa operands, " +
         (o.operands.unit_scalars ? "alpha = beta = 1"
          : o.operands.zero_beta  ? "nonzero alpha, beta = 0"
                                  : "nonzero alpha and beta");
}

double macs_of(const Key& k) {
  return static_cast<double>(k.m) * static_cast<double>(k.n) * static_cast<double>(k.k) *
         static_cast<double>(k.batch);
}

double flops_of(const Key& k) {
  return (is_complex(k.dtype) ? 8.0 : 2.0) * macs_of(k);
}

double bytes_of(const Key& k) {
  const double in = static_cast<double>(size_of(k.dtype.in));
  const double out = static_cast<double>(size_of(k.dtype.out));
  const double m = static_cast<double>(k.m), n = static_cast<double>(k.n),
               kk = static_cast<double>(k.k);
  return static_cast<double>(k.batch) * (in * (m * kk + kk * n) + out * 2.0 * m * n);
}

LaunchArm arm_for(const Candidate& c, const Exec& exec) {
  return {std::string(c.spelling()), [&c, &exec](const Problem& p) { return runnable(c, p, exec); },
          [&c, &exec](const Problem& p) { c.launch(p, exec); }};
}

namespace {

// Sub-problems of `p` (same operands) whose reference cost stays near `budget` multiply-adds:
// evenly spaced items including the first and last; for one item too big on its own, blocks of
// columns at both edges of C (where edge tiles live), and of rows at both edges of those where
// one column alone is too big.
std::vector<Problem> check_pieces(const Problem& p, double budget) {
  std::vector<Problem> out;
  const double per_item = static_cast<double>(p.m) * static_cast<double>(p.n) *
                          static_cast<double>(std::max<std::int64_t>(p.k, 1));
  const auto e = static_cast<std::int64_t>(size_of(p.dtype.in));
  const auto e_out = static_cast<std::int64_t>(size_of(p.dtype.out));
  auto item = [&](std::int64_t i) {
    Problem q = p;
    q.batch = 1;
    q.a.base = static_cast<const char*>(p.a.base) + i * p.a.stride * e;
    q.b.base = static_cast<const char*>(p.b.base) + i * p.b.stride * e;
    q.c.base = static_cast<const char*>(p.c.base) + i * p.c.stride * e_out;
    return q;
  };
  if (per_item * static_cast<double>(p.batch) <= budget) return {p};
  if (per_item <= budget) {
    const auto items =
        std::clamp<std::int64_t>(static_cast<std::int64_t>(budget / per_item), 2, p.batch);
    std::int64_t last = -1;
    for (std::int64_t j = 0; j < items; ++j) {
      const std::int64_t i = j * (p.batch - 1) / (items - 1);
      if (i != last) out.push_back(item(i));
      last = i;
    }
    return out;
  }
  // One item is over budget: check column blocks at the left and right edges of C, of the
  // first and the last item; where one column alone is over budget (a GEMV-like item: n small,
  // m k large), row blocks at its top and bottom edges of those columns.
  const double per_col =
      static_cast<double>(p.m) * static_cast<double>(std::max<std::int64_t>(p.k, 1));
  const std::int64_t cols =
      std::clamp<std::int64_t>(static_cast<std::int64_t>(budget / per_col / 4), 1, p.n);
  const std::int64_t rows =
      per_col <= budget ? p.m
                        : std::clamp<std::int64_t>(
                              static_cast<std::int64_t>(
                                  budget / static_cast<double>(std::max<std::int64_t>(p.k, 1)) / 4),
                              1, p.m);
  for (std::int64_t i : {std::int64_t{0}, p.batch - 1}) {
    Problem q = item(i);
    for (std::int64_t j0 : {std::int64_t{0}, p.n - cols}) {
      Problem r = q;
      r.n = cols;
      const std::int64_t b_off = p.tb == Op::N ? j0 * p.b.ld : j0;
      r.b.base = static_cast<const char*>(q.b.base) + b_off * e;
      r.c.base = static_cast<const char*>(q.c.base) + j0 * p.c.ld * e_out;
      for (std::int64_t i0 : {std::int64_t{0}, p.m - rows}) {
        Problem t = r;
        t.m = rows;
        const std::int64_t a_off = p.ta == Op::N ? i0 : i0 * p.a.ld;
        t.a.base = static_cast<const char*>(r.a.base) + a_off * e;
        t.c.base = static_cast<const char*>(r.c.base) + i0 * e_out;
        out.push_back(t);
        if (p.m - rows <= 0) break;
      }
      if (p.n - cols <= 0) break;
    }
    if (p.batch == 1) break;
  }
  return out;
}

// Rebases a problem's operand pointers from one allocation onto another of the same layout.
Problem rebase(const Problem& p, const char* from, char* to) {
  Problem q = p;
  auto move = [&](const void* ptr) { return to + (static_cast<const char*>(ptr) - from); };
  q.a.base = move(p.a.base);
  q.b.base = move(p.b.base);
  q.c.base = move(p.c.base);
  return q;
}

}  // namespace

std::uint64_t output_digest(const void* bytes, std::size_t size) {
  // FNV-1a's offset and splitmix64's finaliser over 8-byte words, then the tail and the size.
  auto mix = [](std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  const auto* p = static_cast<const unsigned char*>(bytes);
  std::uint64_t h = 0xcbf29ce484222325ull;
  std::size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = mix(h ^ w) + 0x9e3779b97f4a7c15ull;
  }
  std::uint64_t tail = 0;
  for (std::size_t j = 0; i + j < size; ++j) tail |= std::uint64_t{p[i + j]} << (8 * j);
  return mix(mix(h ^ tail) ^ static_cast<std::uint64_t>(size));
}

std::string check_arm(const OperandSets& sets, const LaunchArm& arm, MeasureDevice& device,
                      double check_macs, double* worst, std::uint64_t* digest) {
  return check_arm(sets, arm, device, check_macs, worst, digest, nullptr);
}

std::string check_arm(const OperandSets& sets, const LaunchArm& arm, MeasureDevice& device,
                      double check_macs, double* worst, std::uint64_t* digest,
                      std::vector<char>* snapshot) {
  const Problem& p = sets.problem(0);
  const std::size_t bytes = static_cast<std::size_t>(set_bytes(sets.key()));
  const char* dev0 = static_cast<const char*>(p.a.base);  // set 0 starts with A
  std::vector<char> own;
  std::vector<char>& before = snapshot ? *snapshot : own;
  if (before.size() != bytes) {  // the snapshot is taken once per point: every check restores it
    before.resize(bytes);
    device.download(before.data(), dev0, bytes);
  }
  std::vector<char> after(bytes);
  const std::size_t ab = static_cast<const char*>(p.c.base) - dev0;  // A and B, then C
  std::string why;
  try {
    arm.launch(p);
    device.synchronize();
  } catch (const std::exception& ex) {
    why = std::string("launch threw: ") + ex.what();
  }
  bool ab_changed = true;  // unknown after a throw: restore everything
  if (why.empty()) {
    device.download(after.data(), dev0, bytes);
    const Problem got = rebase(p, dev0, after.data());
    const Problem orig = rebase(p, dev0, before.data());
    // A and B must be untouched; the reference reads them from `orig`.
    ab_changed = std::memcmp(before.data(), after.data(), ab) != 0;
    if (ab_changed) why = "wrote into A or B";
    if (digest) *digest = output_digest(after.data() + ab, bytes - ab);
    auto got_pieces = check_pieces(got, check_macs);
    auto orig_pieces = check_pieces(orig, check_macs);
    double w = 0;
    for (std::size_t i = 0; i < got_pieces.size() && why.empty(); ++i) {
      auto c = reference::check_against_reference(got_pieces[i], orig_pieces[i]);
      w = std::max(w, c.worst);
      if (!c.ok) why = "wrong result: " + c.message;
    }
    if (worst) *worst = w;
  }
  // Restore set 0 so every arm is checked from the same C (only C, where A and B are intact).
  if (ab_changed) {
    device.upload(const_cast<char*>(dev0), before.data(), bytes);
  } else {
    device.upload(const_cast<char*>(dev0) + ab, before.data() + ab, bytes - ab);
  }
  return why;
}

PointReport measure_arms(const Key& key, std::span<const LaunchArm> arms, MeasureDevice& device,
                         const MeasureOptions& options, Arena* arena) {
  PointReport report;
  OperandSets sets(key, device, options.operands, arena);
  report.sets = sets.count();
  report.set_bytes = set_bytes(key);
  std::vector<Arm> timed;
  std::vector<std::size_t> timed_index;
  std::vector<char> snapshot;  // set 0 as made, downloaded by the first check
  for (std::size_t a = 0; a < arms.size(); ++a) {
    ArmResult r;
    r.name = arms[a].name;
    Verdict v = arms[a].can_run ? arms[a].can_run(sets.problem(0)) : Verdict::yes();
    if (!v.ok) {
      r.status = Status::not_runnable;
      r.detail = v.reason;
    } else {
      double worst = 0;
      std::uint64_t digest = 0;
      std::string why =
          check_arm(sets, arms[a], device, options.check_macs, &worst, &digest, &snapshot);
      if (!why.empty()) {
        r.status = why.rfind("launch threw", 0) == 0 ? Status::error : Status::failed;
        r.detail = why;
      } else {
        char buf[64];
        std::snprintf(buf, sizeof buf, "err/bound %.3g", worst);
        r.detail = buf;
        r.digest = digest;
        const LaunchArm* arm = &arms[a];
        timed.push_back(
            {arm->name, [arm, &sets](std::int64_t s) { arm->launch(sets.problem(s)); }});
        timed_index.push_back(a);
      }
    }
    report.arms.push_back(std::move(r));
  }
  HarnessOptions h = options.harness;
  h.sets = sets.count();
  auto timings = time_arms(timed, h, device);
  for (std::size_t i = 0; i < timings.size(); ++i) {
    ArmResult& r = report.arms[timed_index[i]];
    r.stats = timings[i].stats;
    r.samples_us = std::move(timings[i].samples_us);
    r.calls_per_sample = timings[i].calls_per_sample;
  }
  return report;
}

}  // namespace gemmroute::measure
