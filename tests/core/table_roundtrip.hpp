// What "the same table" means after write_table and parse_table: shared by the loader tests and
// the table fuzzer. Times are written with 6 significant digits and spreads with 2 decimals, so
// they compare within that rounding; everything else compares exactly.
#pragma once

#include <cmath>
#include <string>

#include "core/table.hpp"

namespace gemmroute::testing {

// Empty when `b` (the table re-read from write_table(a)) holds the same content as `a`;
// otherwise the first difference, for a failure message.
inline std::string roundtrip_mismatch(const Table& a, const Table& b) {
  if (a.fingerprint.fields != b.fingerprint.fields) return "fingerprint fields differ";
  if (a.header != b.header) return "header fields differ";
  if (a.rows.size() != b.rows.size()) {
    return "row count " + std::to_string(a.rows.size()) + " became " +
           std::to_string(b.rows.size());
  }
  for (std::size_t i = 0; i < a.rows.size(); ++i) {
    const Row& x = a.rows[i];
    const Row& y = b.rows[i];
    const std::string where = "row " + std::to_string(i) + " (line " + std::to_string(x.line) + ")";
    if (!(x.key == y.key)) {
      return where + ": key " + to_string(x.key) + " became " + to_string(y.key);
    }
    if (x.origin != y.origin) return where + ": origin differs";
    if (x.entries.size() != y.entries.size()) return where + ": entry count differs";
    for (std::size_t j = 0; j < x.entries.size(); ++j) {
      const Entry& e = x.entries[j];
      const Entry& f = y.entries[j];
      const std::string what = where + " entry " + std::to_string(j) + " '" + e.spelling + "'";
      if (e.spelling != f.spelling) return what + ": spelling became '" + f.spelling + "'";
      if (e.timed != f.timed) return what + ": timed differs";
      if (!e.timed) continue;
      if (e.bits != f.bits) {
        return what + ": bit-identity group " + std::to_string(e.bits) + " became " +
               std::to_string(f.bits);
      }
      // %.6g keeps 6 significant digits: relative error at most 5e-6.
      if (!(std::abs(e.median_us - f.median_us) <= 5.0001e-6 * e.median_us)) {
        return what + ": median " + std::to_string(e.median_us) + "us became " +
               std::to_string(f.median_us) + "us";
      }
      // %.2f: absolute error at most 0.005 percentage points.
      if (!(std::abs(e.spread_pct - f.spread_pct) <= 0.0050001 + 1e-12 * e.spread_pct)) {
        return what + ": spread " + std::to_string(e.spread_pct) + "% became " +
               std::to_string(f.spread_pct) + "%";
      }
    }
  }
  return {};
}

}  // namespace gemmroute::testing
