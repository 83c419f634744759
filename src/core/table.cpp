// Table parsing, validation, writing and nearest-row look-up. Format: docs/table-format.md.
#include "core/table.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "core/backend.hpp"
#include "core/files.hpp"
#include "core/model.hpp"
#include "core/spelling.hpp"
#include "gemmroute/error.hpp"

namespace gemmroute {
namespace {

constexpr std::string_view kMagic = "gemmroute-table";
constexpr std::string_view kPlusMinus = "\xC2\xB1";  // UTF-8 '±'
constexpr std::string_view kHeaderFields[] = {"tuner", "spec", "date", "method", "clocks"};

using Token = Field;

std::vector<Token> split(std::string_view line) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) out.push_back({line.substr(start, i - start), static_cast<int>(start) + 1});
  }
  return out;
}

int first_control(std::string_view line) {
  for (std::size_t i = 0; i < line.size(); ++i) {
    auto c = static_cast<unsigned char>(line[i]);
    if ((c < 0x20 && c != '\t') || c == 0x7f) return static_cast<int>(i) + 1;
  }
  return 0;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A finite, non-negative decimal number at the start of s; advances s past it.
bool take_number(std::string_view& s, double& value) {
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(begin, end, value, std::chars_format::general);
  if (ec != std::errc() || ptr == begin) return false;
  // from_chars accepts "nan" and "inf" spellings in some modes; reject anything not finite.
  if (!std::isfinite(value) || value < 0) return false;
  s.remove_prefix(static_cast<std::size_t>(ptr - begin));
  return true;
}

bool parse_entry(const Token& tok, Entry& e, Diagnostic& d) {
  e.column = tok.column;
  std::string_view text = tok.text;
  std::size_t at = text.find('@');
  std::string_view spell = text.substr(0, at);
  std::size_t col = 0;
  std::string why;
  auto parsed = parse_spelling(spell, &col, &why);
  if (!parsed) {
    d = {0, tok.column + static_cast<int>(col), "bad spelling: " + why};
    return false;
  }
  e.spelling = parsed->str();
  if (at == std::string_view::npos) return true;
  std::string_view t = text.substr(at + 1);
  const int t_col = tok.column + static_cast<int>(at) + 1;
  // Reports at the start of `rest`, a suffix of the timing text.
  auto bad_at = [&](std::string_view rest, const char* message) {
    int offset = static_cast<int>(text.size() - at - 1 - rest.size());
    d = {0, t_col + offset, message};
    return false;
  };
  auto bad = [&](const char* message) { return bad_at(t, message); };
  const std::string_view time_text = t;
  double median = 0;
  if (!take_number(t, median)) return bad("expected a finite, non-negative time after '@'");
  double scale = 0;
  if (t.starts_with("ns"))
    scale = 1e-3;
  else if (t.starts_with("us"))
    scale = 1;
  else if (t.starts_with("ms"))
    scale = 1e3;
  else if (t.starts_with("s"))
    scale = 1e6;
  else
    return bad("expected a unit: ns, us, ms or s");
  t.remove_prefix(t.starts_with("s") ? 1 : 2);
  if (median <= 0 || median * scale > kMaxTableTimeUs) {
    return bad_at(time_text, "time out of range (0, 1e12 us]");
  }
  if (t.starts_with(kPlusMinus))
    t.remove_prefix(kPlusMinus.size());
  else if (t.starts_with("+-"))
    t.remove_prefix(2);
  else
    return bad("expected '\xC2\xB1' (or '+-') and a spread after the time");
  const std::string_view spread_text = t;
  double spread = 0;
  if (!take_number(t, spread) || spread > kMaxTableSpreadPct) {
    return bad_at(spread_text, "expected a finite spread in percent, at most 1e6");
  }
  if (!t.starts_with("%")) return bad("expected '%' after the spread");
  t.remove_prefix(1);
  if (t.starts_with("=")) {
    t.remove_prefix(1);
    int group = 0;
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), group);
    if (ec != std::errc() || ptr == t.data() || group < 1) {
      return bad_at(t, "expected a bit-identity group number from 1 after '='");
    }
    t.remove_prefix(static_cast<std::size_t>(ptr - t.data()));
    e.bits = group;
  }
  if (!t.empty()) return bad("unexpected text after the entry");
  e.timed = true;
  e.median_us = median * scale;
  e.spread_pct = spread;
  return true;
}

