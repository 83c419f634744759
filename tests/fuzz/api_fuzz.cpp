// libFuzzer target for the public API: random calls of gemm (strided and pointer arrays, both
// orders), gemm_grouped and gemm_groups, with enums valid and not, sizes, leading dimensions and
// strides (negative, huge, overflowing), special scalars (NaN, infinities, -0, denormals, values a
// float cannot hold), null pointers, pins and routes. Every operand lives in memory sized
// exactly to what its arguments allow, between PROT_NONE guard pages (so even OpenBLAS, which
// ASan does not see, faults on a stray access); A, B and the pointer arrays are read-only.
//
// The oracle, per call:
//   - the arguments break a rule (this file's own model of the BLAS rules) -> Error with
//     invalid_argument, and every byte of every C unchanged;
//   - a pin or a route was given -> either the above with not_runnable, or the next point;
//   - otherwise -> no exception, every C element within the bound of a long-double reference
//     computed here (c = 16, plus an underflow term), NaN and infinities where and only where
//     the reference has them, and every byte of C outside the m x n items unchanged.
// Any other outcome aborts with a description of the call.
//
// Input layout (bytes past the end read as 0): docs/fuzzing.md. tests/fuzz/make_api_corpus.py
// writes the seed corpus (tests/fuzz/api_corpus) in the same layout.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gemmroute/gemmroute.hpp"

namespace {

using namespace gemmroute;
using LD = long double;
using CLD = std::complex<long double>;

// ---------------------------------------------------------------------------------------------
// Reading the input.

class Reader {
 public:
  Reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  std::uint32_t u32() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(byte()) << (8 * i);
    return v;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_, pos_ = 0;
};

constexpr std::int64_t kHuge40 = std::int64_t{1} << 40;
constexpr std::int64_t kHuge61 = std::int64_t{1} << 61;
constexpr std::int64_t kHuge62 = std::int64_t{1} << 62;
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

std::int64_t add_sat(std::int64_t a, std::int64_t b) {
  std::int64_t v = 0;
  return __builtin_add_overflow(a, b, &v) ? kMax : v;
}

std::int64_t decode_size(std::uint8_t v) {
  const int x = v % 32;
  if (x < 20) return x;
  if (x < 28) return x - 20;  // small sizes twice as often
  const std::int64_t special[] = {-1, kHuge40, kMax, kHuge62};
  return special[x - 28];
}

// ld from the rows it must cover: mostly valid (with padding), sometimes not.
std::int64_t decode_ld(std::uint8_t v, std::int64_t rows) {
  const std::int64_t need = std::max<std::int64_t>(1, rows);
  const std::int64_t pad[] = {0, 0, 0, 1, 1, 2, 3, 5, 17, 62};
  const int x = v % 16;
  if (x < 10) return add_sat(need, pad[x]);
  const std::int64_t special[] = {need - 1, 0, kHuge61, -5, kHuge40, need};
  return special[x - 10];
}

std::int64_t decode_batch(std::uint8_t v) {
  const int x = v % 8;
  return x < 6 ? x : (x == 6 ? 1 : -1);
}

// A stride from the span of one item. C never gets a stride that makes its items overlap (the
// API allows it, and the result then depends on the order the items run in).
std::int64_t decode_stride(std::uint8_t v, std::int64_t span, bool is_c) {
  switch (v % 8) {
    case 0:
      return 0;  // broadcast (A, B); refused for C when batch > 1
    case 1:
      return span;
    case 2:
      return add_sat(span, 1);
    case 3:
      return add_sat(span, 3);
    case 4:
      return is_c ? add_sat(span, 7) : span / 2;  // A and B items may overlap: only read
    case 5:
      return span;
    case 6:
      return -1;
    default:
      return kHuge62;
  }
}

Scalar decode_dtype(std::uint8_t v) {
  if (v % 16 < 12) return static_cast<Scalar>(v % 4);
  return static_cast<Scalar>((v >> 4) + 6);  // 6 .. 21: not a Scalar
}

Order decode_order(std::uint8_t v) {
  const int x = v % 8;
  if (x < 4) return Order::col_major;
  if (x < 7) return Order::row_major;
  return static_cast<Order>((v >> 3) + 2);  // 2 .. 33: not an Order
}

Op decode_op(std::uint8_t v) {
  const int x = v % 8;
  if (x < 3) return Op::N;
  if (x < 5) return Op::T;
  if (x < 7) return Op::C;
  return static_cast<Op>((v >> 3) + 3);  // 3 .. 34: not an Op
}

const char* const kPins[] = {
    "",          "",         "",           "",         "openblas",         "openblas:par=item",
    "cpu.small", "cpu.tile", "cpu.direct", "cpu.nope", "openblas:par=row", "cpu.small:x=1"};
constexpr int kPinCount = sizeof kPins / sizeof kPins[0];

std::optional<Route> decode_route(std::uint8_t v) {
  const int x = v % 8;
  if (x < 4) return std::nullopt;
  if (x == 4) return Route::automatic;
  if (x == 5) return Route::native;
  if (x == 6) return Route::vendor;
  return static_cast<Route>((v >> 3) + 3);  // not a Route
}

// Scalars, as doubles, for a type whose real part is float (`single`) or double.
double decode_real(std::uint8_t v, bool single, std::uint64_t& rng);

std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double uniform(std::uint64_t& s) {  // [-1, 1), full mantissa
  return static_cast<double>(splitmix(s) >> 11) * 0x1.0p-52 - 1.0;
}

double decode_real(std::uint8_t v, bool single, std::uint64_t& rng) {
  const double dmin =
      single ? std::numeric_limits<float>::denorm_min() : std::numeric_limits<double>::denorm_min();
  const double nmin =
      single ? std::numeric_limits<float>::min() : std::numeric_limits<double>::min();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  switch (v % 16) {
    case 0:
      return 1.0;
    case 1:
      return 0.5;
    case 2:
      return -1.0;
    case 3:
    case 4: {
      const double r = 2 * uniform(rng);
      return single ? static_cast<double>(static_cast<float>(r)) : r;
    }
    case 5:
      return 2.0;
    case 6:
      return 0.0;
    case 7:
      return -0.0;
    case 8:
      return nan;
    case 9:
      return inf;
    case 10:
      return -inf;
    case 11:
      return dmin;
    case 12:
      return nmin / 4;  // a denormal
    case 13:
      return -0.25;
    case 14:
      return std::bit_cast<double>(std::uint64_t{0xfff8000000000123});  // -NaN with a payload
    default:
      return single ? 0.1 : 1e300;  // 0.1 is no float: refused in a grouped f32 item
  }
}

// ---------------------------------------------------------------------------------------------
// Guarded memory.

std::size_t page_size() {
  static const std::size_t p = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return p;
}

// `bytes` of memory with a PROT_NONE page on each side; the data touches the upper guard
// (`at_end`) or the lower one. Zero bytes: a pointer into the upper guard.
class Guarded {
 public:
  Guarded(std::size_t bytes, bool at_end) : bytes_(bytes) {
    const std::size_t p = page_size();
    const std::size_t data_pages = (bytes + p - 1) / p;
    map_bytes_ = (data_pages + 2) * p;
    void* m =
        mmap(nullptr, map_bytes_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) std::abort();
    map_ = static_cast<char*>(m);
    if (data_pages) mprotect(map_ + p, data_pages * p, PROT_READ | PROT_WRITE);
    char* lower = map_ + p;
    char* upper = map_ + p + data_pages * p;
    data_ = at_end ? upper - bytes : lower;
    if (bytes == 0) data_ = upper;
  }
  ~Guarded() { munmap(map_, map_bytes_); }
  Guarded(const Guarded&) = delete;
  Guarded& operator=(const Guarded&) = delete;

