// A small parser for `--name value` options and positional arguments, shared by every verb.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "gemmroute/types.hpp"

namespace gemmroute::cli {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Args {
 public:
  // `valued` options take a value; `flags` take none. Throws UsageError for anything else.
  Args(const std::vector<std::string>& argv, const std::set<std::string>& valued,
       const std::set<std::string>& flags);

  bool help() const { return help_; }
  bool flag(const std::string& name) const { return flags_.count(name) != 0; }
  std::optional<std::string> get(const std::string& name) const;
  std::string get_or(const std::string& name, const std::string& fallback) const;
  std::string required(const std::string& name) const;
  std::int64_t integer(const std::string& name, std::int64_t fallback) const;
  double number(const std::string& name, double fallback) const;
  // --device (default cpu): "cpu", "cuda" or "cuda:N".
  Device device() const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  bool help_ = false;
  std::map<std::string, std::string> values_;
  std::set<std::string> flags_;
  std::vector<std::string> positional_;
};

std::int64_t parse_int(const std::string& option, const std::string& text);

}  // namespace gemmroute::cli
