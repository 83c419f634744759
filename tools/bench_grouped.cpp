// gemmroute bench --grouped: heterogeneous batches of small square GEMMs, as solvers and
// block-sparse codes call gemm_grouped: NN, alpha 1, beta 0, each item's size drawn on its own,
// one group per distinct size (or, with --sizes, every item of one size: a pointer-array batch
// of one group). Per scalar (f32, f64), size mix and item count, four arms are
// timed in one process with the shared harness (operands rotated over >= 3x the cache), each
// checked first on a sample of items against the long-double reference:
//
//   auto            gemm_groups(groups): one GemmGroup a size, its pointer arrays made once
//                   (on CUDA the small groups run together in cuda.grouped's launches)
//   vendor-groups   the same call pinned to the vendor (CUDA: one cuBLAS grouped call,
//                   cublasGemmGroupedBatchedEx, for all the groups)
//   vendor-loop     one pointer-array gemm() a group pinned to the vendor (CUDA: one
//                   cublasGemmBatchedEx a size)
//   auto-per-group  one pointer-array gemm() a group, the table choosing for each
//   auto-items      gemm_grouped(items): a GemmItem an item, grouped on the host per call
//   auto-ab         (an A/B build with small.cu patched only) auto through the patched copy's
//                   grouped launch
//
// Times are per call, back to back (what a program calling in a loop sees: a call's host work
// overlaps the device's work of the call before). Each is also put against the roofline:
// max(bytes moved / copy bandwidth, flops / GEMM rate), with bytes = A and B read and C written
// once, at the figures given (defaults: the H200's measured 4252 GB/s and 51.0 / 57.7 TFLOP/s
// for f32 / f64). `host_us` is the host's side of one call alone (synchronised before).
// --plot DIR draws each arm's fraction of the roofline against the item count
// (scripts/plot_grouped.py: DIR/grouped.png).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "args.hpp"
#include "bench_common.hpp"
#include "core/backend.hpp"
#include "core/context_state.hpp"
#include "core/files.hpp"
#include "gemmroute/error.hpp"
#include "gemmroute/gemm.hpp"
#include "measure/device.hpp"
#include "measure/harness.hpp"
#include "measure/measure.hpp"
#include "measure/stats.hpp"
#include "measure_common.hpp"
#include "progress.hpp"
#include "reference/reference.hpp"

namespace gemmroute::cli {

using namespace gemmroute::measure;

namespace {

// How each item's size is drawn: the two mixes of the target, or (--sizes) every item
// of one size, one group: a pointer-array batch of that size, as the pointer-array gemm takes it.
struct Mix {
  std::string name;
  std::string about;
  std::int64_t size = 0;  // every item's, or 0 for a mix drawn item by item
};

std::vector<Mix> target_mixes() {
  return {{"uniform", "n uniform in 1..64"},
          {"small80", "80% of items n uniform in 1..16, 20% in 17..64"}};
}

std::int64_t draw_size(const Mix& mix, std::mt19937_64& rng) {
  if (mix.size != 0) return mix.size;
  if (mix.name == "uniform") return std::uniform_int_distribution<std::int64_t>(1, 64)(rng);
  return std::uniform_real_distribution<double>(0, 1)(rng) < 0.8
             ? std::uniform_int_distribution<std::int64_t>(1, 16)(rng)
             : std::uniform_int_distribution<std::int64_t>(17, 64)(rng);
}

struct Limits {
  double copy_gbs, tflops_f32, tflops_f64;
};

// One operand set: every item's A, B and C in device memory, items of one size side by side,
// the grouped call's items in drawing order, and each size's device pointer arrays.
template <class T>
struct Set {
  std::unique_ptr<Buffer> a, b, c, arrays;
  std::vector<GemmItem> items;
  std::vector<GemmGroup<T>> groups;  // one a size, in size order
};

template <class T>
class GroupedRun {
 public:
  GroupedRun(MeasureDevice& dev, const std::vector<std::int64_t>& sizes)
      : dev_(dev), sizes_(sizes) {
    for (std::int64_t n : sizes_) ++count_[n];
    std::int64_t at = 0;
    for (const auto& [n, c] : count_) {
      first_[n] = at;
      at += c * n * n;
    }
    elements_ = at;
  }

