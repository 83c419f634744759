#include "core/fingerprint.hpp"

namespace gemmroute {

const std::string* Fingerprint::get(std::string_view key) const {
  for (const auto& [k, v] : fields) {
    if (k == key) return &v;
  }
  return nullptr;
}

void Fingerprint::set(std::string key, std::string value) {
  for (auto& [k, v] : fields) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  fields.emplace_back(std::move(key), std::move(value));
}

std::string slug(std::string_view text) {
  std::string s;
  bool dash = false;
  for (char c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      if (dash && !s.empty()) s += '-';
      s += c;
      dash = false;
    } else {
      dash = true;
    }
  }
  return s;
}

std::string Fingerprint::id() const {
  const std::string* device = get("device");
  if (!device) return "generic";
  std::string s = slug(*device);
  if (const std::string* cores = get("cores")) s += "-" + *cores + "c";
  if (const std::string* sms = get("sms")) s += "-" + *sms + "sm";
  return s;
}

std::vector<std::string> mismatched_fields(const Fingerprint& table, const Fingerprint& device) {
  std::vector<std::string> out;
  for (const auto& [k, v] : table.fields) {
    const std::string* mine = device.get(k);
    if (!mine || *mine != v) out.push_back(k);
  }
  return out;
}

}  // namespace gemmroute
