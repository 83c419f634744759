// The key's grammar: one parser and one printer per field.
#include "core/key.hpp"

#include <charconv>

namespace gemmroute {
namespace {

// The offending text in a message, when it is short and printable; else nothing (the column
// points at it).
std::string quoted(std::string_view text) {
  if (text.empty() || text.size() > 24) return "";
  for (char c : text) {
    if (c < 0x21 || c > 0x7e) return "";
  }
  return " '" + std::string(text) + "'";
}

void fail(KeyError* error, const Field& f, std::string_view name, std::string problem) {
  if (error) *error = {f.column, std::string(name), std::move(problem)};
}

}  // namespace

std::optional<DType> parse_dtype(std::string_view t) noexcept {
  const auto first = t.find(':');
  if (first == std::string_view::npos) {
    auto s = parse_scalar(t);
    if (!s) return std::nullopt;
    return DType(*s);
  }
  const auto second = t.find(':', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  auto in = parse_scalar(t.substr(0, first));
  auto out = parse_scalar(t.substr(first + 1, second - first - 1));
  auto compute = parse_compute(t.substr(second + 1));
  if (!in || !out || !compute) return std::nullopt;
  const DType d(*in, *out, *compute);
  if (!is_supported(d)) return std::nullopt;
  return d;
}

std::string format_dtype(DType d) {
  if (d == DType(d.in)) return std::string(to_string(d.in));
  std::string s(to_string(d.in));
  s += ':';
  s += to_string(d.out);
  s += ':';
  s += to_string(d.compute);
  return s;
}

std::string to_string(DType d) {
  return format_dtype(d);
}

std::string_view dtype_choices() noexcept {
  return "f32, f64, c32, c64, bf16, f16, bf16:f32:f32, f16:f32:f32 or f32:f32:tf32";
}

std::string_view to_string(Layout layout) noexcept {
  return layout == Layout::packed ? "packed" : "strided";
}

std::optional<Layout> parse_layout(std::string_view t) noexcept {
  if (t == "packed") return Layout::packed;
  if (t == "strided") return Layout::strided;
  return std::nullopt;
}

std::optional<Op> parse_form(std::string_view t) noexcept {
  if (t == "N") return Op::N;
  if (t == "T") return Op::T;
  if (t == "C") return Op::C;
  return std::nullopt;
}

std::optional<std::int64_t> parse_key_size(std::string_view t) noexcept {
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || end != t.data() + t.size() || v < 1 || v > kMaxKeySize) {
    return std::nullopt;
  }
  return v;
}

std::optional<DType> parse_dtype_field(Field f, KeyError* error) {
  auto d = parse_dtype(f.text);
  if (!d) {
    fail(error, f, "dtype",
         "unknown" + quoted(f.text) + " (expected " + std::string(dtype_choices()) + ")");
  }
  return d;
}

std::optional<Op> parse_form_field(Field f, std::string_view name, KeyError* error) {
  auto op = parse_form(f.text);
  if (!op) fail(error, f, name, "unknown" + quoted(f.text) + " (expected N, T or C)");
  return op;
}

std::optional<Layout> parse_layout_field(Field f, KeyError* error) {
  auto l = parse_layout(f.text);
  if (!l) fail(error, f, "layout", "unknown" + quoted(f.text) + " (expected packed or strided)");
  return l;
}

std::optional<std::int64_t> parse_size_field(Field f, std::string_view name, KeyError* error) {
  auto v = parse_key_size(f.text);
  if (!v) fail(error, f, name, "expected a whole number from 1 to 2^62");
  return v;
}

std::optional<Key> parse_key(std::span<const Field> f, RealC real_c, KeyError* error) {
  if (f.size() != 8) {
    if (error) {
      *error = {
          f.empty() ? 1 : f.front().column, "key",
          "expected 8 fields 'dtype ta tb layout m n k batch', found " + std::to_string(f.size())};
    }
    return std::nullopt;
  }
  auto dtype = parse_dtype_field(f[0], error);
  if (!dtype) return std::nullopt;
  auto ta = parse_form_field(f[1], "ta", error);
  if (!ta) return std::nullopt;
  auto tb = parse_form_field(f[2], "tb", error);
  if (!tb) return std::nullopt;
  if (!is_complex(*dtype) && (*ta == Op::C || *tb == Op::C)) {
    if (real_c == RealC::reject) {
      const bool a = *ta == Op::C;
      fail(error, a ? f[1] : f[2], a ? "ta" : "tb", "C is folded to T for real scalars; write T");
      return std::nullopt;
    }
    ta = fold_op(*dtype, *ta);
    tb = fold_op(*dtype, *tb);
  }
  auto layout = parse_layout_field(f[3], error);
  if (!layout) return std::nullopt;
  constexpr std::string_view kSizes[] = {"m", "n", "k", "batch"};
  std::int64_t sizes[4] = {};
  for (int i = 0; i < 4; ++i) {
    auto v = parse_size_field(f[4 + i], kSizes[i], error);
    if (!v) return std::nullopt;
    sizes[i] = *v;
  }
  return Key{*dtype, *ta, *tb, *layout, sizes[0], sizes[1], sizes[2], sizes[3]};
}

std::string format_key(const Key& key, char separator) {
  std::string s = format_dtype(key.dtype);
  for (std::string_view field : {to_string(key.ta), to_string(key.tb), to_string(key.layout)}) {
    s += separator;
    s += field;
  }
  for (std::int64_t v : {key.m, key.n, key.k, key.batch}) {
    s += separator;
    s += std::to_string(v);
  }
  return s;
}

std::string to_string(const Key& key) {
  return format_key(key, ' ');
}

}  // namespace gemmroute
