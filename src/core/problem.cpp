// Validation, folding and classification of a Problem.
#include "core/problem.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "gemmroute/error.hpp"

namespace gemmroute {
namespace {

// Row-major calls are swapped before validation; errors still name the caller's arguments.
std::string caller_name(std::string_view name, bool swapped) {
  if (!swapped) return std::string(name);
  static constexpr std::pair<std::string_view, std::string_view> kSwap[] = {
      {"ta", "tb"}, {"m", "n"}, {"a", "b"}, {"lda", "ldb"}, {"stride_a", "stride_b"}};
  for (auto [x, y] : kSwap) {
    if (name == x) return std::string(y);
    if (name == y) return std::string(x);
  }
  return std::string(name);
}

[[noreturn]] void fail(std::string_view name, bool swapped, const std::string& why) {
  std::string arg = caller_name(name, swapped);
  throw Error(Errc::invalid_argument, arg, "argument '" + arg + "': " + why);
}

std::string num(std::int64_t v) {
  return std::to_string(v);
}

// Highest element offset touched by an operand plus one, or nullopt on overflow.
bool extent_fits(std::int64_t ld, std::int64_t cols, std::int64_t stride, std::int64_t batch) {
  std::int64_t span = 0, last = 0, total = 0;
  if (__builtin_mul_overflow(ld, std::max<std::int64_t>(cols, 1), &span)) return false;
  if (__builtin_mul_overflow(stride, std::max<std::int64_t>(batch - 1, 0), &last)) return false;
  return !__builtin_add_overflow(span, last, &total);
}

bool valid_op(Op op) {
  return op == Op::N || op == Op::T || op == Op::C;
}

// The common case, in a few tests and no allocation: a strided batch whose sizes, leading
// dimensions and strides all lie in [0, 2^31) (so none is negative and no extent can overflow
// 64 bits), leading dimensions large enough, C's items apart and the pointers that are read
// set. Whatever it does not clear goes through validate_in_order, which names the first bad
// argument.
bool clearly_valid(const Problem& p) noexcept {
  if (!valid_op(p.ta) || !valid_op(p.tb) || p.pointer_array()) return false;
  const auto bits = static_cast<std::uint64_t>(p.m | p.n | p.k | p.batch | p.a.ld | p.b.ld |
                                               p.c.ld | p.a.stride | p.b.stride | p.c.stride);
  if (bits >= (std::uint64_t{1} << 31)) return false;
  if (p.a.ld < std::max<std::int64_t>(1, p.rows_a()) ||
      p.b.ld < std::max<std::int64_t>(1, p.rows_b()) || p.c.ld < std::max<std::int64_t>(1, p.m)) {
    return false;
  }
  if (p.m == 0 || p.n == 0 || p.batch == 0) return true;
  if (p.c.stride == 0 && p.batch > 1) return false;
  const bool reads_ab = p.k > 0 && p.alpha != std::complex<double>(0.0, 0.0);
  return p.c.base && (!reads_ab || (p.a.base && p.b.base));
}

// Every check in the documented order; the first that fails throws, naming its argument.
[[gnu::noinline]] void validate_in_order(Problem& p, bool swapped, bool read_pointer_arrays) {
  if (!valid_op(p.ta)) fail("ta", swapped, "not one of N, T, C");
  if (!valid_op(p.tb)) fail("tb", swapped, "not one of N, T, C");
  if (p.m < 0) fail("m", swapped, "negative (" + num(p.m) + ")");
  if (p.n < 0) fail("n", swapped, "negative (" + num(p.n) + ")");
  if (p.k < 0) fail("k", swapped, "negative (" + num(p.k) + ")");
  if (p.batch < 0) fail("batch", swapped, "negative (" + num(p.batch) + ")");
  p.ta = fold_op(p.dtype, p.ta);
  p.tb = fold_op(p.dtype, p.tb);

  auto check_ld = [&](std::string_view name, std::int64_t ld, std::int64_t rows) {
    std::int64_t need = std::max<std::int64_t>(1, rows);
    if (ld < need) fail(name, swapped, num(ld) + " < max(1, rows) = " + num(need));
  };
  check_ld("lda", p.a.ld, p.rows_a());
  check_ld("ldb", p.b.ld, p.rows_b());
  check_ld("ldc", p.c.ld, p.m);

  const bool strided = !p.pointer_array();
  if (strided) {
    if (p.a.stride < 0) fail("stride_a", swapped, "negative (" + num(p.a.stride) + ")");
    if (p.b.stride < 0) fail("stride_b", swapped, "negative (" + num(p.b.stride) + ")");
    if (p.c.stride < 0) fail("stride_c", swapped, "negative (" + num(p.c.stride) + ")");
    if (p.c.stride == 0 && p.batch > 1 && p.m > 0 && p.n > 0) {
      fail("stride_c", swapped, "0 with batch > 1: the items of C would overlap");
    }
    if (!extent_fits(p.a.ld, p.cols_a(), p.a.stride, p.batch)) {
      fail("stride_a", swapped, "the batch's extent of A overflows 64 bits");
    }
    if (!extent_fits(p.b.ld, p.cols_b(), p.b.stride, p.batch)) {
      fail("stride_b", swapped, "the batch's extent of B overflows 64 bits");
    }
    if (!extent_fits(p.c.ld, p.n, p.c.stride, p.batch)) {
      fail("stride_c", swapped, "the batch's extent of C overflows 64 bits");
    }
  }

  if (p.m == 0 || p.n == 0 || p.batch == 0) return;  // nothing is read or written
  const bool reads_ab = p.k > 0 && p.alpha != std::complex<double>(0.0, 0.0);
  auto check_ptr = [&](std::string_view name, const Operand& op, bool needed) {
    if (!needed) return;
    if (strided) {
      if (op.base == nullptr) fail(name, swapped, "null pointer");
      return;
    }
    if (op.array == nullptr) fail(name, swapped, "null pointer array");
    if (!read_pointer_arrays) return;
    for (std::int64_t i = 0; i < p.batch; ++i) {
      if (op.array[i] == nullptr) {
        fail(name, swapped, "null pointer at item " + num(i));
      }
    }
  };
  check_ptr("a", p.a, reads_ab);
  check_ptr("b", p.b, reads_ab);
  check_ptr("c", p.c, true);
}

}  // namespace

void validate(Problem& p, bool swapped, bool read_pointer_arrays) {
  if (!clearly_valid(p)) return validate_in_order(p, swapped, read_pointer_arrays);
  // Written only when folding changes them: the caller reads the scalar and the forms back at
  // once, and a wider load over a byte just stored waits for the store (tens of cycles).
  if (fold_op(p.dtype, p.ta) != p.ta) p.ta = Op::T;
  if (fold_op(p.dtype, p.tb) != p.tb) p.tb = Op::T;
}

Layout classify(const Problem& p) noexcept {
  if (p.pointer_array()) return Layout::strided;
  // Each operand's differences from packed, or-ed together: one branch in all.
  auto off = [&](const Operand& op, std::int64_t rows, std::int64_t cols) {
    const std::int64_t stride = p.batch > 1 ? op.stride ^ (rows * cols) : 0;
    return (op.ld ^ std::max<std::int64_t>(rows, 1)) | stride |
           static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(op.base) % 16);
  };
  const std::int64_t any =
      off(p.a, p.rows_a(), p.cols_a()) | off(p.b, p.rows_b(), p.cols_b()) | off(p.c, p.m, p.n);
  return any == 0 ? Layout::packed : Layout::strided;
}

std::string to_string(const Key& key) {
  std::string s;
  s += to_string(key.dtype);
  s += ' ';
  s += to_string(key.ta);
  s += ' ';
  s += to_string(key.tb);
  s += ' ';
  s += to_string(key.layout);
  for (std::int64_t v : {key.m, key.n, key.k, key.batch}) {
    s += ' ';
    s += std::to_string(v);
  }
  return s;
}

}  // namespace gemmroute
