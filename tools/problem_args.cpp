#include "problem_args.hpp"

#include <array>

namespace gemmroute::cli {

Problem placeholder_problem(DType dtype, Op ta, Op tb, std::int64_t m, std::int64_t n,
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
  for (const char* size : {"m", "n", "k"}) {
    if (!args.get(size)) throw UsageError(std::string("--") + size + " is required");
  }
  // The key's fields, in its grammar (core/key.hpp); a real scalar's C folds to T.
  const std::string values[] = {args.get_or("dtype", "f32"),
                                args.get_or("ta", "N"),
                                args.get_or("tb", "N"),
                                args.get_or("layout", "packed"),
                                *args.get("m"),
                                *args.get("n"),
                                *args.get("k"),
                                args.get_or("batch", "1")};
  std::array<Field, 8> fields;
  for (std::size_t i = 0; i < fields.size(); ++i) fields[i] = {values[i], 0};
  KeyError why;
  auto key = parse_key(fields, RealC::fold, &why);
  if (!key) throw UsageError("--" + why.field + ": " + why.problem);
  return placeholder_problem(key->dtype, key->ta, key->tb, key->m, key->n, key->k, key->batch,
                             key->layout);
}

}  // namespace gemmroute::cli
