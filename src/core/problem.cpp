// Validation, folding and classification of a Problem.
#include "core/problem.hpp"

#include <algorithm>
#include <cmath>
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

// Whether an operand's extent, ld * cols for one item plus stride * (batch - 1) for the rest,
// fits 64 bits in bytes (elements of `elem` bytes); with batch <= 1 the stride is not used.
bool extent_fits(std::int64_t ld, std::int64_t cols, std::int64_t stride, std::int64_t batch,
                 std::int64_t elem) {
  std::int64_t span = 0, last = 0, total = 0, bytes = 0;
  if (__builtin_mul_overflow(ld, std::max<std::int64_t>(cols, 1), &span)) return false;
  if (__builtin_mul_overflow(stride, std::max<std::int64_t>(batch - 1, 0), &last)) return false;
  if (__builtin_add_overflow(span, last, &total)) return false;
  return !__builtin_mul_overflow(total, elem, &bytes);
}

// Whether a scalar argument (held as complex<double>) is a value of the problem's compute
// type: real for real types, and a float for f32, c32 and TF32. Anything else would run as
// another value.
bool holds_value(DType dtype, std::complex<double> v) {
  auto is_float = [](double x) {
    return std::isnan(x) || static_cast<double>(static_cast<float>(x)) == x;
  };
  if (!is_complex(dtype) && v.imag() != 0.0) return false;
  const Compute c = dtype.compute;
  if (c == Compute::f32 || c == Compute::c32 || c == Compute::tf32) {
    return is_float(v.real()) && is_float(v.imag());
  }
  return true;
}

bool valid_op(Op op) {
  return op == Op::N || op == Op::T || op == Op::C;
}

// The common case, in a few tests and no allocation: a strided batch of a valid scalar with
// alpha and beta values of it, whose sizes, leading dimensions and strides all lie in [0, 2^28)
// (so none is negative and no extent can overflow 64 bits in bytes: ld * cols + stride *
// (batch - 1) < 2^57 elements of at most 16 bytes), leading dimensions large enough, C's items
// apart and the pointers that are read set. Whatever it does not clear goes through
// validate_in_order, which names the first bad argument.
bool clearly_valid(const Problem& p) noexcept {
  if (!is_supported(p.dtype) || !valid_op(p.ta) || !valid_op(p.tb) || p.pointer_array()) {
    return false;
  }
  const auto bits = static_cast<std::uint64_t>(p.m | p.n | p.k | p.batch | p.a.ld | p.b.ld |
                                               p.c.ld | p.a.stride | p.b.stride | p.c.stride);
  if (bits >= (std::uint64_t{1} << 28)) return false;
  if (!holds_value(p.dtype, p.alpha) || !holds_value(p.dtype, p.beta)) return false;
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
  if (!is_supported(p.dtype)) {
    const DType d = p.dtype;
    fail("dtype", swapped,
         "not a supported combination of input, output and compute types (" +
             num(static_cast<int>(d.in)) + ":" + num(static_cast<int>(d.out)) + ":" +
             num(static_cast<int>(d.compute)) + "; supported: " + std::string(dtype_choices()) +
             ")");
  }
  if (!valid_op(p.ta)) fail("ta", swapped, "not one of N, T, C");
  if (!valid_op(p.tb)) fail("tb", swapped, "not one of N, T, C");
  if (p.m < 0) fail("m", swapped, "negative (" + num(p.m) + ")");
  if (p.n < 0) fail("n", swapped, "negative (" + num(p.n) + ")");
  if (p.k < 0) fail("k", swapped, "negative (" + num(p.k) + ")");
  if (p.batch < 0) fail("batch", swapped, "negative (" + num(p.batch) + ")");
  if (!holds_value(p.dtype, p.alpha))
    fail("alpha", swapped, "not a value of " + std::string(to_string(p.dtype.compute)));
  if (!holds_value(p.dtype, p.beta))
    fail("beta", swapped, "not a value of " + std::string(to_string(p.dtype.compute)));
  p.ta = fold_op(p.dtype, p.ta);
  p.tb = fold_op(p.dtype, p.tb);

  auto check_ld = [&](std::string_view name, std::int64_t ld, std::int64_t rows) {
    std::int64_t need = std::max<std::int64_t>(1, rows);
    if (ld < need) fail(name, swapped, num(ld) + " < max(1, rows) = " + num(need));
  };
  check_ld("lda", p.a.ld, p.rows_a());
  check_ld("ldb", p.b.ld, p.rows_b());
  check_ld("ldc", p.c.ld, p.m);

  // Every operand's extent fits 64 bits in bytes: per item (named by its ld), then over the
  // batch (named by its stride).
  const bool strided = !p.pointer_array();
  const auto elem_in = static_cast<std::int64_t>(size_of(p.dtype.in));
  const auto elem_out = static_cast<std::int64_t>(size_of(p.dtype.out));
  struct Extent {
    std::string_view ld, stride;
    const Operand& op;
    std::int64_t cols;
    const char* which;
    std::int64_t elem;
  };
  const Extent extents[] = {{"lda", "stride_a", p.a, p.cols_a(), "A", elem_in},
                            {"ldb", "stride_b", p.b, p.cols_b(), "B", elem_in},
                            {"ldc", "stride_c", p.c, p.n, "C", elem_out}};
  for (const Extent& e : extents) {
    if (!extent_fits(e.op.ld, e.cols, 0, 1, e.elem)) {
      fail(e.ld, swapped, std::string("an item of ") + e.which + " overflows 64 bits in bytes");
    }
  }
  if (strided) {
    if (p.a.stride < 0) fail("stride_a", swapped, "negative (" + num(p.a.stride) + ")");
    if (p.b.stride < 0) fail("stride_b", swapped, "negative (" + num(p.b.stride) + ")");
    if (p.c.stride < 0) fail("stride_c", swapped, "negative (" + num(p.c.stride) + ")");
    if (p.c.stride == 0 && p.batch > 1 && p.m > 0 && p.n > 0) {
      fail("stride_c", swapped, "0 with batch > 1: the items of C would overlap");
    }
    for (const Extent& e : extents) {
      if (!extent_fits(e.op.ld, e.cols, e.op.stride, p.batch, e.elem)) {
        fail(e.stride, swapped,
             std::string("the batch's extent of ") + e.which + " overflows 64 bits in bytes");
      }
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

}  // namespace gemmroute
