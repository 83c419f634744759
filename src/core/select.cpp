#include "core/select.hpp"

#include <cstdio>

#include "gemmroute/error.hpp"

namespace gemmroute {
namespace {

const char* route_refusal(const Candidate& c, Route route) {
  if (route == Route::native && c.provider() == Provider::vendor) return "excluded by route=native";
  if (route == Route::vendor && c.provider() == Provider::native) return "excluded by route=vendor";
  return nullptr;
}

std::string describe_row(const Row& r) {
  return to_string(r.key) + " (" + std::string(to_string(r.origin)) + ", line " +
         std::to_string(r.line) + ")";
}

std::string fmt_distance(double d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", d);
  return buf;
}

}  // namespace

Selection select(const Problem& problem, const Key& key, const Table* table, const Backend& backend,
                 const Exec& exec, const Overrides& ov, Trace* trace) {
  auto note = [&](std::string_view spelling, const char* reason, const char* from) {
    if (trace) trace->steps.push_back({std::string(spelling), reason ? reason : "", from});
  };
  if (!ov.pin.empty()) {
    const Candidate* c = ov.pinned;
    if (!c) {
      std::string names;
      for (const Candidate* x : backend.candidates()) {
        names += ' ';
        names += x->spelling();
      }
      throw Error(Errc::not_runnable, "pin",
                  "pin '" + std::string(ov.pin) + "' names no candidate of the " +
                      std::string(backend.name()) + " backend: " + std::string(ov.pin_error) +
                      " (candidates:" + names + ")");
    }
    if (const char* why = route_refusal(*c, ov.route)) {
      throw Error(Errc::not_runnable, "pin", "pin '" + std::string(ov.pin) + "' is " + why);
    }
    Verdict v = runnable(*c, problem, exec);
    if (!v.ok) {
      throw Error(
          Errc::not_runnable, "pin",
          "pin '" + std::string(ov.pin) + "' cannot run " + to_string(key) + ": " + v.reason);
    }
    note(c->spelling(), nullptr, "pin");
    return {c, Source::pin, {}};
  }

  Selection s;
  if (table) s.nearest = nearest_row(*table, key);
  if (s.nearest.row) {
    for (const Entry& e : s.nearest.row->entries) {
      const Candidate& c = *e.candidate;
      if (!e.unrunnable.empty()) {
        note(e.spelling, e.unrunnable.c_str(), "row");
        continue;
      }
      if (const char* why = route_refusal(c, ov.route)) {
        note(e.spelling, why, "row");
        continue;
      }
      Verdict v = runnable(c, problem, exec);
      note(e.spelling, v.ok ? nullptr : v.reason, "row");
      if (v.ok) {
        s.candidate = &c;
        s.source = Source::table;
        return s;
      }
    }
  }
  for (const Candidate* c : {&backend.last_resort_native(), &backend.last_resort_vendor()}) {
    if (const char* why = route_refusal(*c, ov.route)) {
      note(c->spelling(), why, "last resort");
      continue;
    }
    Verdict v = runnable(*c, problem, exec);
    note(c->spelling(), v.ok ? nullptr : v.reason, "last resort");
    if (v.ok) {
      s.candidate = c;
      s.source = Source::last_resort;
      return s;
    }
  }
  throw Error(
      Errc::not_runnable, "route",
      "no candidate can run " + to_string(key) + " with route=" + std::string(to_string(ov.route)));
}

std::string format_log_line(const Key& key, const Table* table, const Selection& s,
                            const Trace& trace, const Overrides& ov) {
  std::string line = "gemmroute: key " + to_string(key);
  if (!ov.pin.empty()) {
    line += " | pin " + std::string(ov.pin);
  } else {
    line += " | table " + (table ? table->path : std::string("(none)"));
    if (s.nearest.row) {
      line += " | row " + describe_row(*s.nearest.row) + " | distance " +
              fmt_distance(s.nearest.distance);
    } else {
      line += " | row (none)";
    }
    if (ov.route != Route::automatic) line += " | route " + std::string(to_string(ov.route));
  }
  for (const WalkStep& w : trace.steps) {
    if (!w.reason.empty()) line += " | skipped " + w.spelling + " (" + w.reason + ")";
  }
  line += " | choice " + std::string(s.candidate->spelling());
  if (s.source == Source::last_resort) line += " (last resort)";
  return line;
}

std::string format_explain(const Key& key, const Table* table, const Selection& s,
                           const Trace& trace, const Overrides& ov) {
  std::string out = "key: " + to_string(key) + "\n";
  out += "table: " + (table ? table->path : std::string("(none)")) + "\n";
  if (table) {
    for (const std::string& n : table->notes) out += "note: " + n + "\n";
  }
  if (!ov.pin.empty()) out += "pin: " + std::string(ov.pin) + "\n";
  if (ov.route != Route::automatic) out += "route: " + std::string(to_string(ov.route)) + "\n";
  if (ov.pin.empty()) {
    if (s.nearest.row) {
      out += "row: " + describe_row(*s.nearest.row) + "\n";
      out += "distance: " + fmt_distance(s.nearest.distance) + " (L1 over log2 m, n, k, batch)\n";
    } else {
      out += "row: none for " + format_dtype(key.dtype) + " " + std::string(to_string(key.ta)) +
             " " + std::string(to_string(key.tb)) + " " + std::string(to_string(key.layout)) + "\n";
    }
  }
  out += "walk:\n";
  std::size_t width = 0;
  for (const WalkStep& w : trace.steps) width = std::max(width, w.spelling.size());
  for (const WalkStep& w : trace.steps) {
    std::string pad(width - w.spelling.size() + 2, ' ');
    out += "  " + w.spelling + pad + (w.reason.empty() ? "runs" : "skipped: " + w.reason) + "  [" +
           w.from + "]\n";
  }
  out += "choice: " + std::string(s.candidate->spelling()) + "\n";
  return out;
}

}  // namespace gemmroute