  std::int64_t bytes() const { return 3 * elements_ * static_cast<std::int64_t>(sizeof(T)); }
  double flops() const {
    double f = 0;
    for (std::int64_t n : sizes_) f += 2.0 * static_cast<double>(n * n * n);
    return f;
  }
  std::size_t group_count() const { return count_.size(); }

  void make_sets(int sets, std::mt19937_64& rng) {
    std::vector<T> pool(1 << 20);
    std::uniform_real_distribution<double> u(-1, 1);
    for (T& x : pool) x = static_cast<T>(u(rng));
    for (int s = 0; s < sets; ++s) {
      Set<T> set;
      set.a = dev_.allocate(static_cast<std::size_t>(elements_) * sizeof(T));
      set.b = dev_.allocate(static_cast<std::size_t>(elements_) * sizeof(T));
      set.c = dev_.allocate(static_cast<std::size_t>(elements_) * sizeof(T));
      fill(set.a->data(), pool, 2 * s * 7919);
      fill(set.b->data(), pool, (2 * s + 1) * 7919);
      T* A = static_cast<T*>(set.a->data());
      T* B = static_cast<T*>(set.b->data());
      T* C = static_cast<T*>(set.c->data());
      std::map<std::int64_t, std::int64_t> placed;
      for (std::int64_t n : sizes_) {
        const std::int64_t off = first_[n] + placed[n]++ * n * n;
        set.items.push_back(
            make_item<T>(Op::N, Op::N, n, n, n, T(1), A + off, n, B + off, n, T(0), C + off, n));
      }
      // Pointer arrays: every size's A pointers in size order, then B's, then C's (so one
      // size's arrays follow the previous size's, as cuBLAS's grouped call takes them).
      std::vector<const void*> host;
      for (T* base : {A, B, C}) {
        for (const auto& [n, c] : count_) {
          for (std::int64_t i = 0; i < c; ++i) host.push_back(base + first_[n] + i * n * n);
        }
      }
      set.arrays = dev_.allocate(host.size() * sizeof(void*));
      dev_.upload(set.arrays->data(), host.data(), host.size() * sizeof(void*));
      auto* arrays = static_cast<const void* const*>(set.arrays->data());
      const auto items = static_cast<std::int64_t>(sizes_.size());
      std::int64_t at = 0;
      for (const auto& [n, c] : count_) {
        GemmGroup<T> g;
        g.m = g.n = g.k = n;
        g.lda = g.ldb = g.ldc = n;
        g.a = reinterpret_cast<const T* const*>(arrays + at);
        g.b = reinterpret_cast<const T* const*>(arrays + items + at);
        g.c = reinterpret_cast<T* const*>(const_cast<void**>(arrays + 2 * items + at));
        g.count = c;
        set.groups.push_back(g);
        at += c;
      }
      sets_.push_back(std::move(set));
    }
    dev_.synchronize();
  }

  void items(Context& ctx, std::int64_t s, const Options& o) const {
    gemm_grouped(ctx, sets_[static_cast<std::size_t>(s)].items, o);
  }
  void groups(Context& ctx, std::int64_t s, const Options& o) const {
    gemm_groups<T>(ctx, sets_[static_cast<std::size_t>(s)].groups, o);
  }
  void loop(Context& ctx, std::int64_t s, const Options& o) const {
    for (const GemmGroup<T>& g : sets_[static_cast<std::size_t>(s)].groups) {
      gemm<T>(ctx, Op::N, Op::N, g.m, g.n, g.k, T(1), g.a, g.lda, g.b, g.ldb, T(0), g.c, g.ldc,
              g.count, o);
    }
  }

