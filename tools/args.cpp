#include "args.hpp"

#include <charconv>

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

std::int64_t parse_int(const std::string& option, const std::string& text) {
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    throw UsageError("--" + option + ": expected a whole number, got '" + text + "'");
  }
  return v;
}

std::int64_t Args::integer(const std::string& name, std::int64_t fallback) const {
  auto v = get(name);
  return v ? parse_int(name, *v) : fallback;
}

double Args::number(const std::string& name, double fallback) const {
  auto v = get(name);
  if (!v) return fallback;
  try {
    std::size_t used = 0;
    double d = std::stod(*v, &used);
    if (used != v->size()) throw std::invalid_argument("trailing");
    return d;
  } catch (const std::exception&) {
    throw UsageError("--" + name + ": expected a number, got '" + *v + "'");
  }
}

Device Args::device() const {
  auto d = parse_device(get_or("device", "cpu"));
  if (!d) throw UsageError("--device: expected cpu or cuda[:N]");
  return *d;
}

}  // namespace gemmroute::cli
