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
  // Numeric options are parsed whole (no trailing text, no leading space, no sign or base
  // tricks), must lie in their range, and a number must be finite: anything else is a
  // UsageError naming the option and its range. `fallback` when the option is absent.
  std::int64_t integer(const std::string& name, std::int64_t fallback, std::int64_t lo,
                       std::int64_t hi) const;
  // In [lo, hi], or [lo, hi) when hi_open.
  double number(const std::string& name, double fallback, double lo, double hi,
                bool hi_open = false) const;
  // --device (default cpu): "cpu", "cuda" or "cuda:N".
  Device device() const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  bool help_ = false;
  std::map<std::string, std::string> values_;
  std::set<std::string> flags_;
  std::vector<std::string> positional_;
};

// The parsers behind integer() and number(), for option values taken apart by a verb.
std::int64_t parse_int(const std::string& option, const std::string& text, std::int64_t lo,
                       std::int64_t hi);
double parse_number(const std::string& option, const std::string& text, double lo, double hi,
                    bool hi_open = false);

}  // namespace gemmroute::cli
