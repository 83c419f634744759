// The oracle every backend and the measuring harness check against: every scalar and form in
// long double (64-bit mantissa, so also for f64), with the per-element bound
// c * eps * (|alpha| sum |a||b| + |beta| |c0|), c = 16, of docs/architecture.md ("Numerics").
// Host memory only; not a table candidate. Depends on core alone.
#pragma once

#include <cstdint>
#include <string>

#include "core/problem.hpp"

namespace gemmroute::reference {

struct Check {
  bool ok = true;
  double worst = 0;  // max over elements of |C - Cref| / bound (0 where exact and equal)
  std::int64_t item = -1, row = -1, col = -1;  // where worst was found
  std::string message;                         // empty when ok
};

// Compares the C that `computed` points to against alpha * op(A) op(B) + beta * C0, where C0 is
// what `original` points to as C (a copy taken before the call). Both problems describe the
// same shapes, A and B. Bound per element: c * eps * (|alpha| sum |a||b| + |beta| |c0|), with
// c = 16; NaN never passes; where the bound is 0 the result must be exact.
Check check_against_reference(const Problem& computed, const Problem& original,
                              double c_factor = 16.0);

// Writes the reference result, rounded to the working precision, into original's C.
void reference_gemm(const Problem& problem);

}  // namespace gemmroute::reference