  // Poisons the sampled items' C (NaN), runs `call` on set 0 and checks those items against
  // the reference; empty when every one passes.
  std::string check(const std::function<void()>& call, int samples) {
    const Set<T>& set = sets_[0];
    std::vector<std::size_t> picked;
    const std::size_t step = std::max<std::size_t>(1, set.items.size() / samples);
    for (std::size_t i = 0; i < set.items.size(); i += step) picked.push_back(i);
    for (std::size_t i : picked) {
      const GemmItem& it = set.items[i];
      std::vector<T> nan(static_cast<std::size_t>(it.m * it.n),
                         T(std::numeric_limits<double>::quiet_NaN()));
      dev_.upload(it.c, nan.data(), nan.size() * sizeof(T));
    }
    dev_.synchronize();
    call();
    dev_.synchronize();
    for (std::size_t i : picked) {
      const GemmItem& it = set.items[i];
      const auto e = static_cast<std::size_t>(it.m * it.n);
      std::vector<T> a(e), b(e), got(e), zero(e, T(0));
      dev_.download(a.data(), it.a, e * sizeof(T));
      dev_.download(b.data(), it.b, e * sizeof(T));
      dev_.download(got.data(), it.c, e * sizeof(T));
      Problem p;
      p.dtype = scalar_of_v<T>;
      p.m = p.n = p.k = it.m;
      p.batch = 1;
      p.alpha = 1;
      p.beta = 0;
      p.a = {a.data(), nullptr, it.m, 0};
      p.b = {b.data(), nullptr, it.m, 0};
      Problem computed = p, original = p;
      computed.c = {got.data(), nullptr, it.m, 0};
      original.c = {zero.data(), nullptr, it.m, 0};
      const auto r = reference::check_against_reference(computed, original);
      if (!r.ok)
        return "item " + std::to_string(i) + " (n = " + std::to_string(it.m) + "): " + r.message;
    }
    return "";
  }

 private:
  void fill(void* dst, const std::vector<T>& pool, std::size_t shift) {
    // The pool, rotated by `shift`, repeated: neighbouring items hold different values.
    std::vector<T> chunk(pool.size());
    for (std::size_t i = 0; i < pool.size(); ++i) chunk[i] = pool[(i + shift) % pool.size()];
    auto* out = static_cast<T*>(dst);
    for (std::int64_t at = 0; at < elements_; at += static_cast<std::int64_t>(chunk.size())) {
      const auto n = static_cast<std::size_t>(
          std::min<std::int64_t>(static_cast<std::int64_t>(chunk.size()), elements_ - at));
      dev_.upload(out + at, chunk.data(), n * sizeof(T));
    }
  }

