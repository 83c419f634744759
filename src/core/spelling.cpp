#include "core/spelling.hpp"

namespace gemmroute {
namespace {

bool is_lower_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
bool is_name_char(char c) {
  return is_lower_alnum(c) || c == '.' || c == '_' || c == '-';
}
bool is_value_char(char c) {
  return is_name_char(c) || (c >= 'A' && c <= 'Z') || c == '+';
}

}  // namespace

std::string Spelling::str() const {
  std::string s = name;
  for (const auto& [k, v] : params) {
    s += ':';
    s += k;
    s += '=';
    s += v;
  }
  return s;
}

const std::string* Spelling::param(std::string_view key) const {
  for (const auto& [k, v] : params) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::optional<Spelling> parse_spelling(std::string_view text, std::size_t* error_column,
                                       std::string* why) {
  auto fail = [&](std::size_t col, const char* message) -> std::optional<Spelling> {
    if (error_column) *error_column = col;
    if (why) *why = message;
    return std::nullopt;
  };
  Spelling s;
  std::size_t i = 0;
  auto word = [&](bool (*ok)(char)) {
    std::size_t start = i;
    while (i < text.size() && ok(text[i])) ++i;
    return text.substr(start, i - start);
  };
  if (text.empty()) return fail(0, "empty spelling");
  if (!(text[0] >= 'a' && text[0] <= 'z')) return fail(0, "a spelling starts with a-z");
  s.name = word(is_name_char);
  while (i < text.size()) {
    if (text[i] != ':') return fail(i, "expected ':' or the end of the spelling");
    ++i;
    if (i >= text.size() || !(text[i] >= 'a' && text[i] <= 'z')) {
      return fail(i, "expected a parameter name (a-z first)");
    }
    std::string key(word(is_name_char));
    if (i >= text.size() || text[i] != '=') return fail(i, "expected '=' after a parameter name");
    ++i;
    std::string value(word(is_value_char));
    if (value.empty()) return fail(i, "expected a parameter value");
    if (s.param(key)) return fail(i - value.size() - 1 - key.size(), "parameter given twice");
    s.params.emplace_back(std::move(key), std::move(value));
  }
  return s;
}

}  // namespace gemmroute
