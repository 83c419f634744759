// Spellings: the one grammar naming a candidate's whole configuration, `name(:key=value)*`.
// name and keys: [a-z0-9._-]+ starting with a letter; values: [A-Za-z0-9._+-]+.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gemmroute {

struct Spelling {
  std::string name;
  std::vector<std::pair<std::string, std::string>> params;  // in written order

  std::string str() const;
  const std::string* param(std::string_view key) const;
};

// On failure returns nullopt and, when given, sets *error_column (0-based in text) and *why.
std::optional<Spelling> parse_spelling(std::string_view text, std::size_t* error_column = nullptr,
                                       std::string* why = nullptr);

}  // namespace gemmroute
