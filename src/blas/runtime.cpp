// The shared Context, the reference checks and the error channels of the drop-in BLAS.
#include "blas/runtime.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

namespace gemmroute::blas {

Context& context() {
  // Deliberately leaked: see the header. A function-local static is initialised once even
  // when the first calls race, and a constructor that throws is retried by the next call.
  static Context* const ctx = new Context();
  return *ctx;
}

std::optional<Op> fortran_trans(char c) noexcept {
  switch (std::toupper(static_cast<unsigned char>(c))) {
    case 'N':
      return Op::N;
    case 'T':
      return Op::T;
    case 'C':
      return Op::C;
    default:
      return std::nullopt;
  }
}

std::optional<Op> cblas_trans(int v) noexcept {
  switch (v) {
    case kNoTrans:
      return Op::N;
    case kTrans:
      return Op::T;
    case kConjTrans:
      return Op::C;
    default:
      return std::nullopt;
  }
}

std::optional<Order> cblas_layout(int v) noexcept {
  if (v == kColMajor) return Order::col_major;
  if (v == kRowMajor) return Order::row_major;
  return std::nullopt;
}

std::optional<Arg> bad_size(Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k,
                            std::int64_t lda, std::int64_t ldb, std::int64_t ldc) noexcept {
  const std::int64_t rows_a = ta == Op::N ? m : k;
  const std::int64_t rows_b = tb == Op::N ? k : n;
  if (m < 0) return Arg::m;
  if (n < 0) return Arg::n;
  if (k < 0) return Arg::k;
  if (lda < std::max<std::int64_t>(1, rows_a)) return Arg::lda;
  if (ldb < std::max<std::int64_t>(1, rows_b)) return Arg::ldb;
  if (ldc < std::max<std::int64_t>(1, m)) return Arg::ldc;
  return std::nullopt;
}

std::optional<Arg> bad_size(Order order, Op ta, Op tb, std::int64_t m, std::int64_t n,
                            std::int64_t k, std::int64_t lda, std::int64_t ldb,
                            std::int64_t ldc) noexcept {
  if (order == Order::col_major) return bad_size(ta, tb, m, n, k, lda, ldb, ldc);
  std::optional<Arg> bad = bad_size(tb, ta, n, m, k, ldb, lda, ldc);
  if (!bad) return bad;
  switch (*bad) {
    case Arg::m:
      return Arg::n;
    case Arg::n:
      return Arg::m;
    case Arg::lda:
      return Arg::ldb;
    case Arg::ldb:
      return Arg::lda;
    default:
      return bad;
  }
}

int position_of(const Positions& p, Arg arg) noexcept {
  switch (arg) {
    case Arg::m:
      return p.m;
    case Arg::n:
      return p.n;
    case Arg::k:
      return p.k;
    case Arg::lda:
      return p.lda;
    case Arg::ldb:
      return p.ldb;
    case Arg::ldc:
      return p.ldc;
  }
  return 0;
}

int position_of(const Positions& p, std::string_view argument) noexcept {
  // A grouped call's errors name the item: "items[3].ldb".
  if (argument.starts_with("items[")) {
    std::size_t dot = argument.find("].");
    if (dot != std::string_view::npos) argument.remove_prefix(dot + 2);
  }
  const std::pair<std::string_view, int> names[] = {{"ta", p.transa},
                                                    {"tb", p.transb},
                                                    {"m", p.m},
                                                    {"n", p.n},
                                                    {"k", p.k},
                                                    {"a", p.a},
                                                    {"lda", p.lda},
                                                    {"stride_a", p.stride_a},
                                                    {"b", p.b},
                                                    {"ldb", p.ldb},
                                                    {"stride_b", p.stride_b},
                                                    {"c", p.c},
                                                    {"ldc", p.ldc},
                                                    {"stride_c", p.stride_c},
                                                    {"batch", p.batch}};
  for (auto [name, pos] : names) {
    if (name == argument) return pos;
  }
  return 0;
}

namespace {

// Reference XERBLA is CHARACTER*(*): gfortran passes the length after the arguments.
void fortran_xerbla(const char* name, int info) noexcept {
  using Xerbla = void (*)(const char*, const int*, std::size_t);
  auto handler = reinterpret_cast<Xerbla>(dlsym(RTLD_DEFAULT, "xerbla_"));
  if (handler) {
    handler(name, &info, std::strlen(name));
  } else {
    std::fprintf(stderr, " ** On entry to %s parameter number %2d had an illegal value\n", name,
                 info);
  }
}

// Whether a cblas_xerbla is a BLAS library's own (the object that defines it defines
// cblas_sgemm too) rather than one the program installed. OpenBLAS's, like reference CBLAS's,
// prints and exits the process; OpenBLAS's cblas_?gemm never calls it.
bool library_default(void* handler) noexcept {
  Dl_info where{};
  if (!dladdr(handler, &where) || !where.dli_fname) return false;
  void* object = dlopen(where.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (!object) return false;
  void* gemm = dlsym(object, "cblas_sgemm");
  Dl_info gemm_where{};
  const bool same = gemm && dladdr(gemm, &gemm_where) && gemm_where.dli_fbase == where.dli_fbase;
  dlclose(object);
  return same;
}

// "cblas_sgemm" -> "SGEMM ", "cblas_dgemm_batch" -> "DGEMM_BATCH": the name OpenBLAS's
// cblas_?gemm reports through xerbla_ (reference BLAS names are at least six characters).
std::string fortran_name(std::string_view cblas_name) {
  if (cblas_name.starts_with("cblas_")) cblas_name.remove_prefix(6);
  std::string name;
  for (char c : cblas_name) name += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (name.size() < 6) name.resize(6, ' ');
  return name;
}

}  // namespace

void report(const Routine& routine, int info, const char* form, int value) noexcept {
  if (routine.api == Api::fortran) {
    fortran_xerbla(routine.name, info);
    return;
  }
  using CblasXerbla = void (*)(int, const char*, const char*, ...);
  auto handler = reinterpret_cast<CblasXerbla>(dlsym(RTLD_DEFAULT, "cblas_xerbla"));
  if (handler && !library_default(reinterpret_cast<void*>(handler))) {
    handler(info, routine.name, form, value);
    return;
  }
  // No handler of the program's own: what the BLAS we stand in for does. OpenBLAS's cblas_?gemm
  // reports through xerbla_ with its Fortran name and position (ours less the layout) and
  // returns, so a program that preloads us behaves as it did without.
  try {
    fortran_xerbla(fortran_name(routine.name).c_str(), info - 1);
  } catch (...) {
    std::fprintf(stderr, "Parameter %d to routine %s was incorrect\n", info, routine.name);
  }
}

void report_error(const Routine& routine, const Error& e) noexcept {
  if (e.code() == Errc::invalid_argument) {
    if (int pos = position_of(routine.positions, e.argument()); pos > 0) {
      report(routine, pos);
      return;
    }
  }
  fatal(routine, e.what());
}

void fatal(const Routine& routine, const char* what) noexcept {
  std::string_view name = routine.name;
  while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  std::fprintf(stderr, "gemmroute: %.*s: %s\n", static_cast<int>(name.size()), name.data(), what);
  std::abort();
}

}  // namespace gemmroute::blas
