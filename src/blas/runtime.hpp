// What every exported routine of libgemmroute_blas.so shares: the process's one Context, the
// reference BLAS argument checks, each routine's argument positions, and the two error
// channels (xerbla_ and cblas_xerbla).
//
// No C++ exception may leave an exported routine: they are called from C and Fortran.
#pragma once

#include <cstdint>
#include <exception>
#include <optional>
#include <string_view>

#include "gemmroute/context.hpp"
#include "gemmroute/error.hpp"
#include "gemmroute/types.hpp"

// Marks the exported routines; everything else in the library is hidden (and the version
// script gemmroute_blas.map makes sure of it).
#define GEMMROUTE_BLAS_API extern "C" __attribute__((visibility("default")))

namespace gemmroute::blas {

// The process's Context, made on first use (thread-safe) and never destroyed, so BLAS calls
// from atexit handlers and other libraries' destructors still work. Throws what the Context
// constructor throws (a bad GEMMROUTE_TABLE, _ROUTE or _LOG).
Context& context();

// CBLAS's enum values (cblas.h).
constexpr int kRowMajor = 101, kColMajor = 102;
constexpr int kNoTrans = 111, kTrans = 112, kConjTrans = 113;

std::optional<Op> fortran_trans(char c) noexcept;  // 'N', 'T', 'C' in either case
std::optional<Op> cblas_trans(int v) noexcept;     // CblasNoTrans, CblasTrans, CblasConjTrans
std::optional<Order> cblas_layout(int v) noexcept;

// The size arguments of one GEMM.
enum class Arg : std::uint8_t { m, n, k, lda, ldb, ldc };

// Reference ?GEMM's checks once both operations are known good, in its order (m, n, k, lda,
// ldb, ldc), on a column-major call: the first argument that breaks them, if any.
std::optional<Arg> bad_size(Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k,
                            std::int64_t lda, std::int64_t ldb, std::int64_t ldc) noexcept;
// The same rules for a call in either order, naming the caller's argument (a row-major call
// is checked as its column-major swap, C^T = B^T A^T).
std::optional<Arg> bad_size(Order order, Op ta, Op tb, std::int64_t m, std::int64_t n,
                            std::int64_t k, std::int64_t lda, std::int64_t ldb,
                            std::int64_t ldc) noexcept;

// Reference ?GEMM's quick return: nothing to read or write.
template <class T>
bool quick_return(std::int64_t m, std::int64_t n, std::int64_t k, T alpha, T beta) noexcept {
  return m == 0 || n == 0 || ((alpha == T(0) || k == 0) && beta == T(1));
}

// One routine's 1-based argument positions, as its error handler reports them; 0 where the
// routine has no such argument.
struct Positions {
  int layout = 0, transa = 0, transb = 0, m = 0, n = 0, k = 0;
  int a = 0, lda = 0, stride_a = 0, b = 0, ldb = 0, stride_b = 0, c = 0, ldc = 0, stride_c = 0;
  int batch = 0, group_count = 0, group_size = 0;
};

int position_of(const Positions& p, Arg arg) noexcept;
// For an argument as a gemmroute::Error names it: "m", "lda", "a", "stride_c", "items[3].ldb".
int position_of(const Positions& p, std::string_view argument) noexcept;

enum class Api { fortran, cblas };

struct Routine {
  Api api;
  const char* name;  // xerbla_'s SRNAME ("DGEMM ") or cblas_xerbla's ("cblas_dgemm")
  Positions positions;
};

// Calls the program's error handler: xerbla_(name, &info, strlen(name)) for Fortran routines,
// cblas_xerbla(info, name, form, value) for CBLAS ones. Both are looked up in the process's
// global scope at call time, so a handler the program defines itself (the reference test
// programs do) wins over OpenBLAS's. A cblas_xerbla that is only a BLAS library's own (which
// exits the process) is not called: CBLAS errors then go through xerbla_ as OpenBLAS's
// cblas_?gemm reports them ("SGEMM ", the position less one), which prints and returns.
void report(const Routine& routine, int info, const char* form = "", int value = 0) noexcept;

// A gemmroute::Error that names an argument of the routine becomes report(its position).
// Anything else (a pin that cannot run, a bad table or environment, no memory) is printed to
// stderr and aborts: a BLAS caller has no way to learn that C was not written, so carrying on
// would hand it wrong results.
void report_error(const Routine& routine, const Error& e) noexcept;
[[noreturn]] void fatal(const Routine& routine, const char* what) noexcept;

// Runs body, turning every exception into report_error or fatal.
template <class Body>
void guarded(const Routine& routine, Body&& body) noexcept {
  try {
    body();
  } catch (const Error& e) {
    report_error(routine, e);
  } catch (const std::exception& e) {
    fatal(routine, e.what());
  } catch (...) {
    fatal(routine, "unknown exception");
  }
}

}  // namespace gemmroute::blas