  char* data() { return data_; }
  std::size_t size() const { return bytes_; }
  void read_only() {
    const std::size_t p = page_size();
    if (map_bytes_ > 2 * p) mprotect(map_ + p, map_bytes_ - 2 * p, PROT_READ);
  }

 private:
  char* map_ = nullptr;
  std::size_t map_bytes_ = 0;
  char* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// ---------------------------------------------------------------------------------------------
// One GEMM as the caller describes it, and this file's model of the rules.

struct ItemArgs {
  Scalar dtype = Scalar::f32;
  Order order = Order::col_major;
  Op ta = Op::N, tb = Op::N;
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t lda = 1, ldb = 1, ldc = 1;
  std::complex<double> alpha{1, 0}, beta{0, 0};
  bool null_a = false, null_b = false, null_c = false;
  std::uint8_t place = 0;
};

bool valid_dtype(Scalar s) {
  return static_cast<unsigned>(s) < 4;
}
bool valid_order(Order o) {
  return o == Order::col_major || o == Order::row_major;
}
bool valid_op(Op o) {
  return static_cast<unsigned>(o) < 3;
}
bool complex_type(Scalar s) {
  return s == Scalar::c32 || s == Scalar::c64;
}
bool single_type(Scalar s) {
  return s == Scalar::f32 || s == Scalar::c32;
}
std::int64_t elem_bytes(Scalar s) {
  return s == Scalar::f32 ? 4 : (s == Scalar::c64 ? 16 : 8);
}

// A matrix as stored: `rows` x `cols` in the caller's order; ld counts rows (column-major) or
// columns (row-major).
struct Stored {
  std::int64_t rows, cols, ld;
  bool row_major;
  std::int64_t inner() const { return row_major ? cols : rows; }  // what ld must cover
  std::int64_t outer() const { return row_major ? rows : cols; }
  // Elements from the first to one past the last one the matrix holds (0 when empty; an ld
  // below 1 counts as 1, for the memory of calls that must be refused).
  std::int64_t extent() const {
    if (rows <= 0 || cols <= 0) return 0;
    std::int64_t v = 0;
    if (__builtin_mul_overflow(std::max<std::int64_t>(ld, 1), outer() - 1, &v) ||
        __builtin_add_overflow(v, inner(), &v)) {
      return kMax;
    }
    return v;
  }
  std::int64_t at(std::int64_t r, std::int64_t c) const {
    return row_major ? r * ld + c : r + c * ld;
  }
};

Stored stored_a(const ItemArgs& it) {
  const bool n = it.ta == Op::N;
  return {n ? it.m : it.k, n ? it.k : it.m, it.lda, it.order == Order::row_major};
}
Stored stored_b(const ItemArgs& it) {
  const bool n = it.tb == Op::N;
  return {n ? it.k : it.n, n ? it.n : it.k, it.ldb, it.order == Order::row_major};
}
Stored stored_c(const ItemArgs& it) {
  return {it.m, it.n, it.ldc, it.order == Order::row_major};
}

bool holds_value(Scalar dtype, std::complex<double> v) {
  auto is_float = [](double x) {
    return std::isnan(x) || static_cast<double>(static_cast<float>(x)) == x;
  };
  if (!complex_type(dtype) && v.imag() != 0.0) return false;
  if (single_type(dtype)) return is_float(v.real()) && is_float(v.imag());
  return true;
}

bool fits_bytes(std::int64_t ld, std::int64_t outer, std::int64_t stride, std::int64_t batch,
                std::int64_t elem) {
  std::int64_t v = 0, last = 0;
  return !__builtin_mul_overflow(ld, std::max<std::int64_t>(outer, 1), &v) &&
         !__builtin_mul_overflow(stride, std::max<std::int64_t>(batch - 1, 0), &last) &&
         !__builtin_add_overflow(v, last, &v) && !__builtin_mul_overflow(v, elem, &v);
}

bool is_zero(std::complex<double> v) {
  return v.real() == 0.0 && v.imag() == 0.0;
}

// The rules every item obeys; `strides` are checked for the strided form only.
bool item_valid(const ItemArgs& it, std::int64_t batch, const std::int64_t* strides, bool grouped) {
  if (!valid_dtype(it.dtype) || !valid_order(it.order) || !valid_op(it.ta) || !valid_op(it.tb)) {
    return false;
  }
  if (it.m < 0 || it.n < 0 || it.k < 0 || batch < 0) return false;
  if (grouped && (!holds_value(it.dtype, it.alpha) || !holds_value(it.dtype, it.beta))) {
    return false;
  }
  const Stored s[3] = {stored_a(it), stored_b(it), stored_c(it)};
  const std::int64_t elem = elem_bytes(it.dtype);
  for (const Stored& x : s) {
    if (x.ld < std::max<std::int64_t>(1, x.inner())) return false;
  }
  for (const Stored& x : s) {
    if (!fits_bytes(x.ld, x.outer(), 0, 1, elem)) return false;
  }
  if (strides) {
    for (int i = 0; i < 3; ++i) {
      if (strides[i] < 0) return false;
    }
    if (strides[2] == 0 && batch > 1 && it.m > 0 && it.n > 0) return false;
    for (int i = 0; i < 3; ++i) {
      if (!fits_bytes(s[i].ld, s[i].outer(), strides[i], batch, elem)) return false;
    }
  }
  if (it.m == 0 || it.n == 0 || batch == 0) return true;
  const bool reads_ab = it.k > 0 && !is_zero(it.alpha);
  if (reads_ab && (it.null_a || it.null_b)) return false;
  return !it.null_c;
}

// ---------------------------------------------------------------------------------------------
// Values, the reference and the comparison.

template <class T>
struct RealOf {
  using type = T;
};
template <class R>
struct RealOf<std::complex<R>> {
  using type = R;
};
template <class T>
using Real = typename RealOf<T>::type;

template <class T>
T make_value(std::uint64_t& rng) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(uniform(rng));
  } else {
    using R = typename T::value_type;
    return T(static_cast<R>(uniform(rng)), static_cast<R>(uniform(rng)));
  }
}

