// Backend: a device's vocabulary of candidates (in tie-break order), its fingerprint and its
// last resorts. The selector knows backends only through this.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "core/candidate.hpp"
#include "core/fingerprint.hpp"
#include "gemmroute/types.hpp"

namespace gemmroute {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual BackendKind kind() const = 0;
  virtual std::string_view name() const = 0;  // "cpu", "cuda": the tables/ subfolder
  virtual const Fingerprint& fingerprint() const = 0;
  // Every candidate, earliest first in tie-break order.
  virtual std::span<const Candidate* const> candidates() const = 0;
  // The generic native kernel (runs everything) and the vendor call.
  virtual const Candidate& last_resort_native() const = 0;
  virtual const Candidate& last_resort_vendor() const = 0;
  // Whether a candidate's measurements depend on a fingerprint field (a vendor's version).
  virtual bool depends_on(const Candidate& candidate, std::string_view field) const = 0;

  // The candidate a spelling names, or nullptr.
  const Candidate* find(std::string_view spelling) const;
};

// The backend for a device; throws Error(unsupported) when this build or machine lacks it.
std::unique_ptr<Backend> make_backend(Device device);

}  // namespace gemmroute