// Bit-identity groups (format 2): numbered 1, 2, ... in the order they first appear in the
// row, so one grouping has one spelling. Reports the first problem through error(col, text).
template <class ErrorFn>
bool check_bits_groups(const Row& row, int version, ErrorFn&& error) {
  int next = 1;
  for (const Entry& e : row.entries) {
    if (e.bits == 0) continue;
    if (version < 2) {
      error(e.column, "bit-identity groups ('=N' after an entry) need 'gemmroute-table 2'");
      return false;
    }
    if (e.bits > next) {
      error(e.column, "bit-identity group =" + std::to_string(e.bits) +
                          " before =" + std::to_string(next) +
                          ": groups are numbered 1, 2, ... in order of first appearance");
      return false;
    }
    if (e.bits == next) ++next;
  }
  return true;
}

}  // namespace

std::string_view to_string(Origin origin) noexcept {
  switch (origin) {
    case Origin::measured:
      return "measured";
    case Origin::refined:
      return "refined";
    case Origin::recorded:
      return "recorded";
    case Origin::transcribed:
      return "transcribed";
  }
  return "?";
}

std::optional<Origin> parse_origin(std::string_view t) noexcept {
  for (Origin o : {Origin::measured, Origin::refined, Origin::recorded, Origin::transcribed}) {
    if (t == to_string(o)) return o;
  }
  return std::nullopt;
}

