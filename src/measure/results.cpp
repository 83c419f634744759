#include "measure/results.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <system_error>

#include "core/files.hpp"
#include "core/spelling.hpp"
#include "gemmroute/error.hpp"

namespace gemmroute::measure {
namespace {

constexpr std::string_view kMagic = "gemmroute-results";

std::string quote(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '\n' || c == '\r') c = ' ';
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

struct CsvField {
  std::string text;
  int column;
};

// CSV fields with double-quote quoting; false on an unterminated quote.
bool split_csv(std::string_view line, std::vector<CsvField>& out) {
  out.clear();
  std::size_t i = 0;
  for (;;) {
    CsvField f{{}, static_cast<int>(i) + 1};
    if (i < line.size() && line[i] == '"') {
      ++i;
      for (;;) {
        if (i >= line.size()) return false;
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            f.text += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        f.text += line[i++];
      }
      // Anything between the closing quote and the comma is kept as is.
      while (i < line.size() && line[i] != ',') f.text += line[i++];
    } else {
      while (i < line.size() && line[i] != ',') f.text += line[i++];
    }
    out.push_back(std::move(f));
    if (i >= line.size()) return true;
    ++i;  // the comma
  }
}

template <class T>
bool to_number(const std::string& s, T& v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

std::string key_string(const Key& k) {
  return to_string(k);
}

std::string format_digest(std::uint64_t d) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(d));
  return buf;
}

// Empty text: no digest. Otherwise exactly 16 hex digits.
bool parse_digest(const std::string& s, std::optional<std::uint64_t>& d) {
  d.reset();
  if (s.empty()) return true;
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc() || p != s.data() + s.size() || s.size() != 16) return false;
  d = v;
  return true;
}

}  // namespace

const std::string* Results::meta_field(std::string_view name) const {
  for (const auto& [k, v] : meta) {
    if (k == name) return &v;
  }
  return nullptr;
}

std::string format_result_row(const ResultRow& r, int version) {
  char nums[96];
  std::snprintf(nums, sizeof nums, "%.6g,%.3f,%d", r.median_us, r.spread_pct, r.repetitions);
  std::string s = format_key(r.key, ',') + ",";
  s += quote(r.spelling) + "," + nums + "," + std::string(to_string(r.status)) + "," +
       std::string(to_string(r.origin)) + "," + quote(r.detail);
  if (version >= 2) s += "," + (r.digest ? format_digest(*r.digest) : std::string());
  return s;
}

std::string results_header(const Fingerprint& fp,
                           const std::vector<std::pair<std::string, std::string>>& meta) {
  std::string s = "# " + std::string(kMagic) + " " + std::to_string(kResultsFormatVersion) + "\n";
  for (const auto& [k, v] : fp.fields) s += "# fingerprint." + k + " " + v + "\n";
  for (const auto& [k, v] : meta) s += "# " + k + " " + v + "\n";
  s += std::string(kResultsColumns) + "\n";
  return s;
}

Results parse_results(std::string_view text, std::vector<Diagnostic>& diags) {
  Results res;
  std::size_t pos = 0;
  int line_no = 0;
  bool seen_magic = false, seen_columns = false;
  std::vector<CsvField> f;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) {
      res.truncated_tail = true;  // an interrupted write: not a row
      break;
    }
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    res.complete_bytes = pos;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    auto error = [&](int col, std::string message) {
      diags.push_back({line_no, col, std::move(message)});
    };
    if (line.front() == '#') {
      std::string_view body = line.substr(1);
      while (!body.empty() && body.front() == ' ') body.remove_prefix(1);
      std::size_t sp = body.find(' ');
      std::string name(body.substr(0, sp));
      std::string value(sp == std::string_view::npos ? "" : body.substr(sp + 1));
      if (!seen_magic) {
        if (name != kMagic) {
          error(1, "expected '# " + std::string(kMagic) + " " +
                       std::to_string(kResultsFormatVersion) + "' first");
          return res;
        }
        if (value != "1" && value != std::to_string(kResultsFormatVersion)) {
          error(3, "unsupported results format version '" + value + "' (this build reads 1 and " +
                       std::to_string(kResultsFormatVersion) + ")");
          return res;
        }
        res.version = value == "1" ? 1 : kResultsFormatVersion;
        seen_magic = true;
        continue;
      }
      if (name.starts_with("fingerprint.")) {
        if (!res.fingerprint.get(name.substr(12))) res.fingerprint.set(name.substr(12), value);
      } else if (!name.empty() && !res.meta_field(name)) {
        res.meta.emplace_back(name, value);
      }
      continue;
    }
    if (!seen_magic) {
      error(1, "expected '# " + std::string(kMagic) + " " + std::to_string(kResultsFormatVersion) +
                   "' first");
      return res;
    }
    const std::string_view columns = res.version == 1 ? kResultsColumnsV1 : kResultsColumns;
    if (!seen_columns) {
      if (line != columns) {
        error(1, "expected the column header '" + std::string(columns) + "'");
        return res;
      }
      seen_columns = true;
      continue;
    }
    if (!split_csv(line, f)) {
      error(static_cast<int>(line.size()) + 1, "unterminated quote");
      continue;
    }
    const std::size_t fields = res.version == 1 ? 15 : 16;
    if (f.size() != fields) {
      error(1, "expected " + std::to_string(fields) + " fields, found " + std::to_string(f.size()));
      continue;
    }
    ResultRow r;
    r.line = line_no;
    std::array<Field, 8> key_fields;
    for (std::size_t i = 0; i < key_fields.size(); ++i) key_fields[i] = {f[i].text, f[i].column};
    KeyError bad_key;
    auto key = parse_key(key_fields, RealC::reject, &bad_key);
    if (!key) {
      error(bad_key.column, bad_key.message());
      continue;
    }
    r.key = *key;
    if (!parse_spelling(f[8].text)) {
      error(f[8].column, "bad spelling");
      continue;
    }
    r.spelling = f[8].text;
    r.spelling_column = f[8].column;
    if (!to_number(f[9].text, r.median_us) || !std::isfinite(r.median_us) || r.median_us < 0) {
      error(f[9].column, "expected a time in microseconds");
      continue;
    }
    if (!to_number(f[10].text, r.spread_pct) || !std::isfinite(r.spread_pct) || r.spread_pct < 0) {
      error(f[10].column, "expected a spread in percent");
      continue;
    }
    if (!to_number(f[11].text, r.repetitions) || r.repetitions < 0) {
      error(f[11].column, "expected a repetition count");
      continue;
    }
    if (!parse_status(f[12].text, r.status)) {
      error(f[12].column, "unknown status (ok, failed, error, not-runnable)");
      continue;
    }
    if (r.status == Status::ok && (r.median_us <= 0 || r.repetitions < 1)) {
      error(f[9].column, "an ok row needs a positive time and repetitions");
      continue;
    }
    // What a table row can hold (core/table.hpp), checked here where the position is known.
    if (r.status == Status::ok && r.median_us > kMaxTableTimeUs) {
      error(f[9].column, "an ok row's time must be at most 1e12 us");
      continue;
    }
    if (r.status == Status::ok && r.spread_pct > kMaxTableSpreadPct) {
      error(f[10].column, "an ok row's spread must be at most 1e6 %");
      continue;
    }
    auto origin = parse_origin(f[13].text);
    if (!origin || *origin == Origin::transcribed) {
      error(f[13].column, "unknown origin (measured, refined, recorded)");
      continue;
    }
    r.origin = *origin;
    r.detail = f[14].text;
    if (fields == 16 && !parse_digest(f[15].text, r.digest)) {
      error(f[15].column, "expected an output digest of 16 hex digits, or nothing");
      continue;
    }
    res.rows.push_back(std::move(r));
  }
  if (!seen_magic && diags.empty()) {
    diags.push_back({1, 1, "empty results file"});
  }
  return res;
}

