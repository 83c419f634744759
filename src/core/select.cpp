#include "core/select.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/model.hpp"
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

std::string fmt_time(double us) {
  char buf[32];
  if (us >= 1e4)
    std::snprintf(buf, sizeof buf, "%.4g ms", us / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.4g us", us);
  return buf;
}

// The rows a prediction used and every candidate's predicted time, in walk order.
std::string explain_predicted(const Table& table, const Key& key) {
  const PredictionDetail d = explain_prediction(table, key);
  char buf[160];
  std::snprintf(buf, sizeof buf, "weight 1 / (distance + %g)", kCornerOffset);
  std::string out = "predicted from " + std::to_string(d.corners.size()) +
                    " rows (the nearest timed row in each of the 16 orthants around the key; " +
                    buf + "):\n";
  for (const auto& c : d.corners) {
    std::snprintf(buf, sizeof buf, "  distance %.4f  weight %.3f  ", c.distance, c.weight);
    out += buf + describe_row(*c.row) + "\n";
  }
  std::size_t width = 0;
  for (const auto& c : d.candidates)
    width = std::max(width, table.slot_entry(c.slot).spelling.size());
  std::snprintf(buf, sizeof buf, "%g%%", 100 * kPredictMargin);
  out += std::string(
             "prediction (time per call; a later candidate displaces an earlier one only "
             "when predicted faster by more than ") +
         buf + "; walk order):\n";
  for (const auto& c : d.candidates) {
    const std::string& spelling = table.slot_entry(c.slot).spelling;
    std::snprintf(buf, sizeof buf, "%*s measured at %.0f%% of the weight%s", 12,
                  fmt_time(c.predicted_us).c_str(), 100 * c.presence,
                  c.presence < kTrustedPresence ? " (ranked last: under half)" : "");
    out += "  " + spelling + std::string(width - spelling.size() + 1, ' ') + buf + "\n";
  }
  return out;
}

// What explain shows of a modelled look-up: every candidate's trend, correction and prediction.
std::string explain_modelled(const Table& table, const Key& key) {
  ModelDetail d;
  Lookup l;
  model_look_up(table, key, l, &d);
  char buf[240];
  std::snprintf(buf, sizeof buf,
                "modelled: each candidate's trend over its rows of the dtype (launch + bytes + "
                "flops + k terms),\n  times the geometric mean of time / trend at its %d nearest "
                "rows (weight 1 / (distance + %g)^2);\n",
                kModelNeighbours, kModelOffset);
  std::string out = buf;
  std::snprintf(buf, sizeof buf,
                "  ahead of the vendor only where predicted faster by exp(%g x the distance of "
                "its nearest row); walk order:\n",
                kModelGrowth);
  out += buf;
  std::size_t width = 0;
  for (const auto& c : d.candidates)
    width = std::max(width, table.slot_entry(c.slot).spelling.size());
  for (const auto& c : d.candidates) {
    const std::string& spelling = table.slot_entry(c.slot).spelling;
    std::snprintf(buf, sizeof buf, "%*s  trend %s x %.3f, %d rows, nearest at %.2f%s", 10,
                  fmt_time(c.predicted_us).c_str(), fmt_time(c.trend_us).c_str(), c.correction,
                  c.rows, c.nearest,
                  std::int64_t(c.slot) == d.vendor_slot ? " (the vendor)"
                  : c.guarded ? " (after the vendor: not faster by the guard's factor)"
                              : "");
    out += "  " + spelling + std::string(width - spelling.size() + 1, ' ') + buf + "\n";
  }
  return out;
}

// Out of line, so the walk's note() costs one test when nothing is traced.
[[gnu::noinline]] void add_step(Trace& trace, std::string_view spelling, const char* reason,
                                const char* from) {
  trace.steps.push_back({std::string(spelling), reason ? reason : "", from});
}

// The row's bit-identity groups for explain: one line per group, or why there are none.
std::string format_bits(const Row& row) {
  int groups = 0;
  for (const Entry& e : row.entries) groups = std::max(groups, e.bits);
  if (groups == 0) {
    // Hand-written rows were never measured, so there is nothing to say about them.
    if (row.origin == Origin::transcribed) return {};
    return "bits: not recorded for this row (the table has no bit-identity groups)\n";
  }
  std::string out = "bits: entries that gave bit-identical C in the tuner's check:\n";
  for (int g = 1; g <= groups; ++g) {
    out += "  =" + std::to_string(g) + " ";
    for (const Entry& e : row.entries) {
      if (e.bits == g) out += " " + e.spelling;
    }
    out += "\n";
  }
  bool unknown = false;
  for (const Entry& e : row.entries) unknown = unknown || e.bits == 0;
  if (unknown) {
    out += "  not recorded:";
    for (const Entry& e : row.entries) {
      if (e.bits == 0) out += " " + e.spelling;
    }
    out += "\n";
  }
  return out;
}

// Why deterministic mode skips a candidate.
constexpr const char* kNotReproducible =
    "not reproducible run to run (a split-K reduction): deterministic mode";

// The row's entry of the backend's vendor default for its dtype, when timed (the reach rule
// compares against it).
const Entry* vendor_entry(const Row& row, const Backend& backend) {
  const std::string_view vendor = backend.vendor_default(row.key.dtype).spelling();
  for (const Entry& e : row.entries) {
    if (e.spelling == vendor) return e.timed ? &e : nullptr;
  }
  return nullptr;
}

}  // namespace