const std::string* Table::header_field(std::string_view key) const {
  for (const auto& [k, v] : header) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::size_t bucket_index(const Key& k) noexcept {
  return ((dtype_index(k.dtype) * 3 + static_cast<std::size_t>(k.ta)) * 3 +
          static_cast<std::size_t>(k.tb)) *
             2 +
         static_cast<std::size_t>(k.layout);
}

double log2_size(std::int64_t v) noexcept {
  return std::log2(static_cast<double>(v < 1 ? 1 : v));
}

void Table::index() {
  static std::atomic<std::uint64_t> next_id{1};
  index_id = next_id.fetch_add(1, std::memory_order_relaxed);
  model = std::make_shared<ModelState>();
  for (auto& b : buckets) b.clear();
  slots.clear();
  std::map<std::string_view, std::uint32_t> slot_of;
  for (std::uint32_t i = 0; i < rows.size(); ++i) {
    Row& r = rows[i];
    const Key& k = r.key;
    Indexed x{i, {log2_size(k.m), log2_size(k.n), log2_size(k.k), log2_size(k.batch)}};
    x.timed = !r.entries.empty();
    x.launch_bound = gemmroute::launch_bound(k, reach);
    x.log2_best = std::numeric_limits<double>::infinity();
    for (std::uint32_t j = 0; j < r.entries.size(); ++j) {
      Entry& e = r.entries[j];
      auto [it, fresh] = slot_of.emplace(e.spelling, static_cast<std::uint32_t>(slots.size()));
      if (fresh) slots.push_back({i, j, 0});
      e.slot = it->second;
      e.log2_us = e.timed ? std::log2(e.median_us) : 0;
      x.timed = x.timed && e.timed;
      if (e.timed) x.log2_best = std::min(x.log2_best, e.log2_us);
    }
    if (!x.timed) x.log2_best = 0;
    buckets[bucket_index(k)].push_back(x);
  }
  // Tie positions: the backend's order; spellings it does not list follow, in table order.
  for (std::size_t s = 0; s < slots.size(); ++s) {
    auto it = std::find(tie_order.begin(), tie_order.end(), slot_entry(s).spelling);
    slots[s].tie_position = static_cast<std::uint32_t>(
        it != tie_order.end() ? it - tie_order.begin() : tie_order.size() + s);
  }
  for (auto& b : buckets) {
    std::sort(b.begin(), b.end(), [](const Indexed& x, const Indexed& y) {
      return x.log2_sizes[0] < y.log2_sizes[0] ||
             (x.log2_sizes[0] == y.log2_sizes[0] && x.row < y.row);
    });
  }
}

Table parse_table(std::string_view text, std::string path, std::vector<Diagnostic>& diags) {
  Table table;
  table.path = std::move(path);
  bool seen_magic = false, seen_row = false;
  int version = kTableFormatVersion;
  std::vector<std::string_view> lines;
  for (std::size_t pos = 0;;) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) {
      lines.push_back(text.substr(pos));
      break;
    }
    lines.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  int line_no = 0;
  for (std::string_view line : lines) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    auto error = [&](int col, std::string message) {
      diags.push_back({line_no, col, std::move(message)});
    };
    if (int c = first_control(line)) {
      error(c, "control character (binary data?)");
      continue;
    }
    std::string_view content = trim(line);
    if (content.empty() || content.front() == '#') continue;
    auto toks = split(line);
    if (!seen_magic) {
      seen_magic = true;
      if (toks[0].text != kMagic) {
        error(toks[0].column, "expected '" + std::string(kMagic) + " " +
                                  std::to_string(kTableFormatVersion) + "' first (or version 1)");
        continue;
      }
      if (toks.size() == 2 && toks[1].text == "1") {
        version = 1;
      } else if (toks.size() != 2 || toks[1].text != std::to_string(kTableFormatVersion)) {
        error(toks.size() > 1 ? toks[1].column : toks[0].column + static_cast<int>(kMagic.size()),
              "unsupported format version (this build reads 1 and " +
                  std::to_string(kTableFormatVersion) + ")");
      }
      continue;
    }
    if (toks[0].text == "row") {
      seen_row = true;
      if (toks.size() < 11) {
        int col = static_cast<int>(line.size()) + 1;
        error(col, "truncated row: expected 'row dtype ta tb layout m n k batch origin entry...'");
        continue;
      }
      Row row;
      row.line = line_no;
      KeyError bad_key;
      auto key = parse_key(std::span(toks).subspan(1, 8), RealC::reject, &bad_key);
      if (!key) {
        error(bad_key.column, bad_key.message());
        continue;
      }
      row.key = *key;
      bool ok = true;
      if (auto origin = parse_origin(toks[9].text)) {
        row.origin = *origin;
      } else {
        error(toks[9].column, "unknown origin (measured, refined, recorded, transcribed)");
        continue;
      }
      for (std::size_t i = 10; i < toks.size() && ok; ++i) {
        Entry e;
        Diagnostic d;
        if (!parse_entry(toks[i], e, d)) {
          error(d.column, d.message);
          ok = false;
        } else if (row.origin != Origin::transcribed && !e.timed) {
          error(toks[i].column,
                "a measured, refined or recorded entry needs its time (spelling@time±spread%)");
          ok = false;
        } else {
          row.entries.push_back(std::move(e));
        }
      }
      if (ok) ok = check_bits_groups(row, version, error);
      if (ok) table.rows.push_back(std::move(row));
      continue;
    }
    // Header field: "<name> <value>".
    std::string_view name = toks[0].text;
    if (seen_row) {
      error(toks[0].column, "header field after the first row");
      continue;
    }
    std::string value(
        trim(line.substr(static_cast<std::size_t>(toks[0].column - 1) + name.size())));
    if (name.starts_with("fingerprint.")) {
      std::string_view field = name.substr(12);
      auto spelled = parse_spelling(field);
      if (field.empty() || !spelled || !spelled->params.empty()) {
        error(toks[0].column + 12, "bad fingerprint field name");
        continue;
      }
      if (table.fingerprint.get(field)) {
        error(toks[0].column, "fingerprint field given twice");
        continue;
      }
      if (value.empty()) {
        error(static_cast<int>(line.size()) + 1, "empty fingerprint value");
        continue;
      }
      table.fingerprint.set(std::string(field), std::move(value));
      continue;
    }
    bool known = false;
    for (auto f : kHeaderFields) known = known || name == f;
    if (!known) {
      error(toks[0].column, "unknown header field '" + std::string(name.substr(0, 40)) +
                                "' (fingerprint.*, tuner, spec, date, method, clocks, row)");
      continue;
    }
    if (table.header_field(name)) {
      error(toks[0].column, "header field given twice");
      continue;
    }
    table.header.emplace_back(std::string(name), std::move(value));
  }
  if (!seen_magic) {
    diags.push_back({1, 1,
                     "empty table: expected '" + std::string(kMagic) + " " +
                         std::to_string(kTableFormatVersion) + "'"});
  } else if (!seen_row && diags.empty()) {
    // Loaded, it would send every call to the last resort, silently.
    diags.push_back({1, 1, "no rows: a table holds at least one row"});
  }
  // Duplicates among the rows that parsed, reported beside any syntax error, in line order.
  std::map<std::string, int> seen;
  for (const Row& row : table.rows) {
    auto [it, fresh] = seen.emplace(to_string(row.key), row.line);
    if (!fresh) {
      diags.push_back({row.line, 1, "duplicate key, first at line " + std::to_string(it->second)});
    }
  }
  std::stable_sort(diags.begin(), diags.end(),
                   [](const Diagnostic& a, const Diagnostic& b) { return a.line < b.line; });
  return table;
}

