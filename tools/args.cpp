#include "args.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace gemmroute::cli {

Args::Args(const std::vector<std::string>& argv, const std::set<std::string>& valued,
           const std::set<std::string>& flags) {
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "--help" || a == "-h") {
      help_ = true;
      continue;
    }
    if (a.rfind("--", 0) != 0 || a.size() == 2) {
      positional_.push_back(a);
      continue;
    }
    std::string name = a.substr(2), value;
    bool has_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    if (flags.count(name)) {
      if (has_value) throw UsageError("--" + name + " takes no value");
      flags_.insert(name);
    } else if (valued.count(name)) {
      if (!has_value) {
        if (i + 1 >= argv.size()) throw UsageError("--" + name + " needs a value");
        value = argv[++i];
      }
      values_[name] = value;
    } else {
      throw UsageError("unknown option --" + name);
    }
  }
}

std::optional<std::string> Args::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string Args::get_or(const std::string& name, const std::string& fallback) const {
  return get(name).value_or(fallback);
}

std::string Args::required(const std::string& name) const {
  auto v = get(name);
  if (!v) throw UsageError("--" + name + " is required");
  return *v;
}

std::int64_t parse_int(const std::string& option, const std::string& text, std::int64_t lo,
                       std::int64_t hi) {
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty() || v < lo || v > hi) {
    throw UsageError("--" + option + ": expected a whole number from " + std::to_string(lo) +
                     " to " + std::to_string(hi) + ", got '" + text + "'");
  }
  return v;
}

double parse_number(const std::string& option, const std::string& text, double lo, double hi,
                    bool hi_open) {
  double v = 0;
  // from_chars: no leading space, no hex, and "nan" or "inf" are refused below.
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  const bool in_range = v >= lo && (hi_open ? v < hi : v <= hi);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty() || !std::isfinite(v) ||
      !in_range) {
    char range[96];
    std::snprintf(range, sizeof range, "[%g, %g%c", lo, hi, hi_open ? ')' : ']');
    throw UsageError("--" + option + ": expected a finite number in " + range + ", got '" + text +
                     "'");
  }
  return v;
}

std::int64_t Args::integer(const std::string& name, std::int64_t fallback, std::int64_t lo,
                           std::int64_t hi) const {
  auto v = get(name);
  return v ? parse_int(name, *v, lo, hi) : fallback;
}

double Args::number(const std::string& name, double fallback, double lo, double hi,
                    bool hi_open) const {
  auto v = get(name);
  return v ? parse_number(name, *v, lo, hi, hi_open) : fallback;
}

Device Args::device() const {
  auto d = parse_device(get_or("device", "cpu"));
  if (!d) throw UsageError("--device: expected cpu or cuda[:N]");
  return *d;
}

}  // namespace gemmroute::cli