Results read_results(const std::string& path) {
  std::string text, why;
  if (!read_input_file(path, text, why)) {
    throw Error(Errc::invalid_argument, "results", path + ": the results file: " + why);
  }
  std::vector<Diagnostic> diags;
  Results r = parse_results(text, diags);
  if (!diags.empty()) {
    std::string message;
    for (const auto& d : diags) {
      if (!message.empty()) message += '\n';
      message += format_diagnostic(path, d);
    }
    throw Error(Errc::invalid_argument, "results", message);
  }
  return r;
}

std::vector<std::string> fingerprint_mismatch(const Fingerprint& file, const Fingerprint& device) {
  std::vector<std::string> out = mismatched_fields(file, device);
  for (const auto& [k, v] : device.fields) {
    if (!file.get(k)) out.push_back(k);
  }
  return out;
}

DoneSet done_pairs(const Results& results) {
  DoneSet done;
  for (const ResultRow& r : results.rows) done.emplace(key_string(r.key), r.spelling);
  return done;
}

bool is_done(const DoneSet& done, const Key& key, std::string_view spelling) {
  return done.count({key_string(key), std::string(spelling)}) != 0;
}

std::vector<Key> pending(const std::vector<Key>& points, const std::vector<std::string>& spellings,
                         const DoneSet& done) {
  std::vector<Key> out;
  for (const Key& k : points) {
    for (const std::string& s : spellings) {
      if (!is_done(done, k, s)) {
        out.push_back(k);
        break;
      }
    }
  }
  return out;
}

ResultsWriter::~ResultsWriter() {
  if (file_) std::fclose(file_);
  // A file this writer made and never wrote a row to is no journal: it would only make the
  // next run refuse with "exists".
  if (created_ && written_ == 0) std::remove(path_.c_str());
}

void ResultsWriter::create(const std::string& path, const std::string& header) {
  file_ = std::fopen(path.c_str(), "wx");  // never overwrite a results file
  if (!file_) {
    const int err = errno;
    throw Error(
        Errc::invalid_argument, "out",
        path + ": cannot create: " + std::error_code(err, std::generic_category()).message());
  }
  created_ = true;
  path_ = path;
  std::fputs(header.c_str(), file_);
  std::fflush(file_);
}

void ResultsWriter::append(const std::string& path, std::size_t keep_bytes,
                           const std::string& comment, int version) {
  version_ = version;
  std::error_code ec;
  if (std::filesystem::file_size(path, ec) != keep_bytes && !ec) {
    std::filesystem::resize_file(path, keep_bytes, ec);  // drop an interrupted last line
  }
  file_ = std::fopen(path.c_str(), "a");
  if (!file_) throw Error(Errc::invalid_argument, "out", path + ": cannot open for appending");
  path_ = path;
  if (!comment.empty()) std::fputs(("# " + comment + "\n").c_str(), file_);
  std::fflush(file_);
}

void ResultsWriter::comment(const std::string& text) {
  std::string line = "# " + text;
  std::replace(line.begin(), line.end(), '\n', ' ');
  std::fputs((line + "\n").c_str(), file_);
  std::fflush(file_);
}

void ResultsWriter::write(const ResultRow& row) {
  std::fputs((format_result_row(row, version_) + "\n").c_str(), file_);
  std::fflush(file_);
  ++written_;
}

}  // namespace gemmroute::measure