void validate_table(Table& table, const Backend& backend, std::vector<Diagnostic>& diags) {
  table.tie_order.clear();
  for (const Candidate* c : backend.candidates()) table.tie_order.emplace_back(c->spelling());
  table.reach = backend.reach();
  table.vendor = {};
  for (const Row& row : table.rows) {
    std::string& v = table.vendor[dtype_index(row.key.dtype)];
    if (v.empty()) v = backend.vendor_default(row.key.dtype).spelling();
  }
  const std::string* be = table.fingerprint.get("backend");
  if (!be) {
    diags.push_back({1, 1, "missing 'fingerprint.backend'"});
  } else if (*be != backend.name()) {
    diags.push_back({1, 1,
                     "table is for backend '" + *be + "', this device's backend is '" +
                         std::string(backend.name()) + "'"});
  }
  auto mismatched = mismatched_fields(table.fingerprint, backend.fingerprint());
  for (const auto& f : mismatched) {
    if (f == "backend") continue;
    const std::string* mine = backend.fingerprint().get(f);
    table.notes.push_back("fingerprint." + f + " is '" + *table.fingerprint.get(f) +
                          "' in the table, '" + (mine ? *mine : std::string("(none)")) +
                          "' on this device");
  }
  // Each distinct spelling is resolved once; candidates made for it are kept by the table.
  std::map<std::string, Resolved, std::less<>> by_spelling;
  auto resolved = [&](const std::string& spelling) -> const Resolved& {
    auto it = by_spelling.find(spelling);
    if (it == by_spelling.end()) {
      it = by_spelling.emplace(spelling, backend.resolve(spelling)).first;
      if (it->second.owned) table.owned.push_back(it->second.owned);
    }
    return it->second;
  };
  for (Row& row : table.rows) {
    std::map<std::string_view, int> spelled;
    for (Entry& e : row.entries) {
      Resolved r = resolved(e.spelling);
      e.candidate = r.candidate;
      if (!e.candidate) {
        diags.push_back({row.line, e.column, r.error});
        continue;
      }
      if (!spelled.emplace(e.spelling, e.column).second) {
        diags.push_back({row.line, e.column, "spelling '" + e.spelling + "' twice in one row"});
      }
      for (const auto& f : mismatched) {
        if (f != "backend" && backend.depends_on(*e.candidate, f)) {
          e.unrunnable = "measured with another fingerprint." + f;
          break;
        }
      }
    }
  }
}

std::string format_diagnostic(const std::string& path, const Diagnostic& d) {
  return path + ":" + std::to_string(d.line) + ":" + std::to_string(d.column) + ": " + d.message;
}