Selection select(const Problem& problem, const Key& key, const Table* table, const Backend& backend,
                 const Exec& exec, const Overrides& ov, Trace* trace, const Lookup* lookup) {
  Selection s;  // every return is this one, so the caller's is filled in place
  auto note = [trace](std::string_view spelling, const char* reason, const char* from) {
    if (trace) add_step(*trace, spelling, reason, from);
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
    if (ov.deterministic && !c->reproducible(problem)) {
      throw Error(Errc::not_runnable, "pin",
                  "pin '" + std::string(ov.pin) + "' is " + kNotReproducible);
    }
    Verdict v = runnable(*c, problem, exec);
    if (!v.ok) {
      throw Error(
          Errc::not_runnable, "pin",
          "pin '" + std::string(ov.pin) + "' cannot run " + to_string(key) + ": " + v.reason);
    }
    if (trace) note(c->spelling(), nullptr, "pin");  // spelling() is a virtual call
    s.candidate = c;
    s.source = Source::pin;
    return s;
  }

  if (table) {
    if (lookup) {
      s.lookup = *lookup;
    } else {
      look_up(*table, key, ov.selector, s.lookup);  // in place: nothing zeroed or copied
    }
  }
  const char* from = s.lookup.basis != Basis::predicted ? "row"
                     : ov.selector == Selector::model   ? "model"
                                                        : "predicted";
  const Entry* vendor = s.lookup.basis == Basis::nearest && table->reach.vendor_growth > 0
                            ? vendor_entry(*s.lookup.row, backend)
                            : nullptr;
  const char* discount = "";  // why the distance the rule counts is less than the row's
  double reach_distance = s.lookup.distance;
  if (vendor) {
    const Key& r = s.lookup.row->key;
    const Reach& reach = table->reach;
    if (launch_bound(key, reach) && launch_bound(r, reach)) {
      reach_distance = std::abs(log2_size(key.k) - log2_size(r.k));
      discount = " (both launch-bound: only k counts)";
    } else if (reach.same_item_batch != 1 && r.ta == key.ta && r.tb == key.tb &&
               r.layout == key.layout && r.m == key.m && r.n == key.n && r.k == key.k &&
               std::min(r.batch, key.batch) >= reach.same_item_min_batch) {
      const double batch_steps = std::abs(log2_size(key.batch) - log2_size(r.batch));
      reach_distance -= (1 - reach.same_item_batch) * batch_steps;
      discount = " (the key's items: the batch counts less)";
    }
  }
  for (std::size_t i = 0, n = s.lookup.size(); i < n; ++i) {
    const Entry& e = s.lookup.entry(*table, i);
    const Candidate& c = *e.candidate;
    if (!e.unrunnable.empty()) {
      note(e.spelling, e.unrunnable.c_str(), from);
      continue;
    }
    if (vendor && &e != vendor && e.timed) {
      const double needed =
                       (1 + kPredictMargin) * std::exp(table->reach.vendor_growth * reach_distance),
                   measured = vendor->median_us / e.median_us;
      if (measured <= needed) {
        if (trace) {
          char why[200];
          std::snprintf(why, sizeof why,
                        "out of the row's reach: at distance %.2f%s it must beat %s by %.2fx, "
                        "measured %.2fx",
                        reach_distance, discount, vendor->spelling.c_str(), needed, measured);
          note(e.spelling, why, from);
        }
        continue;
      }
    }
    if (const char* why = route_refusal(c, ov.route)) {
      note(e.spelling, why, from);
      continue;
    }
    Verdict v = runnable(c, problem, exec);
    if (v.ok && ov.deterministic && !c.reproducible(problem)) v = Verdict::no(kNotReproducible);
    note(e.spelling, v.ok ? nullptr : v.reason, from);
    if (v.ok) {
      s.candidate = &c;
      s.source = Source::table;
      return s;
    }
  }
  // The generic native kernel, the vendor's own choice for the dtype, then the vendor's plain
  // call where that is another candidate.
  const Candidate* vendor_default = &backend.vendor_default(key.dtype);
  const Candidate* vendor_last = &backend.last_resort_vendor();
  const Candidate* resorts[] = {&backend.last_resort_native(), vendor_default, vendor_last};
  const std::size_t n_resorts = vendor_default == vendor_last ? 2 : 3;
  for (std::size_t r = 0; r < n_resorts; ++r) {
    const Candidate* c = resorts[r];
    if (const char* why = route_refusal(*c, ov.route)) {
      note(c->spelling(), why, "last resort");
      continue;
    }
    Verdict v = runnable(*c, problem, exec);
    if (v.ok && ov.deterministic && !c->reproducible(problem)) v = Verdict::no(kNotReproducible);
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
    const Lookup& l = s.lookup;
    if (l.basis == Basis::predicted && ov.selector == Selector::model) {
      line += " | modelled " + std::to_string(l.corners) + " candidates, nearest row " +
              describe_row(*l.row) + " | distance " + fmt_distance(l.distance);
    } else if (l.basis == Basis::predicted) {
      line += " | predicted from " + std::to_string(l.corners) + " rows, nearest " +
              describe_row(*l.row) + " | distance " + fmt_distance(l.distance);
    } else if (l.row) {
      line += " | row " + describe_row(*l.row) + " | distance " + fmt_distance(l.distance);
    } else {
      line += " | row (none)";
    }
    if (ov.route != Route::automatic) line += " | route " + std::string(to_string(ov.route));
    if (ov.deterministic) line += " | deterministic";
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
  if (ov.deterministic) out += "deterministic: only candidates reproducible run to run\n";
  if (ov.pin.empty()) {
    const Lookup& l = s.lookup;
    out += "selection: " + std::string(to_string(ov.selector)) +
           " (GEMMROUTE_SELECT=nearest|predict|model; an exact row is walked first in each)\n";
    if (l.basis == Basis::predicted && ov.selector == Selector::model) {
      out += explain_modelled(*table, key);
    } else if (l.basis == Basis::predicted) {
      out += explain_predicted(*table, key);
    } else if (l.row) {
      out += "row: " + describe_row(*l.row) + (l.basis == Basis::exact ? " (exact)" : "") + "\n";
      out += "distance: " + fmt_distance(l.distance) + " (L1 over log2 m, n, k, batch";
      if (std::isfinite(table->reach.form_step)) {
        char buf[96];
        std::snprintf(buf, sizeof buf, ", + %g for each of ta, tb, layout that differs",
                      table->reach.form_step);
        out += buf;
      }
      out += ")\n";
      if (l.basis != Basis::exact && launch_bound(key, table->reach) &&
          launch_bound(l.row->key, table->reach)) {
        char buf[224];
        std::snprintf(buf, sizeof buf,
                      "launch-bound: the key moves at most %.0f KiB with k <= %lld: the nearest "
                      "row that does too (m, n and batch at %g of their distance), and only k "
                      "counts in the reach rule\n",
                      table->reach.launch_bytes / 1024,
                      static_cast<long long>(table->reach.launch_depth),
                      table->reach.launch_size_weight);
        out += buf;
      }
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
  // A row's bit-identity groups speak of its own entries: shown when the walk was a row's.
  if (ov.pin.empty() && s.lookup.row && s.lookup.basis != Basis::predicted) {
    out += format_bits(*s.lookup.row);
  }
  out += "choice: " + std::string(s.candidate->spelling()) + "\n";
  return out;
}

}  // namespace gemmroute
