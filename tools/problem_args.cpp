#include "problem_args.hpp"

namespace gemmroute::cli {

Problem placeholder_problem(Scalar dtype, Op ta, Op tb, std::int64_t m, std::int64_t n,
                            std::int64_t k, std::int64_t batch, Layout layout) {
  Problem p;
  p.dtype = dtype;
  p.ta = ta;
  p.tb = tb;
  p.m = m;
  p.n = n;
  p.k = k;
  p.batch = batch;
  p.alpha = 1.0;
  p.beta = 0.0;
  // Never dereferenced: selection reads only sizes, strides and the bases' alignment.
  alignas(64) static const char kPlaceholder[64] = {};
  const std::int64_t pad = layout == Layout::packed ? 0 : 1;
  auto operand = [&](std::int64_t rows, std::int64_t cols) {
    std::int64_t ld = std::max<std::int64_t>(rows, 1) + pad;
    return Operand{kPlaceholder, nullptr, ld, ld * cols};
  };
  p.a = operand(p.rows_a(), p.cols_a());
  p.b = operand(p.rows_b(), p.cols_b());
  p.c = operand(m, n);
  return p;
}

Problem problem_from_args(const Args& args) {
  auto dtype = parse_scalar(args.get_or("dtype", "f32"));
  if (!dtype) throw UsageError("--dtype: expected f32, f64, c32 or c64");
  auto ta = parse_op(args.get_or("ta", "N"));
  auto tb = parse_op(args.get_or("tb", "N"));
  if (!ta) throw UsageError("--ta: expected N, T or C");
  if (!tb) throw UsageError("--tb: expected N, T or C");
  auto layout = parse_layout(args.get_or("layout", "packed"));
  if (!layout) throw UsageError("--layout: expected packed or strided");
  // Sizes as a table key holds them: 1 to 2^62.
  constexpr std::int64_t kMax = std::int64_t{1} << 62;
  for (const char* size : {"m", "n", "k"}) {
    if (!args.get(size)) throw UsageError(std::string("--") + size + " is required");
  }
  const std::int64_t m = args.integer("m", 0, 1, kMax), n = args.integer("n", 0, 1, kMax),
                     k = args.integer("k", 0, 1, kMax), batch = args.integer("batch", 1, 1, kMax);
  Problem p = placeholder_problem(*dtype, fold_op(*dtype, *ta), fold_op(*dtype, *tb), m, n, k,
                                  batch, *layout);
  return p;
}

}  // namespace gemmroute::cli
