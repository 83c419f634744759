// A problem described on the command line (--dtype --ta --tb --m --n --k --batch --layout),
// with placeholder operands: enough for selection, never launched.
#pragma once

#include "args.hpp"
#include "core/problem.hpp"

namespace gemmroute::cli {

// Options this takes: dtype ta tb m n k batch layout.
Problem problem_from_args(const Args& args);
// The same shape with placeholder pointers: ld == rows for packed, rows + 1 for strided.
Problem placeholder_problem(DType dtype, Op ta, Op tb, std::int64_t m, std::int64_t n,
                            std::int64_t k, std::int64_t batch, Layout layout);

}  // namespace gemmroute::cli