template <class T>
T nan_value() {
  return T(std::numeric_limits<Real<T>>::quiet_NaN());
}

template <class T>
CLD widen(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return CLD(static_cast<LD>(v), 0);
  } else {
    return CLD(static_cast<LD>(v.real()), static_cast<LD>(v.imag()));
  }
}

LD mag(CLD z) {
  return std::fabs(z.real()) + std::fabs(z.imag());
}
bool finite(CLD z) {
  return std::isfinite(z.real()) && std::isfinite(z.imag());
}

template <class T>
T scalar_as(std::complex<double> v) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v.real());
  } else {
    using R = typename T::value_type;
    return T(static_cast<R>(v.real()), static_cast<R>(v.imag()));
  }
}

[[noreturn]] void finding(const std::string& what, const std::string& call) {
  std::fprintf(stderr, "api_fuzz: %s\n  call: %s\n", what.c_str(), call.c_str());
  std::abort();
}

std::string describe(const ItemArgs& it) {
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "dtype %d order %d ta %d tb %d m %lld n %lld k %lld lda %lld ldb %lld ldc %lld "
                "alpha (%g,%g) beta (%g,%g) null a%d b%d c%d",
                static_cast<int>(it.dtype), static_cast<int>(it.order), static_cast<int>(it.ta),
                static_cast<int>(it.tb), static_cast<long long>(it.m), static_cast<long long>(it.n),
                static_cast<long long>(it.k), static_cast<long long>(it.lda),
                static_cast<long long>(it.ldb), static_cast<long long>(it.ldc), it.alpha.real(),
                it.alpha.imag(), it.beta.real(), it.beta.imag(), it.null_a, it.null_b, it.null_c);
  return buf;
}

