// A device fingerprint: ordered key/value fields that say what a table was measured on.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gemmroute {

struct Fingerprint {
  // Ordered fields, such as backend, device, arch, cores, openblas, openblas_core.
  std::vector<std::pair<std::string, std::string>> fields;

  const std::string* get(std::string_view key) const;
  void set(std::string key, std::string value);
  // Short file-name form: "<device slug>-<cores>c" for the CPU; "generic" when only the
  // backend is set.
  std::string id() const;
};

// Fields of `table` that `device` has with another value (generic tables name only the
// backend, so they mismatch nothing but the backend).
std::vector<std::string> mismatched_fields(const Fingerprint& table, const Fingerprint& device);

std::string slug(std::string_view text);  // lower case, [a-z0-9] runs joined by '-'

}  // namespace gemmroute
