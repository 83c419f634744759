#include "measure/operands.hpp"

#include <algorithm>
#include <cmath>
#include <complex>

#include "gemmroute/error.hpp"

namespace gemmroute::measure {
namespace {

struct Dims {
  std::int64_t rows, cols, ld;
};

Dims dims(const Key& k, char which) {
  const std::int64_t pad = k.layout == Layout::packed ? 0 : 1;
  std::int64_t rows = 0, cols = 0;
  if (which == 'a') {
    rows = k.ta == Op::N ? k.m : k.k;
    cols = k.ta == Op::N ? k.k : k.m;
  } else if (which == 'b') {
    rows = k.tb == Op::N ? k.k : k.n;
    cols = k.tb == Op::N ? k.n : k.k;
  } else {
    rows = k.m;
    cols = k.n;
  }
  return {rows, cols, std::max<std::int64_t>(rows, 1) + pad};
}

// A and B hold the input type, C the output type.
std::size_t element_bytes(const Key& k, char which) {
  return size_of(which == 'c' ? k.dtype.out : k.dtype.in);
}

// ld * cols * batch elements, rounded up to 64 bytes; nullopt when that overflows 64 bits.
std::optional<std::int64_t> operand_bytes(const Key& k, char which) {
  Dims d = dims(k, which);
  std::int64_t v = 0;
  if (__builtin_mul_overflow(d.ld, std::max<std::int64_t>(d.cols, 1), &v) ||
      __builtin_mul_overflow(v, k.batch, &v) ||
      __builtin_mul_overflow(v, static_cast<std::int64_t>(element_bytes(k, which)), &v) ||
      __builtin_add_overflow(v, 63, &v)) {
    return std::nullopt;
  }
  return v / 64 * 64;
}

std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Uniform in [-1, 1) with 53 random bits.
double unit(std::uint64_t& s) {
  return static_cast<double>(splitmix(s) >> 11) * 0x1.0p-52 - 1.0;
}

}  // namespace

void fill_random(Scalar dtype, void* data, std::int64_t n, std::uint64_t seed) {
  std::uint64_t s = seed;
  switch (dtype) {
    case Scalar::f32: {
      auto* p = static_cast<float*>(data);
      for (std::int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(unit(s));
      break;
    }
    case Scalar::f64: {
      auto* p = static_cast<double*>(data);
      for (std::int64_t i = 0; i < n; ++i) p[i] = unit(s);
      break;
    }
    case Scalar::c32: {
      auto* p = static_cast<float*>(data);
      for (std::int64_t i = 0; i < 2 * n; ++i) p[i] = static_cast<float>(unit(s));
      break;
    }
    case Scalar::c64: {
      auto* p = static_cast<double*>(data);
      for (std::int64_t i = 0; i < 2 * n; ++i) p[i] = unit(s);
      break;
    }
    case Scalar::bf16: {  // 8 random mantissa bits: values of bf16, rounded from the draw
      auto* p = static_cast<bfloat16*>(data);
      for (std::int64_t i = 0; i < n; ++i) p[i] = to_bfloat16(static_cast<float>(unit(s)));
      break;
    }
    case Scalar::f16: {
      auto* p = static_cast<float16*>(data);
      for (std::int64_t i = 0; i < n; ++i) p[i] = to_float16(static_cast<float>(unit(s)));
      break;
    }
  }
}

std::optional<std::int64_t> checked_set_bytes(const Key& key) {
  std::int64_t total = 0;
  for (char which : {'a', 'b', 'c'}) {
    auto bytes = operand_bytes(key, which);
    if (!bytes || __builtin_add_overflow(total, *bytes, &total)) return std::nullopt;
  }
  return total;
}

std::int64_t set_bytes(const Key& key) {
  auto bytes = checked_set_bytes(key);
  if (!bytes) {
    throw Error(Errc::invalid_argument, "key",
                "the operands of " + to_string(key) + " need more than 2^63 bytes");
  }
  return *bytes;
}

std::int64_t sets_for(const Key& key, std::int64_t cache_bytes, const OperandOptions& o) {
  const double want = o.rotation_factor * static_cast<double>(cache_bytes);
  const auto n = static_cast<std::int64_t>(std::ceil(want / static_cast<double>(set_bytes(key))));
  return std::max(n, o.min_sets);
}

Problem problem_at(const Key& k, char* base) {
  Problem p;
  p.dtype = k.dtype;
  p.ta = k.ta;
  p.tb = k.tb;
  p.m = k.m;
  p.n = k.n;
  p.k = k.k;
  p.batch = k.batch;
  char* at = base;
  auto operand = [&](char which) {
    Dims d = dims(k, which);
    Operand o{at, nullptr, d.ld, d.ld * d.cols};
    at += *operand_bytes(k, which);  // problem_at follows set_bytes, which checked it
    return o;
  };
  p.a = operand('a');
  p.b = operand('b');
  p.c = operand('c');
  return p;
}

Problem probe_at(const Key& key) {
  const std::int64_t bytes = set_bytes(key);
  const std::int64_t low = bytes & -bytes;
  Problem p = problem_at(key, reinterpret_cast<char*>(std::min<std::int64_t>(low, 256)));
  p.alpha = 1.0;
  p.beta = 0.5;
  return p;
}

Buffer& Arena::get(MeasureDevice& device, std::size_t bytes) {
  if (!buffer_ || buffer_->size() < bytes) {
    buffer_.reset();
    buffer_ = device.allocate(bytes);
  }
  return *buffer_;
}

OperandSets::OperandSets(const Key& key, MeasureDevice& device, const OperandOptions& o,
                         Arena* arena)
    : key_(key), set_bytes_(set_bytes(key)) {
  const std::int64_t sets = sets_for(key, device.cache_bytes(), o);
  std::int64_t total_checked = 0;
  if (__builtin_mul_overflow(set_bytes_, sets, &total_checked)) {
    throw Error(Errc::invalid_argument, "key",
                "the operand sets of " + to_string(key) + " need more than 2^63 bytes");
  }
  const auto total_bytes = static_cast<std::size_t>(total_checked);
  if (!arena) memory_ = device.allocate(total_bytes);
  char* base = static_cast<char*>(arena ? arena->get(device, total_bytes).data() : memory_->data());

  // Fill through a host staging block so devices with their own memory work the same way. One
  // random block (up to 2 MiB plus one set, so set 0 is wholly random) is drawn and copied over
  // the rest: later sets hold the same values at other addresses, which is all rotation needs.
  const std::int64_t total = set_bytes_ * sets;
  // Filled as the input type throughout: where C is f32 (bf16:f32:f32, f16:f32:f32) each of its
  // words holds two input values' bits, a finite value of magnitude below 2.
  const std::int64_t elem = static_cast<std::int64_t>(size_of(key.dtype.in));
  const std::int64_t block =
      std::min<std::int64_t>(total, (std::int64_t{2} << 20) + set_bytes_) / elem * elem;
  std::vector<char> host(static_cast<std::size_t>(block));
  const std::uint64_t seed = o.seed ^ (static_cast<std::uint64_t>(key.m) * 0x100000001b3ull) ^
                             (static_cast<std::uint64_t>(key.n) << 20) ^
                             (static_cast<std::uint64_t>(key.k) << 40) ^
                             static_cast<std::uint64_t>(key.batch);
  fill_random(key.dtype.in, host.data(), block / elem, seed);
  for (std::int64_t off = 0; off < total; off += block) {
    const std::int64_t n = std::min(block, total - off);
    device.upload(base + off, host.data(), static_cast<std::size_t>(n));
  }

  // Random nonzero scalars: |alpha| in [0.5, 1.5); |beta| < 0.75 so C stays bounded however
  // many times the timing loop updates it.
  // Each is exactly representable in the working precision, so every candidate sees the same
  // values (and validate() takes them: a scalar must be a value of the problem's type). The
  // rounding is done on each double as it is drawn: GCC 12 at -O2 with AddressSanitizer drops
  // a double -> float -> double round trip of a std::complex<double>'s parts.
  std::uint64_t s = seed * 31 + 7;
  const Compute compute = key.dtype.compute;
  const bool single =
      compute == Compute::f32 || compute == Compute::c32 || compute == Compute::tf32;
  auto pick = [&](double lo, double hi) {
    double u = unit(s);  // [-1, 1)
    double mag = lo + (hi - lo) * std::fabs(u);
    const double v = u < 0 ? -mag : mag;
    return single ? static_cast<double>(static_cast<float>(v)) : v;
  };
  std::complex<double> alpha(pick(0.5, 1.5), 0.0), beta(pick(0.25, 0.75), 0.0);
  if (is_complex(key.dtype)) {
    alpha = {pick(0.35, 1.0), pick(0.35, 1.0)};
    beta = {pick(0.2, 0.5), pick(0.2, 0.5)};
  }
  if (o.unit_scalars) {
    alpha = 1.0;
    beta = 1.0;
  }
  if (o.zero_beta) beta = 0.0;
  std::vector<Problem>& problems = arena ? arena->problems() : own_problems_;
  problems.clear();  // an arena's list keeps its pages
  problems.reserve(static_cast<std::size_t>(sets));
  for (std::int64_t i = 0; i < sets; ++i) {
    Problem p = problem_at(key, base + i * set_bytes_);
    p.alpha = alpha;
    p.beta = beta;
    validate(p);
    if (!(key_of(p) == key)) {
      throw Error(Errc::invalid_argument, "key",
                  "operands for " + to_string(key) + " classify as " + to_string(key_of(p)));
    }
    problems.push_back(p);
  }
  problems_ = problems.data();
  count_ = sets;
}

}  // namespace gemmroute::measure