// Checks one item's C (at `c`, with `c0` the bytes before the call) against the reference.
template <class T>
void check_item(const ItemArgs& it, const T* a, const T* b, const T* c, const T* c0,
                const std::string& call) {
  if (it.m == 0 || it.n == 0) return;  // nothing computed (and n may be 2^40)
  const Stored sa = stored_a(it), sb = stored_b(it), sc = stored_c(it);
  const bool conj_a = it.ta == Op::C, conj_b = it.tb == Op::C;
  auto op_a = [&](std::int64_t i, std::int64_t q) {
    CLD v = widen(it.ta == Op::N ? a[sa.at(i, q)] : a[sa.at(q, i)]);
    return conj_a ? std::conj(v) : v;
  };
  auto op_b = [&](std::int64_t q, std::int64_t j) {
    CLD v = widen(it.tb == Op::N ? b[sb.at(q, j)] : b[sb.at(j, q)]);
    return conj_b ? std::conj(v) : v;
  };
  const CLD alpha = widen(scalar_as<T>(it.alpha)), beta = widen(scalar_as<T>(it.beta));
  const bool ab = it.k > 0 && !is_zero(it.alpha);  // alpha == 0 or k == 0: A, B unread
  const bool reads_c = !is_zero(it.beta);          // beta == 0: C unread
  const LD eps = std::numeric_limits<Real<T>>::epsilon();
  const LD underflow =
      16.0L * (static_cast<LD>(it.k) + 2) * std::numeric_limits<Real<T>>::denorm_min();
  for (std::int64_t j = 0; j < it.n; ++j) {
    for (std::int64_t i = 0; i < it.m; ++i) {
      CLD sum = 0, want = 0;
      LD scale = 0;
      if (ab) {
        LD abs_sum = 0;
        for (std::int64_t q = 0; q < it.k; ++q) {
          const CLD x = op_a(i, q), y = op_b(q, j);
          sum += x * y;
          abs_sum += mag(x) * mag(y);
        }
        want = alpha * sum;
        scale = mag(alpha) * abs_sum;
      }
      if (reads_c) {
        const CLD c_in = widen(c0[sc.at(i, j)]);
        want += beta * c_in;
        scale += mag(beta) * mag(c_in);
      }
      const CLD got = widen(c[sc.at(i, j)]);
      auto fail = [&](const char* what) {
        char where[256];
        std::snprintf(where, sizeof where,
                      "%s at (%lld, %lld): got (%Lg, %Lg), reference (%Lg, %Lg)", what,
                      static_cast<long long>(i), static_cast<long long>(j), got.real(), got.imag(),
                      want.real(), want.imag());
        finding(where, call);
      };
      if (!finite(want)) {
        if (finite(got)) fail("finite where the reference is not");
        continue;
      }
      if (!finite(got)) fail("not finite where the reference is");
      if (mag(got - want) > 16.0L * eps * scale + underflow) fail("outside the error bound");
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The calls. Loops over an item's m x n part run m only when n > 0: with n == 0, m may be 2^40.

struct Operand {
  std::unique_ptr<Guarded> mem;
  std::vector<char> before;  // C only: its bytes before the call
};

template <class T>
std::unique_ptr<Guarded> make_matrix(std::int64_t elems, bool at_end, bool nan_fill,
                                     std::uint64_t& rng) {
  auto g = std::make_unique<Guarded>(static_cast<std::size_t>(elems) * sizeof(T), at_end);
  T* p = reinterpret_cast<T*>(g->data());
  for (std::int64_t i = 0; i < elems; ++i) p[i] = nan_fill ? nan_value<T>() : make_value<T>(rng);
  return g;
}

// Largest operand the fuzzer builds for a call it expects to run (and for one it expects
// refused, the most it allocates): enough for every small case, never a real allocation.
constexpr std::int64_t kMaxElems = std::int64_t{1} << 16;

bool same_bytes(const void* a, const void* b, std::size_t n) {
  return n == 0 || std::memcmp(a, b, n) == 0;
}

struct Outcome {
  bool threw = false;
  Errc code = Errc::internal;
  std::string what;
};

template <class F>
Outcome attempt(F&& f, const std::string& call) {
  // API_FUZZ_TRACE=1 prints each call before it runs: the way to see the call an input makes
  // when it crashes (a finding prints it; a fault inside a library cannot).
  static const bool trace = std::getenv("API_FUZZ_TRACE") != nullptr;
  if (trace) std::fprintf(stderr, "api_fuzz: calling %s\n", call.c_str());
  Outcome o;
  try {
    f();
  } catch (const Error& e) {
    o.threw = true;
    o.code = e.code();
    o.what = e.what();
  } catch (const std::exception& e) {
    finding(std::string("an exception that is not gemmroute::Error: ") + e.what(), call);
  }
  return o;
}

// What the outcome must be, given the model and the overrides. API_FUZZ_VERBOSE=1 prints each
// call and its outcome (for reading what a corpus exercises).
void judge(const Outcome& o, bool valid, bool overridden, const std::string& call) {
  static const bool verbose = std::getenv("API_FUZZ_VERBOSE") != nullptr;
  if (verbose) {
    std::fprintf(stderr, "api_fuzz: %s\n  -> %s%s\n", call.c_str(), valid ? "valid, " : "invalid, ",
                 o.threw ? o.what.c_str() : "ran");
  }
  if (!valid) {
    if (!o.threw) finding("invalid arguments accepted", call);
    if (o.code != Errc::invalid_argument) finding("invalid arguments gave " + o.what, call);
    return;
  }
  if (o.threw && !(overridden && o.code == Errc::not_runnable)) {
    finding("valid arguments refused: " + o.what, call);
  }
}

Context& context() {
  static Context ctx;
  return ctx;
}

// Reads one item's arguments; `dtype` is fixed for the typed forms.
ItemArgs read_item(Reader& in, std::uint64_t& rng, std::optional<Scalar> dtype) {
  ItemArgs it;
  it.dtype = dtype ? *dtype : decode_dtype(in.byte());
  it.order = decode_order(in.byte());
  it.ta = decode_op(in.byte());
  it.tb = decode_op(in.byte());
  it.m = decode_size(in.byte());
  it.n = decode_size(in.byte());
  it.k = decode_size(in.byte());
  // ld from the rows each stored matrix has in the caller's order.
  ItemArgs probe = it;
  const std::uint8_t la = in.byte(), lb = in.byte(), lc = in.byte();
  it.lda = decode_ld(la, stored_a(probe).inner());
  it.ldb = decode_ld(lb, stored_b(probe).inner());
  it.ldc = decode_ld(lc, stored_c(probe).inner());
  const bool single = single_type(it.dtype);
  const bool cplx = complex_type(it.dtype);
  const std::uint8_t ar = in.byte(), ai = in.byte(), br = in.byte(), bi = in.byte();
  auto imag = [&](std::uint8_t v) {
    if (cplx) return v % 4 == 0 ? decode_real(static_cast<std::uint8_t>(v >> 2), single, rng) : 0.0;
    return v % 32 == 31 ? 0.5 : 0.0;  // a real item with an imaginary part: refused
  };
  it.alpha = {decode_real(ar, single, rng), imag(ai)};
  it.beta = {decode_real(br, single, rng), imag(bi)};
  const std::uint8_t nulls = in.byte();
  it.null_a = nulls % 16 == 13;
  it.null_b = nulls % 16 == 14;
  it.null_c = nulls % 16 == 15;
  it.place = in.byte();
  return it;
}

template <class T>
void strided_call(Reader& in, std::uint64_t& rng, ItemArgs it, const Options& options,
                  bool options_valid, bool overridden) {
  // The typed API takes T scalars: what the caller passes is what the model sees.
  it.alpha = std::complex<double>(scalar_as<T>(it.alpha));
  it.beta = std::complex<double>(scalar_as<T>(it.beta));
  const std::int64_t batch = decode_batch(in.byte());
  const Stored s[3] = {stored_a(it), stored_b(it), stored_c(it)};
  std::int64_t strides[3];
  for (int i = 0; i < 3; ++i) strides[i] = decode_stride(in.byte(), s[i].extent(), i == 2);
  const bool valid = options_valid && item_valid(it, batch, strides, false);
  std::string call = "gemm strided " + describe(it) + " batch " + std::to_string(batch) +
                     " strides " + std::to_string(strides[0]) + " " + std::to_string(strides[1]) +
                     " " + std::to_string(strides[2]) + " pin '" + options.pin + "' route " +
                     (options.route ? std::to_string(static_cast<int>(*options.route)) : "-");
  // Elements each operand's buffer holds: exactly what the arguments allow.
  std::int64_t elems[3];
  for (int i = 0; i < 3; ++i) {
    std::int64_t e = s[i].extent(), last = 0;
    if (batch > 1 &&
        (__builtin_mul_overflow(std::max<std::int64_t>(strides[i], 0), batch - 1, &last) ||
         __builtin_add_overflow(e, last, &e))) {
      e = kMax;
    }
    if (batch <= 0 || it.m == 0 || it.n == 0) e = std::min(e, std::int64_t{64});
    if (e > kMaxElems) {
      if (valid) return;  // a call too large to build; the model says it would run
      e = kMaxElems;
    }
    elems[i] = e;
  }
  const bool reads_ab = it.k > 0 && !is_zero(it.alpha);
  Operand a, b, c;
  a.mem = make_matrix<T>(elems[0], it.place & 1, !reads_ab, rng);
  b.mem = make_matrix<T>(elems[1], it.place & 2, !reads_ab, rng);
  c.mem = make_matrix<T>(elems[2], it.place & 4, false, rng);
  T* cp = reinterpret_cast<T*>(c.mem->data());
  if (is_zero(it.beta) && valid) {
    // beta == 0 never reads C: NaN in every item's m x n part must not leak.
    for (std::int64_t bi = 0; bi < batch; ++bi) {
      for (std::int64_t i = 0; i < (it.n > 0 ? it.m : 0); ++i) {
        for (std::int64_t j = 0; j < it.n; ++j)
          cp[bi * strides[2] + s[2].at(i, j)] = nan_value<T>();
      }
    }
  }
  a.mem->read_only();
  b.mem->read_only();
  c.before.assign(c.mem->data(), c.mem->data() + c.mem->size());
  const T* ap = it.null_a ? nullptr : reinterpret_cast<const T*>(a.mem->data());
  const T* bp = it.null_b ? nullptr : reinterpret_cast<const T*>(b.mem->data());
  T* cw = it.null_c ? nullptr : cp;
  const Outcome o = attempt(
      [&] {
        gemm<T>(context(), it.order, it.ta, it.tb, it.m, it.n, it.k, scalar_as<T>(it.alpha), ap,
                it.lda, strides[0], bp, it.ldb, strides[1], scalar_as<T>(it.beta), cw, it.ldc,
                strides[2], batch, options);
      },
      call);
  judge(o, valid, overridden, call);
  std::vector<char> after(c.mem->data(), c.mem->data() + c.mem->size());
  if (o.threw) {
    if (after != c.before) finding("C written by a call that threw: " + o.what, call);
    return;
  }
  // Every byte outside the items' m x n parts is unchanged; then each item against the
  // reference.
  std::vector<bool> inside(static_cast<std::size_t>(elems[2]), false);
  for (std::int64_t bi = 0; bi < batch; ++bi) {
    for (std::int64_t i = 0; i < (it.n > 0 ? it.m : 0); ++i) {
      for (std::int64_t j = 0; j < it.n; ++j) {
        inside[static_cast<std::size_t>(bi * strides[2] + s[2].at(i, j))] = true;
      }
    }
  }
  for (std::size_t e = 0; e < inside.size(); ++e) {
    if (!inside[e] && std::memcmp(&after[e * sizeof(T)], &c.before[e * sizeof(T)], sizeof(T))) {
      finding("C changed outside its items at element " + std::to_string(e), call);
    }
  }
  const T* c0 = reinterpret_cast<const T*>(c.before.data());
  for (std::int64_t bi = 0; bi < batch; ++bi) {
    check_item<T>(it, reinterpret_cast<const T*>(a.mem->data()) + bi * strides[0],
                  reinterpret_cast<const T*>(b.mem->data()) + bi * strides[1], cp + bi * strides[2],
                  c0 + bi * strides[2], call);
  }
}

template <class T>
void array_call(Reader& in, std::uint64_t& rng, ItemArgs it, const Options& options,
                bool options_valid, bool overridden) {
  it.alpha = std::complex<double>(scalar_as<T>(it.alpha));
  it.beta = std::complex<double>(scalar_as<T>(it.beta));
  const std::int64_t batch = decode_batch(in.byte());
  const std::uint8_t fa = in.byte(), fb = in.byte(), fc = in.byte();
  const bool broadcast_a = fa % 8 == 0, broadcast_b = fb % 8 == 0;
  // A null entry (at one item) in an array, or the array itself null (the item's null flag).
  auto null_entry = [&](std::uint8_t f) -> std::int64_t {
    return f % 16 == 15 && batch > 0 ? (f >> 4) % batch : -1;
  };
  const std::int64_t hole[3] = {null_entry(fa), null_entry(fb), null_entry(fc)};
  ItemArgs model = it;
  // The model sees a null entry like a null pointer of that operand.
  model.null_a = it.null_a || hole[0] >= 0;
  model.null_b = it.null_b || hole[1] >= 0;
  model.null_c = it.null_c || hole[2] >= 0;
  const bool valid = options_valid && item_valid(model, batch, nullptr, false);
  const std::string call = "gemm pointer arrays " + describe(it) + " batch " +
                           std::to_string(batch) + " broadcast a" + std::to_string(broadcast_a) +
                           " b" + std::to_string(broadcast_b) + " holes " +
                           std::to_string(hole[0]) + " " + std::to_string(hole[1]) + " " +
                           std::to_string(hole[2]) + " pin '" + options.pin + "'";
  const Stored s[3] = {stored_a(it), stored_b(it), stored_c(it)};
  std::int64_t elems[3];
  for (int i = 0; i < 3; ++i) {
    elems[i] = s[i].extent();
    if (elems[i] > kMaxElems) {
      if (valid) return;
      elems[i] = kMaxElems;
    }
  }
  const std::int64_t items = std::max<std::int64_t>(batch, 0);
  const bool reads_ab = it.k > 0 && !is_zero(it.alpha);
  std::vector<std::unique_ptr<Guarded>> as, bs;
  std::vector<Operand> cs(static_cast<std::size_t>(items));
  for (std::int64_t i = 0; i < items; ++i) {
    if (!broadcast_a || i == 0)
      as.push_back(make_matrix<T>(elems[0], it.place & 1, !reads_ab, rng));
    if (!broadcast_b || i == 0)
      bs.push_back(make_matrix<T>(elems[1], it.place & 2, !reads_ab, rng));
    Operand& c = cs[static_cast<std::size_t>(i)];
    c.mem = make_matrix<T>(elems[2], it.place & 4, false, rng);
    if (is_zero(it.beta) && valid) {
      T* cp = reinterpret_cast<T*>(c.mem->data());
      for (std::int64_t r = 0; r < (it.n > 0 ? it.m : 0); ++r) {
        for (std::int64_t q = 0; q < it.n; ++q) cp[s[2].at(r, q)] = nan_value<T>();
      }
    }
    c.before.assign(c.mem->data(), c.mem->data() + c.mem->size());
  }
  for (auto& g : as) g->read_only();
  for (auto& g : bs) g->read_only();
  auto a_of = [&](std::int64_t i) {
    return reinterpret_cast<const T*>(as[broadcast_a ? 0 : static_cast<std::size_t>(i)]->data());
  };
  auto b_of = [&](std::int64_t i) {
    return reinterpret_cast<const T*>(bs[broadcast_b ? 0 : static_cast<std::size_t>(i)]->data());
  };
  // The pointer arrays themselves: exactly `batch` entries, read-only.
  const std::size_t ptr_bytes = static_cast<std::size_t>(items) * sizeof(void*);
  Guarded pa(ptr_bytes, true), pb(ptr_bytes, true), pc(ptr_bytes, true);
  for (std::int64_t i = 0; i < items; ++i) {
    reinterpret_cast<const T**>(pa.data())[i] = i == hole[0] ? nullptr : a_of(i);
    reinterpret_cast<const T**>(pb.data())[i] = i == hole[1] ? nullptr : b_of(i);
    reinterpret_cast<T**>(pc.data())[i] =
        i == hole[2] ? nullptr : reinterpret_cast<T*>(cs[static_cast<std::size_t>(i)].mem->data());
  }
  pa.read_only();
  pb.read_only();
  pc.read_only();
  const T* const* ap = it.null_a ? nullptr : reinterpret_cast<const T* const*>(pa.data());
  const T* const* bp = it.null_b ? nullptr : reinterpret_cast<const T* const*>(pb.data());
  T* const* cp = it.null_c ? nullptr : reinterpret_cast<T* const*>(pc.data());
  const Outcome o = attempt(
      [&] {
        gemm<T>(context(), it.order, it.ta, it.tb, it.m, it.n, it.k, scalar_as<T>(it.alpha), ap,
                it.lda, bp, it.ldb, scalar_as<T>(it.beta), cp, it.ldc, batch, options);
      },
      call);
  judge(o, valid, overridden, call);
  for (std::int64_t i = 0; i < items; ++i) {
    Operand& c = cs[static_cast<std::size_t>(i)];
    const T* got = reinterpret_cast<const T*>(c.mem->data());
    const T* c0 = reinterpret_cast<const T*>(c.before.data());
    if (o.threw) {
      if (!same_bytes(got, c0, c.before.size())) finding("C written by a call that threw", call);
      continue;
    }
    std::vector<bool> inside(static_cast<std::size_t>(elems[2]), false);
    for (std::int64_t r = 0; r < (it.n > 0 ? it.m : 0); ++r) {
      for (std::int64_t q = 0; q < it.n; ++q)
        inside[static_cast<std::size_t>(s[2].at(r, q))] = true;
    }
    for (std::int64_t e = 0; e < elems[2]; ++e) {
      if (!inside[static_cast<std::size_t>(e)] && std::memcmp(got + e, c0 + e, sizeof(T))) {
        finding("C changed outside item " + std::to_string(i), call);
      }
    }
    check_item<T>(it, a_of(i), b_of(i), got, c0, call);
  }
}

// One grouped item with its memory.
struct GroupedItem {
  ItemArgs args;
  std::unique_ptr<Guarded> a, b, c;
  std::vector<char> c_before;
};

template <class T>
void fill_item(GroupedItem& g, std::uint64_t& rng, bool valid) {
  const ItemArgs& it = g.args;
  const Stored s[3] = {stored_a(it), stored_b(it), stored_c(it)};
  const bool reads_ab = it.k > 0 && !is_zero(it.alpha);
  const std::int64_t ea = std::min(s[0].extent(), kMaxElems),
                     eb = std::min(s[1].extent(), kMaxElems),
                     ec = std::min(s[2].extent(), kMaxElems);
  g.a = make_matrix<T>(ea, it.place & 1, !reads_ab, rng);
  g.b = make_matrix<T>(eb, it.place & 2, !reads_ab, rng);
  g.c = make_matrix<T>(ec, it.place & 4, false, rng);
  if (valid && is_zero(it.beta)) {
    T* cp = reinterpret_cast<T*>(g.c->data());
    for (std::int64_t r = 0; r < (it.n > 0 ? it.m : 0); ++r) {
      for (std::int64_t q = 0; q < it.n; ++q) cp[s[2].at(r, q)] = nan_value<T>();
    }
  }
  g.a->read_only();
  g.b->read_only();
  g.c_before.assign(g.c->data(), g.c->data() + g.c->size());
}

template <class T>
void check_grouped_item(const GroupedItem& g, const std::string& call) {
  const ItemArgs& it = g.args;
  const Stored sc = stored_c(it);
  const T* got = reinterpret_cast<const T*>(g.c->data());
  const T* c0 = reinterpret_cast<const T*>(g.c_before.data());
  const std::int64_t elems = static_cast<std::int64_t>(g.c->size() / sizeof(T));
  std::vector<bool> inside(static_cast<std::size_t>(elems), false);
  for (std::int64_t r = 0; r < (it.n > 0 ? it.m : 0); ++r) {
    for (std::int64_t q = 0; q < it.n; ++q) inside[static_cast<std::size_t>(sc.at(r, q))] = true;
  }
  for (std::int64_t e = 0; e < elems; ++e) {
    if (!inside[static_cast<std::size_t>(e)] && std::memcmp(got + e, c0 + e, sizeof(T))) {
      finding("C changed outside its item", call);
    }
  }
  check_item<T>(it, reinterpret_cast<const T*>(g.a->data()),
                reinterpret_cast<const T*>(g.b->data()), got, c0, call);
}

template <class F>
void with_type(Scalar s, F&& f) {
  switch (s) {
    case Scalar::f32:
      return f.template operator()<float>();
    case Scalar::f64:
      return f.template operator()<double>();
    case Scalar::c32:
      return f.template operator()<std::complex<float>>();
    default:
      return f.template operator()<std::complex<double>>();
  }
}

void grouped_call(Reader& in, std::uint64_t& rng, int count, const Options& options,
                  bool options_valid, bool overridden) {
  std::vector<GroupedItem> items;
  std::string call = "gemm_grouped pin '" + options.pin + "' route " +
                     (options.route ? std::to_string(static_cast<int>(*options.route)) : "-");
  bool valid = options_valid;
  for (int i = 0; i < count; ++i) {
    GroupedItem g;
    const std::uint8_t clone = in.byte();
    if (i > 0 && clone % 4 == 0) {
      // The previous item's arguments with one change: what makes items share a group, or
      // almost (a NaN alpha beside a 1, another ldc).
      g.args = items.back().args;
      const std::uint8_t field = in.byte(), value = in.byte();
      const bool single = single_type(g.args.dtype);
      switch (field % 6) {
        case 0:
          g.args.alpha = {decode_real(value, single, rng), g.args.alpha.imag()};
          break;
        case 1:
          g.args.beta = {decode_real(value, single, rng), g.args.beta.imag()};
          break;
        case 2:
          g.args.ldc = decode_ld(value, stored_c(g.args).inner());
          break;
        case 3:
          g.args.order = decode_order(value);
          break;
        case 4:
          g.args.dtype = decode_dtype(value);
          break;
        default:
          break;
      }
    } else {
      g.args = read_item(in, rng, std::nullopt);
    }
    valid = valid && item_valid(g.args, 1, nullptr, true);
    call += "\n    item " + std::to_string(i) + ": " + describe(g.args);
    items.push_back(std::move(g));
  }
  // Memory: items whose dtype is not a Scalar get float memory (they must be refused unread);
  // calls with an item too large to build are skipped when the model says they would run.
  for (GroupedItem& g : items) {
    const ItemArgs& it = g.args;
    for (const Stored& s : {stored_a(it), stored_b(it), stored_c(it)}) {
      if (s.extent() > kMaxElems && valid) return;
    }
  }
  for (GroupedItem& g : items) {
    with_type(valid_dtype(g.args.dtype) ? g.args.dtype : Scalar::f32,
              [&]<class T>() { fill_item<T>(g, rng, valid); });
  }
  std::vector<GemmItem> list;
  for (GroupedItem& g : items) {
    const ItemArgs& it = g.args;
    GemmItem x;
    x.dtype = it.dtype;
    x.order = it.order;
    x.ta = it.ta;
    x.tb = it.tb;
    x.m = it.m;
    x.n = it.n;
    x.k = it.k;
    x.alpha = it.alpha;
    x.beta = it.beta;
    x.a = it.null_a ? nullptr : g.a->data();
    x.lda = it.lda;
    x.b = it.null_b ? nullptr : g.b->data();
    x.ldb = it.ldb;
    x.c = it.null_c ? nullptr : g.c->data();
    x.ldc = it.ldc;
    list.push_back(x);
  }
  const Outcome o = attempt([&] { gemm_grouped(context(), list, options); }, call);
  judge(o, valid, overridden, call);
  for (std::size_t i = 0; i < items.size(); ++i) {
    const GroupedItem& g = items[i];
    if (o.threw) {
      if (!same_bytes(g.c->data(), g.c_before.data(), g.c_before.size())) {
        finding("item " + std::to_string(i) + "'s C written by a call that threw: " + o.what, call);
      }
      continue;
    }
    with_type(g.args.dtype, [&]<class T>() { check_grouped_item<T>(g, call); });
  }
}

// gemm_groups: `count` groups of one scalar, each one item through one-entry pointer arrays
// (host memory on the CPU), with the item's own arguments (column-major: a GemmGroup has no
// order); the model and the checks are those of a grouped item.
template <class T>
void groups_call(Reader& in, std::uint64_t& rng, int count, const Options& options,
                 bool options_valid, bool overridden) {
  std::vector<GroupedItem> items;
  std::string call = "gemm_groups pin '" + options.pin + "' route " +
                     (options.route ? std::to_string(static_cast<int>(*options.route)) : "-");
  bool valid = options_valid;
  for (int i = 0; i < count; ++i) {
    GroupedItem g;
    g.args = read_item(in, rng, scalar_of_v<T>);
    g.args.order = Order::col_major;
    g.args.alpha = std::complex<double>(scalar_as<T>(g.args.alpha));
    g.args.beta = std::complex<double>(scalar_as<T>(g.args.beta));
    valid = valid && item_valid(g.args, 1, nullptr, false);
    call += "\n    group " + std::to_string(i) + ": " + describe(g.args);
    items.push_back(std::move(g));
  }
  for (GroupedItem& g : items) {
    for (const Stored& st : {stored_a(g.args), stored_b(g.args), stored_c(g.args)}) {
      if (st.extent() > kMaxElems && valid) return;
    }
  }
  for (GroupedItem& g : items) fill_item<T>(g, rng, valid);
  // Each group's three one-entry pointer arrays.
  std::vector<std::array<void*, 3>> arrays(items.size());
  std::vector<GemmGroup<T>> groups;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const ItemArgs& it = items[i].args;
    arrays[i] = {items[i].a->data(), items[i].b->data(), items[i].c->data()};
    GemmGroup<T> g;
    g.ta = it.ta;
    g.tb = it.tb;
    g.m = it.m;
    g.n = it.n;
    g.k = it.k;
    g.alpha = scalar_as<T>(it.alpha);
    g.beta = scalar_as<T>(it.beta);
    g.a = it.null_a ? nullptr : reinterpret_cast<const T* const*>(&arrays[i][0]);
    g.lda = it.lda;
    g.b = it.null_b ? nullptr : reinterpret_cast<const T* const*>(&arrays[i][1]);
    g.ldb = it.ldb;
    g.c = it.null_c ? nullptr : reinterpret_cast<T* const*>(&arrays[i][2]);
    g.ldc = it.ldc;
    g.count = 1;
    groups.push_back(g);
  }
  const Outcome o = attempt([&] { gemm_groups<T>(context(), groups, options); }, call);
  judge(o, valid, overridden, call);
  for (std::size_t i = 0; i < items.size(); ++i) {
    const GroupedItem& g = items[i];
    if (o.threw) {
      if (!same_bytes(g.c->data(), g.c_before.data(), g.c_before.size())) {
        finding("group " + std::to_string(i) + "'s C written by a call that threw: " + o.what,
                call);
      }
      continue;
    }
    check_grouped_item<T>(g, call);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Reader in(data, size);
  const int form = in.byte() % 4;
  std::uint64_t rng = in.u32();
  Options options;
  options.pin = kPins[in.byte() % kPinCount];
  options.route = decode_route(in.byte());
  // A valid call may be refused as not runnable only where a pin or a route restricts it.
  const bool overridden =
      !options.pin.empty() || (options.route && *options.route != Route::automatic);
  const bool options_valid = !options.route || *options.route == Route::automatic ||
                             *options.route == Route::native || *options.route == Route::vendor;
  const std::uint8_t kind = in.byte();
  if (form == 2) {
    grouped_call(in, rng, kind % 8, options, options_valid, overridden);
    return 0;
  }
  const Scalar dtype = static_cast<Scalar>(kind % 4);
  if (form == 3) {
    with_type(dtype, [&]<class T>() {
      groups_call<T>(in, rng, (kind / 4) % 8, options, options_valid, overridden);
    });
    return 0;
  }
  const ItemArgs it = read_item(in, rng, dtype);
  with_type(dtype, [&]<class T>() {
    if (form == 0) {
      strided_call<T>(in, rng, it, options, options_valid, overridden);
    } else {
      array_call<T>(in, rng, it, options, options_valid, overridden);
    }
  });
  return 0;
}
