// The results file `gemmroute tune` appends to: '#' lines that record the device fingerprint
// and the method, a column header, then one row per (point, candidate). Rows are written and
// flushed one at a time, so an interrupted run loses nothing it had written.
//
//   # gemmroute-results 2
//   # fingerprint.backend cpu
//   # method ...
//   dtype,ta,tb,layout,m,n,k,batch,spelling,median_us,spread_pct,repetitions,status,origin,
//     detail,output_digest   (one line in the file)
//   f32,N,N,packed,4,4,4,1024,cpu.small,3.412,1.80,7,ok,measured,err/bound 0.12,6d1f0c2a9b3e4f57
//
// output_digest (version 2) is measure.hpp's output_digest of the C the check launch wrote on
// the point's first operand set, as 16 hex digits; empty for rows that are not ok. Two
// candidates of one point with the same digest gave bit-identical output. Version 1 files
// (no such column) are still read, and resuming one keeps writing version 1 rows.
#pragma once

#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/fingerprint.hpp"
#include "core/table.hpp"
#include "measure/measure.hpp"

namespace gemmroute::measure {

inline constexpr int kResultsFormatVersion = 2;  // the newest; version 1 is read too
inline constexpr std::string_view kResultsColumnsV1 =
    "dtype,ta,tb,layout,m,n,k,batch,spelling,median_us,spread_pct,repetitions,status,origin,"
    "detail";
inline constexpr std::string_view kResultsColumns =
    "dtype,ta,tb,layout,m,n,k,batch,spelling,median_us,spread_pct,repetitions,status,origin,"
    "detail,output_digest";

struct ResultRow {
  Key key;
  std::string spelling;
  double median_us = 0;
  double spread_pct = 0;
  int repetitions = 0;
  Status status = Status::ok;
  Origin origin = Origin::measured;  // measured (lattice), refined (edges), recorded (shapes)
  std::string detail;                // free text; quoted in the file when needed
  std::optional<std::uint64_t> digest;  // output_digest of an ok row (version 2)
  int line = 0;                      // where it was read, for messages
  int spelling_column = 0;           // the spelling's column on that line
};

struct Results {
  int version = kResultsFormatVersion;
  Fingerprint fingerprint;
  // "# name value" lines other than fingerprint.*, first occurrence first: method, spec,
  // tuner, started, clocks, resumed ...
  std::vector<std::pair<std::string, std::string>> meta;
  std::vector<ResultRow> rows;
  bool truncated_tail = false;     // the last line had no newline (an interrupted write): ignored
  std::size_t complete_bytes = 0;  // length of the text up to the last complete line

  const std::string* meta_field(std::string_view name) const;
};

// One line of a results file of that format version (version 1 has no digest column).
std::string format_result_row(const ResultRow& row, int version = kResultsFormatVersion);
// Header text for a new file: version, fingerprint, meta, column names.
std::string results_header(const Fingerprint& fingerprint,
                           const std::vector<std::pair<std::string, std::string>>& meta);
// Diagnostics name line and column; rows that fail to parse are left out.
Results parse_results(std::string_view text, std::vector<Diagnostic>& diagnostics);
// Reads a file; throws Error(invalid_argument) listing "path:line:col: message" on errors.
Results read_results(const std::string& path);

// Fingerprint fields that differ between a results file and this device: empty means the
// file may be resumed (or built into a table for this device).
std::vector<std::string> fingerprint_mismatch(const Fingerprint& file, const Fingerprint& device);

// (key, spelling) pairs already measured, with any status: what --resume skips.
using DoneSet = std::set<std::pair<std::string, std::string>>;
DoneSet done_pairs(const Results& results);
bool is_done(const DoneSet& done, const Key& key, std::string_view spelling);
// The points with at least one of `spellings` not yet done, in the given order.
std::vector<Key> pending(const std::vector<Key>& points, const std::vector<std::string>& spellings,
                         const DoneSet& done);

// Appends rows to a results file, flushing each one.
class ResultsWriter {
 public:
  ResultsWriter() = default;
  ~ResultsWriter();
  ResultsWriter(const ResultsWriter&) = delete;
  ResultsWriter& operator=(const ResultsWriter&) = delete;

  // Creates `path` (never over an existing file) with the header, or (append) opens it after
  // cutting any partial last line at `keep_bytes`, to write rows in the file's format
  // `version`. Throws Error(invalid_argument) when the file cannot be opened. A file create()
  // made is removed again by the destructor when no row was written to it: a header alone is
  // no journal.
  void create(const std::string& path, const std::string& header);
  void append(const std::string& path, std::size_t keep_bytes, const std::string& comment,
              int version = kResultsFormatVersion);
  void write(const ResultRow& row);
  // A "# text" line between rows (a note the parser keeps as meta on its first occurrence:
  // tune records each point's search there).
  void comment(const std::string& text);
  int written() const { return written_; }

 private:
  std::FILE* file_ = nullptr;
  std::string path_;
  int version_ = kResultsFormatVersion;
  int written_ = 0;
  bool created_ = false;
};

}  // namespace gemmroute::measure
