// The selection key of a call and its one text grammar, `dtype ta tb layout m n k batch`:
// table rows, results files, shapes files, tuning specs, the CLI and explain all read a key's
// fields with these parsers and write them with these printers, so a field means the same and
// is refused with the same message everywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "gemmroute/types.hpp"

namespace gemmroute {

enum class Layout : std::uint8_t { packed, strided };

// The dtype field is one token, parsed and printed by the two functions below and nowhere
// else: `in:out:compute` (`bf16:f32:f32`, `f32:f32:tf32`), or one name where the dtype is its
// input's default (`f32` is f32:f32:f32, `bf16` is bf16:bf16:f32). Printing always gives the
// short form where there is one, so every file written before these types existed reads and
// prints unchanged (docs/decisions.md).

// Exact dtype, forms and layout; sizes matched by log2 distance (docs/table-format.md).
struct Key {
  DType dtype = Scalar::f32;
  Op ta = Op::N, tb = Op::N;
  Layout layout = Layout::packed;
  std::int64_t m = 0, n = 0, k = 0, batch = 0;

  friend bool operator==(const Key&, const Key&) = default;
};

// The call path's per-thread memos (the table's nearest row, the predicted look-up) are
// direct-mapped over 64 slots of a key. Few, independent products: a chain of dependent
// multiplies cost more than the rest of a look-up on a hit. The byte fields are read one by one
// and combined with adds, never as one wider word: the caller has just stored them one by one,
// and a wider load over narrower stores waits for them.
inline std::size_t key_memo_slot(const Key& k) noexcept {
  const std::uint64_t forms = std::uint64_t(dtype_bits(k.dtype)) + 512 * std::uint64_t(k.ta) +
                              2048 * std::uint64_t(k.tb) + 8192 * std::uint64_t(k.layout);
  const std::uint64_t h =
      (std::uint64_t(k.m) + (forms << 32)) * 0x9E3779B97F4A7C15ull +
      (std::uint64_t(k.n) + (std::uint64_t(k.k) << 32)) * 0xC2B2AE3D27D4EB4Full +
      std::uint64_t(k.batch) * 0x165667B19E3779F9ull;
  return static_cast<std::size_t>((h ^ (h >> 31)) >> 58);  // 64 slots
}

// Key equality for those memos: the sizes compared with one branch, then the narrow fields,
// each as the caller stored it.
inline bool same_key(const Key& a, const Key& b) noexcept {
  const bool sizes = ((a.m ^ b.m) | (a.n ^ b.n) | (a.k ^ b.k) | (a.batch ^ b.batch)) == 0;
  return sizes && a.dtype == b.dtype && a.ta == b.ta && a.tb == b.tb && a.layout == b.layout;
}

// C folds to T for real scalars. Everything that looks at a problem or a key sees the folded
// form.
inline Op fold_op(DType dtype, Op op) noexcept {
  return (!is_complex(dtype) && op == Op::C) ? Op::T : op;
}

// Sizes a key holds: 1 to 2^62 (a table's limit; k == 0 is looked up as 1).
inline constexpr std::int64_t kMaxKeySize = std::int64_t{1} << 62;

std::optional<DType> parse_dtype(std::string_view token) noexcept;
std::string format_dtype(DType dtype);
std::string_view to_string(Layout layout) noexcept;
std::optional<Layout> parse_layout(std::string_view token) noexcept;
// N, T or C, upper case: the form of one operand.
std::optional<Op> parse_form(std::string_view token) noexcept;
// A whole number from 1 to kMaxKeySize, the whole token (no sign, space or suffix).
std::optional<std::int64_t> parse_key_size(std::string_view token) noexcept;

// What each field accepts, for messages.
std::string_view dtype_choices() noexcept;

// One field of a line being read: its text and its 1-based column there, for messages.
struct Field {
  std::string_view text;
  int column = 0;
};

// Where and why a key's fields were refused: the 1-based column, the field's name ("ta") and
// the problem ("unknown 'x' (expected N, T or C)").
struct KeyError {
  int column = 0;
  std::string field;
  std::string problem;

  std::string message() const { return field + ": " + problem; }  // "ta: unknown 'x' (...)"
};

// C on a real dtype: files that tables are built from must say T (it folds to T before
// anything looks at a key); a user's input (shapes files, the CLI) may say C, folded here.
enum class RealC { reject, fold };

// The key's eight fields, in the order above. On failure returns nullopt and sets *error to
// the first bad field.
std::optional<Key> parse_key(std::span<const Field> fields, RealC real_c, KeyError* error);
// One field parsed alone, with parse_key's message (for the CLI's options and spec lists);
// `name` is the field's name in the message.
std::optional<DType> parse_dtype_field(Field field, KeyError* error);
std::optional<Op> parse_form_field(Field field, std::string_view name, KeyError* error);
std::optional<Layout> parse_layout_field(Field field, KeyError* error);
std::optional<std::int64_t> parse_size_field(Field field, std::string_view name, KeyError* error);

// "f32 N T packed 32 32 32 1000"; with another separator, the same fields (results CSV).
std::string to_string(const Key& key);
std::string format_key(const Key& key, char separator);

}  // namespace gemmroute