Table load_table(const std::string& path, const Backend& backend) {
  std::string text, why;
  if (!read_input_file(path, text, why)) {
    throw Error(Errc::bad_table, "table", path + ":0:0: the table file: " + why);
  }
  std::vector<Diagnostic> diags;
  Table table = parse_table(text, path, diags);
  if (diags.empty()) validate_table(table, backend, diags);
  if (!diags.empty()) {
    std::string message;
    for (const auto& d : diags) {
      if (!message.empty()) message += '\n';
      message += format_diagnostic(path, d);
    }
    throw Error(Errc::bad_table, "table", message);
  }
  table.index();
  return table;
}

std::string format_entry(const Entry& e) {
  if (!e.timed) return e.spelling;
  char buf[96];
  std::snprintf(buf, sizeof buf, "@%.6gus\xC2\xB1%.2f%%", e.median_us, e.spread_pct);
  std::string s = e.spelling + buf;
  if (e.bits > 0) s += "=" + std::to_string(e.bits);
  return s;
}

std::string write_table(const Table& t) {
  // Version 1 unless some entry records its bit-identity group, so tables without groups stay
  // readable by builds that know only version 1.
  bool groups = false;
  for (const Row& r : t.rows) {
    for (const Entry& e : r.entries) groups = groups || (e.timed && e.bits > 0);
  }
  std::string s =
      std::string(kMagic) + " " + (groups ? std::to_string(kTableFormatVersion) : "1") + "\n";
  for (const auto& [k, v] : t.fingerprint.fields) s += "fingerprint." + k + " " + v + "\n";
  for (const auto& [k, v] : t.header) s += k + " " + v + "\n";
  for (const Row& r : t.rows) {
    s += "row " + to_string(r.key) + " " + std::string(to_string(r.origin));
    for (const Entry& e : r.entries) {
      s += ' ';
      s += format_entry(e);
    }
    s += "\n";
  }
  return s;
}

double key_distance(const Key& a, const Key& b) noexcept {
  return std::abs(log2_size(a.m) - log2_size(b.m)) + std::abs(log2_size(a.n) - log2_size(b.n)) +
         std::abs(log2_size(a.k) - log2_size(b.k)) +
         std::abs(log2_size(a.batch) - log2_size(b.batch));
}