  MeasureDevice& dev_;
  std::vector<std::int64_t> sizes_;
  std::map<std::int64_t, std::int64_t> count_, first_;
  std::int64_t elements_ = 0;
  std::vector<Set<T>> sets_;
};

struct Config {
  Scalar scalar;
  const Mix* mix;
  std::int64_t items;
};

template <class T>
void run_config(const Config& cf, Context& ctx, MeasureDevice& dev, const HarnessOptions& base,
                const Limits& lim, std::uint64_t seed, const std::string& vendor, std::FILE* csv,
                std::vector<std::string>& summary) {
  std::mt19937_64 rng(seed);
  std::vector<std::int64_t> sizes;
  for (std::int64_t i = 0; i < cf.items; ++i) sizes.push_back(draw_size(*cf.mix, rng));
  GroupedRun<T> run(dev, sizes);
  const int sets = static_cast<int>(std::clamp<std::int64_t>(
      (3 * dev.cache_bytes() + run.bytes() - 1) / std::max<std::int64_t>(1, run.bytes()), 1, 64));
  run.make_sets(sets, rng);
  const double rate = (cf.scalar == Scalar::f32 ? lim.tflops_f32 : lim.tflops_f64) * 1e12;
  const double roofline_us =
      std::max(static_cast<double>(run.bytes()) / (lim.copy_gbs * 1e9), run.flops() / rate) * 1e6;

  Options pin;
  pin.pin = vendor;
  const Options none;
  std::vector<Arm> arms = {
      {"auto", [&](std::int64_t s) { run.groups(ctx, s, none); }},
      {"vendor-groups", [&](std::int64_t s) { run.groups(ctx, s, pin); }},
      {"vendor-loop", [&](std::int64_t s) { run.loop(ctx, s, pin); }},
      {"auto-per-group", [&](std::int64_t s) { run.loop(ctx, s, none); }},
      {"auto-items", [&](std::int64_t s) { run.items(ctx, s, none); }},
  };
  // An A/B build's patched grouped launch, timed beside auto in the same process (CMake's
  // GEMMROUTE_AB_PATCHES with small.cu patched; docs/decisions.md, "Two builds of a kernel in one
  // process").
  if (detail::Access::state(ctx).backend->has_ab_grouped()) {
    arms.push_back({"auto-ab", [&](std::int64_t s) {
                      struct Switch {  // off again however the call ends
                        Switch() { set_ab_grouped(true); }
                        ~Switch() { set_ab_grouped(false); }
                      } on;
                      run.groups(ctx, s, none);
                    }});
  }

  const std::string what = std::string(to_string(cf.scalar)) + " " + cf.mix->name + " " +
                           std::to_string(cf.items) + " items";
  for (const Arm& arm : arms) {
    const std::string bad = run.check([&] { arm.run(0); }, 64);
    if (!bad.empty())
      throw Error(Errc::internal, "bench", what + ": " + arm.name + " is wrong at " + bad);
  }
  // The host's side of one call of each arm, the device idle before it.
  std::vector<double> host(arms.size());
  for (std::size_t i = 0; i < arms.size(); ++i) {
    std::vector<double> samples;
    for (int r = 0; r < 5; ++r) {
      dev.synchronize();
      const auto t0 = std::chrono::steady_clock::now();
      arms[i].run(r % sets);
      samples.push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
    host[i] = median_of(std::move(samples));
  }
  dev.synchronize();
  HarnessOptions h = base;
  h.sets = sets;
  const auto t = time_arms(arms, h, dev);
  const double t_auto = t[0].stats.median;
  std::string line = what + " (" + std::to_string(run.group_count()) +
                     (run.group_count() == 1 ? " group" : " groups") + "): roofline " +
                     fmt_us(roofline_us);
  for (std::size_t i = 0; i < arms.size(); ++i) {
    const double us = t[i].stats.median;
    std::fprintf(csv, "%s,%s,%lld,%zu,%s,%s,%.2f,%s,%s,%.4f,%.4f\n",
                 std::string(to_string(cf.scalar)).c_str(), cf.mix->name.c_str(),
                 static_cast<long long>(cf.items), run.group_count(), arms[i].name.c_str(),
                 num(us).c_str(), t[i].stats.spread_pct, num(host[i]).c_str(),
                 num(roofline_us).c_str(), roofline_us / us, us / t_auto);
    char buf[160];
    std::snprintf(buf, sizeof buf, " | %s %s (%.1f%% of roofline)", arms[i].name.c_str(),
                  fmt_us(us).c_str(), 100 * roofline_us / us);
    line += buf;
  }
  std::fflush(csv);
  std::printf("%s\n", line.c_str());
  summary.push_back(line);
}

// A comma-separated list of whole numbers in [lo, hi] (`what` names an entry in the error for
// an empty list).
std::vector<std::int64_t> int_list(const std::string& option, const std::string& text,
                                   std::int64_t lo, std::int64_t hi, const std::string& what) {
  std::vector<std::int64_t> out;
  std::stringstream ss(text);
  std::string word;
  while (std::getline(ss, word, ',')) out.push_back(parse_int(option, word, lo, hi));
  if (out.empty()) throw UsageError("--" + option + " '" + text + "': no " + what);
  return out;
}

// --sizes: one mix a size, every item of it.
std::vector<Mix> one_size_mixes(const std::string& text) {
  std::vector<Mix> out;
  for (const std::int64_t n : int_list("sizes", text, 1, 64, "size")) {
    const std::string s = std::to_string(n);
    out.push_back({"n=" + s, "every item " + s + " x " + s + " x " + s, n});
  }
  return out;
}

}  // namespace

int bench_grouped(const Args& args) {
  if (!args.positional().empty()) throw UsageError("unexpected '" + args.positional()[0] + "'");
  for (const char* o : {"shapes", "table", "select", "scalars", "top"}) {
    if (args.get(o)) throw UsageError(std::string("--") + o + " is not used with --grouped");
  }
  const Device device = args.device();
  const std::string out = args.required("out");
  const auto counts =
      int_list("items", args.get_or("items", "10000,100000,1000000"), 1, 10'000'000, "item count");
  const std::optional<std::string> sizes = args.get("sizes");
  const std::vector<Mix> mixes = sizes ? one_size_mixes(*sizes) : target_mixes();
  const Limits lim{args.number("copy-gbs", 4252, 1, 1e6),
                   args.number("tflops-f32", 51.0, 0.001, 1e6),
                   args.number("tflops-f64", 57.7, 0.001, 1e6)};
  const auto seed = static_cast<std::uint64_t>(args.integer("seed", 2026, 0, 1'000'000'000));
  HarnessOptions h;
  h.repetitions = static_cast<int>(args.integer("reps", 11, 7, 1000));
  h.min_sample_us = args.number("min-sample-us", 2000, 1, 1e7);

  Context ctx(device);
  const Backend& backend = *detail::Access::state(ctx).backend;
  const Exec& exec = *detail::Access::state(ctx).exec;
  auto dev = make_measure_device(backend, exec);
  const std::string vendor(backend.last_resort_vendor().spelling());
  // Every output is checked before anything is measured, and written whole or not at all.
  const OutputRules rules{args.flag("force"), {}};
  const std::optional<std::string> plot_dir = args.get("plot");
  if (plot_dir) {
    check_output((std::filesystem::path(*plot_dir) / "grouped.png").string(), "plot",
                 OutputRules{rules.replace, {out}});
  }
  OutputFile csv_file(out, "out", rules);
  std::FILE* csv = csv_file.stream();
  write_csv_preamble(csv, "gemmroute-bench-grouped", backend.fingerprint());
  std::fprintf(csv,
               "# limits copy %.0f GB/s, f32 %.1f TFLOP/s, f64 %.1f TFLOP/s; seed %llu; %d "
               "repetitions, samples >= %.0f us; date %s\n",
               lim.copy_gbs, lim.tflops_f32, lim.tflops_f64, static_cast<unsigned long long>(seed),
               h.repetitions, h.min_sample_us, now_utc().c_str());
  for (const Mix& m : mixes) std::fprintf(csv, "# mix %s: %s\n", m.name.c_str(), m.about.c_str());
  std::fprintf(csv,
               "scalar,mix,items,groups,arm,us_per_call,spread_pct,host_us,roofline_us,"
               "of_roofline,over_auto\n");
  csv_file.flush();
  std::printf(
      "bench --grouped on %s: arms auto (gemm_groups), vendor-groups and vendor-loop (%s), "
      "auto-per-group, auto-items (gemm_grouped)%s; times per call, back to back\n",
      backend.fingerprint().id().c_str(), vendor.c_str(),
      backend.has_ab_grouped() ? ", auto-ab (the A/B build's patched grouped launch)" : "");

  std::vector<Config> configs;
  for (Scalar s : {Scalar::f32, Scalar::f64}) {
    for (const Mix& m : mixes) {
      for (std::int64_t n : counts) configs.push_back({s, &m, n});
    }
  }
  std::vector<std::string> summary;
  Progress progress("configurations", static_cast<int>(configs.size()),
                    static_cast<double>(configs.size()));
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const Config& cf = configs[i];
    progress.update(
        static_cast<int>(i), static_cast<double>(i),
        std::string(to_string(cf.scalar)) + " " + cf.mix->name + " " + std::to_string(cf.items));
    progress.clear();
    const std::uint64_t config_seed = seed + 1000 * i;
    if (cf.scalar == Scalar::f32) {
      run_config<float>(cf, ctx, *dev, h, lim, config_seed, vendor, csv, summary);
    } else {
      run_config<double>(cf, ctx, *dev, h, lim, config_seed, vendor, csv, summary);
    }
    csv_file.flush();
  }
  progress.finish();
  csv_file.commit();
  std::printf("bench --grouped: %zu configurations written to %s\n", configs.size(), out.c_str());
  if (plot_dir) plot("bench --grouped", "plot_grouped.py", out, *plot_dir);
  return 0;
}

}  // namespace gemmroute::cli