namespace {

// The nearest row so far: what it is ranked by, its distance, and the bucket it came from.
struct Scan {
  Nearest found;
  double score = 0;  // the distance, with m, n and the batch weighted among launch-bound rows
  std::size_t bucket = 0;
};

// Offers the rows of one bucket, each `offset` farther than its sizes say. `best` is replaced by
// a row of lower score, or by one of equal score in the same bucket that is lexicographically
// smaller: between buckets, the one scanned first keeps a tie. Among launch-bound rows m, n
// and the batch count Reach::launch_size_weight of their distance in the score; the distance
// kept is the whole one.
void scan_bucket(const Table& table, std::size_t bucket_id, const double q[4], double offset,
                 bool launch_only, Scan& best) noexcept {
  const auto& bucket = table.buckets[bucket_id];
  const double w = launch_only ? table.reach.launch_size_weight : 1.0;
  auto consider = [&](const Table::Indexed& x) {
    if (launch_only && !x.launch_bound) return;
    const Row& r = table.rows[x.row];
    const double dm = std::abs(q[0] - x.log2_sizes[0]), dn = std::abs(q[1] - x.log2_sizes[1]),
                 dk = std::abs(q[2] - x.log2_sizes[2]), db = std::abs(q[3] - x.log2_sizes[3]);
    const double score = offset + (w * dm + w * dn + dk + w * db);
    auto lex = [](const Key& k) { return std::tie(k.m, k.n, k.k, k.batch); };
    if (!best.found.row || score < best.score ||
        (score == best.score && bucket_id == best.bucket &&
         lex(r.key) < lex(best.found.row->key))) {
      // The same sum, in the same order, as key_distance.
      best = {{&r, offset + (dm + dn + dk + db)}, score, bucket_id};
    }
  };
  // The bucket is sorted by log2 m, and offset + w |log2 m - row's| alone bounds the score
  // from below: walk outwards from the key's m and stop each way once that bound exceeds the
  // best score (rows at an equal bound may still tie, so they are visited).
  const double lm = q[0];
  auto mid =
      std::lower_bound(bucket.begin(), bucket.end(), lm,
                       [](const Table::Indexed& x, double v) { return x.log2_sizes[0] < v; });
  for (auto it = mid; it != bucket.end(); ++it) {
    if (best.found.row && offset + w * (it->log2_sizes[0] - lm) > best.score) break;
    consider(*it);
  }
  for (auto it = mid; it != bucket.begin();) {
    --it;
    if (best.found.row && offset + w * (lm - it->log2_sizes[0]) > best.score) break;
    consider(*it);
  }
}

Nearest scan_nearest(const Table& table, const Key& key, bool launch_only) noexcept {
  Scan best;
  const double q[4] = {log2_size(key.m), log2_size(key.n), log2_size(key.k), log2_size(key.batch)};
  scan_bucket(table, bucket_index(key), q, 0, launch_only, best);
  const double step = table.reach.form_step;
  if (!std::isfinite(step)) return best.found;
  // The key's scalar in the other forms and layouts, fewest differing fields first, then in
  // (ta, tb, layout) order; once the offset alone is no nearer than the best, nothing farther
  // can win.
  for (int differing = 1; differing <= 3; ++differing) {
    const double offset = step * differing;
    if (best.found.row && offset >= best.score) break;
    for_each_bucket_differing(key, differing, [&](std::size_t bucket) {
      scan_bucket(table, bucket, q, offset, launch_only, best);
    });
  }
  return best.found;
}

// Direct-mapped, per thread: 64 slots of (table index id, key) -> (row, distance).
struct Memo {
  std::uint64_t table_id = 0;  // 0: empty
  Key key;
  std::uint32_t row = 0;  // index into rows (not a pointer: copies of a table share the id)
  bool found = false;
  double distance = 0;
};

// local-dynamic: the library is built position-independent, where each access to a
// general-dynamic thread_local is a call (__tls_get_addr) that the compiler spills registers
// around; one module base per function instead (in an executable the linker relaxes either
// to a plain %fs offset).
[[gnu::tls_model("local-dynamic")]] thread_local std::array<Memo, 64> memo;

// A miss: the scan, remembered in the slot. Out of line, so a hit pays for none of it.
[[gnu::noinline]] Nearest scan_and_remember(const Table& table, const Key& key, Memo& slot) {
  // A launch-bound key takes the nearest launch-bound row where there is one: a row moving more
  // speaks for another regime, however near its sizes.
  Nearest best;
  if (launch_bound(key, table.reach)) best = scan_nearest(table, key, true);
  if (!best.row) best = scan_nearest(table, key, false);
  if (table.index_id != 0) {
    const auto row = best.row ? static_cast<std::uint32_t>(best.row - table.rows.data()) : 0u;
    slot = {table.index_id, key, row, best.row != nullptr, best.distance};
  }
  return best;
}

}  // namespace

bool launch_bound(const Key& key, const Reach& reach) noexcept {
  if (reach.launch_depth <= 0 || key.k > reach.launch_depth) return false;  // 0: the rule is off
  const double items = double(key.m) * double(key.k) + double(key.k) * double(key.n) +
                       double(key.m) * double(key.n);
  const double bytes = double(key.batch) * items * double(size_of(key.dtype.in));
  return bytes <= reach.launch_bytes;
}

Nearest nearest_row(const Table& table, const Key& key) noexcept {
  Memo& slot = memo[key_memo_slot(key)];
  if (table.index_id != 0 && slot.table_id == table.index_id && same_key(slot.key, key))
      [[likely]] {
    return {slot.found ? &table.rows[slot.row] : nullptr, slot.distance};
  }
  return scan_and_remember(table, key, slot);
}

}  // namespace gemmroute
