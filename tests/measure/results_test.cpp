// The results file: round trip, quoting, interrupted writes, fingerprints and resume.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "measure/results.hpp"

namespace gemmroute::measure {
namespace {

Fingerprint fingerprint() {
  Fingerprint f;
  f.set("backend", "cpu");
  f.set("device", "Test CPU, 2 cores");
  f.set("cores", "2");
  return f;
}

std::vector<ResultRow> rows() {
  std::vector<ResultRow> out;
  ResultRow a;
  a.key = {Scalar::c32, Op::C, Op::T, Layout::strided, 13, 7, 5, 1000};
  a.spelling = "openblas:par=item";
  a.median_us = 12.3456;
  a.spread_pct = 1.25;
  a.repetitions = 7;
  a.detail = "err/bound 0.12";
  out.push_back(a);
  ResultRow b = a;
  b.spelling = "cpu.small";
  b.status = Status::failed;
  b.median_us = 0;
  b.repetitions = 0;
  b.origin = Origin::refined;
  b.detail = "wrong result: error 3.5x the bound at item 2 (1, 0), \"quoted\"";
  out.push_back(b);
  ResultRow c = a;
  c.spelling = "cpu.direct";
  c.status = Status::not_runnable;
  c.median_us = 0;
  c.repetitions = 0;
  c.detail = "max(m, n, k) > 16";
  out.push_back(c);
  return out;
}

std::string file_text() {
  std::string s =
      results_header(fingerprint(), {{"method", "fake, with commas"}, {"spec", "x.spec"}});
  for (const auto& r : rows()) s += format_result_row(r) + "\n";
  return s;
}

TEST(ResultsFile, RoundTrip) {
  std::vector<Diagnostic> diags;
  Results r = parse_results(file_text(), diags);
  for (const auto& d : diags) ADD_FAILURE() << d.line << ":" << d.column << ": " << d.message;
  EXPECT_FALSE(r.truncated_tail);
  EXPECT_EQ(r.fingerprint.fields, fingerprint().fields);
  ASSERT_NE(r.meta_field("method"), nullptr);
  EXPECT_EQ(*r.meta_field("method"), "fake, with commas");
  const auto want = rows();
  ASSERT_EQ(r.rows.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(r.rows[i].key, want[i].key);
    EXPECT_EQ(r.rows[i].spelling, want[i].spelling);
    EXPECT_NEAR(r.rows[i].median_us, want[i].median_us, 1e-4);
    EXPECT_NEAR(r.rows[i].spread_pct, want[i].spread_pct, 1e-3);
    EXPECT_EQ(r.rows[i].repetitions, want[i].repetitions);
    EXPECT_EQ(r.rows[i].status, want[i].status);
    EXPECT_EQ(r.rows[i].origin, want[i].origin);
    EXPECT_EQ(r.rows[i].detail, want[i].detail);
    EXPECT_EQ(format_result_row(r.rows[i]), format_result_row(want[i]));
  }
}

TEST(ResultsFile, AnInterruptedLastLineIsIgnored) {
  std::string text = file_text();
  const std::size_t full = text.size();
  text += "f32,N,N,packed,4,4,4,1,openblas,1.2";  // cut mid-row, no newline
  std::vector<Diagnostic> diags;
  Results r = parse_results(text, diags);
  EXPECT_TRUE(diags.empty());
  EXPECT_TRUE(r.truncated_tail);
  EXPECT_EQ(r.complete_bytes, full);
  EXPECT_EQ(r.rows.size(), 3u);
}

TEST(ResultsFile, ErrorsNameLineAndColumn) {
  std::string text = file_text() + "f32,N,N,packed,4,4,x,1,openblas,1,1,7,ok,measured,,\n";
  std::vector<Diagnostic> diags;
  parse_results(text, diags);
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].column, 20);
  EXPECT_NE(diags[0].message.find("whole number"), std::string::npos);
  diags.clear();
  parse_results("dtype,ta\n", diags);
  EXPECT_EQ(diags.size(), 1u);
  diags.clear();
  parse_results(file_text() + "f32,N,N,packed,4,4,4,1,openblas,0,1,7,ok,measured,,\n", diags);
  EXPECT_EQ(diags.size(), 1u);  // an ok row needs a time
  diags.clear();
  parse_results(file_text() + "f32,N,N,packed,4,4,4,1,openblas,1,1,7,ok,measured,,12ab\n", diags);
  ASSERT_EQ(diags.size(), 1u);  // a digest is 16 hex digits
  EXPECT_EQ(diags[0].column, 52);
  EXPECT_NE(diags[0].message.find("16 hex digits"), std::string::npos);
  diags.clear();
  parse_results(file_text() + "f32,N,N,packed,4,4,4,1,openblas,1,1,7,ok,measured,\n", diags);
  ASSERT_EQ(diags.size(), 1u);  // version 2 rows have 16 fields
  EXPECT_NE(diags[0].message.find("expected 16 fields"), std::string::npos);
}

// The digest column: written as 16 hex digits, read back; empty for rows without one.
TEST(ResultsFile, OutputDigestsRoundTrip) {
  std::string s = results_header(fingerprint(), {});
  auto want = rows();
  want[0].digest = 0x0123456789abcdefull;
  want[2].digest = 0xfedcba9876543210ull;
  for (const auto& r : want) s += format_result_row(r) + "\n";
  EXPECT_NE(s.find(",output_digest\n"), std::string::npos);
  EXPECT_NE(s.find(",err/bound 0.12,0123456789abcdef\n"), std::string::npos);
  std::vector<Diagnostic> diags;
  Results r = parse_results(s, diags);
  for (const auto& d : diags) ADD_FAILURE() << d.line << ":" << d.column << ": " << d.message;
  EXPECT_EQ(r.version, 2);
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.rows[0].digest, want[0].digest);
  EXPECT_FALSE(r.rows[1].digest.has_value());
  EXPECT_EQ(r.rows[2].digest, want[2].digest);
}

// A results file of version 1 (before digests) still reads, and rows appended to it keep its
// format, so it stays one readable file.
TEST(ResultsFile, VersionOneIsReadAndResumedInItsOwnFormat) {
  std::string v1 = "# gemmroute-results 1\n# fingerprint.backend cpu\n" +
                   std::string(kResultsColumnsV1) + "\n";
  for (const auto& r : rows()) v1 += format_result_row(r, 1) + "\n";
  std::vector<Diagnostic> diags;
  Results r = parse_results(v1, diags);
  for (const auto& d : diags) ADD_FAILURE() << d.line << ":" << d.column << ": " << d.message;
  EXPECT_EQ(r.version, 1);
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_FALSE(r.rows[0].digest.has_value());

  namespace fs = std::filesystem;
  const fs::path path =
      fs::temp_directory_path() / ("gemmroute-results-v1-" + std::to_string(::getpid()) + ".csv");
  {
    std::ofstream f(path);
    f << v1;
  }
  {
    ResultsWriter w;
    w.append(path.string(), v1.size(), "resumed", r.version);
    ResultRow more = rows()[0];
    more.spelling = "openblas";
    more.digest = 42;  // not representable in version 1: left out
    w.write(more);
  }
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  diags.clear();
  Results again = parse_results(buf.str(), diags);
  for (const auto& d : diags) ADD_FAILURE() << d.line << ":" << d.column << ": " << d.message;
  EXPECT_EQ(again.version, 1);
  EXPECT_EQ(again.rows.size(), 4u);
  fs::remove(path);
}

TEST(Resume, AnotherFingerprintIsAMismatch) {
  Fingerprint other = fingerprint();
  EXPECT_TRUE(fingerprint_mismatch(fingerprint(), other).empty());
  other.set("cores", "64");
  EXPECT_EQ(fingerprint_mismatch(fingerprint(), other), (std::vector<std::string>{"cores"}));
  other = fingerprint();
  other.set("openblas", "0.3.26");  // a field the file lacks
  EXPECT_EQ(fingerprint_mismatch(fingerprint(), other), (std::vector<std::string>{"openblas"}));
}

TEST(Resume, DonePairsAreSkippedWhateverTheirStatus) {
  std::vector<Diagnostic> diags;
  Results r = parse_results(file_text(), diags);
  DoneSet done = done_pairs(r);
  const Key k = rows()[0].key;
  EXPECT_TRUE(is_done(done, k, "openblas:par=item"));
  EXPECT_TRUE(is_done(done, k, "cpu.small"));   // failed: measured, not retried
  EXPECT_TRUE(is_done(done, k, "cpu.direct"));  // not runnable: asked already
  EXPECT_FALSE(is_done(done, k, "openblas"));
  Key other = k;
  other.m = 14;
  const std::vector<std::string> all = {"openblas", "openblas:par=item", "cpu.small", "cpu.direct"};
  const std::vector<std::string> three = {"openblas:par=item", "cpu.small", "cpu.direct"};
  EXPECT_EQ(pending({k, other}, all, done), (std::vector<Key>{k, other}));
  EXPECT_EQ(pending({k, other}, three, done), (std::vector<Key>{other}));
}

TEST(ResultsWriter, AppendCutsThePartialLineAndKeepsEverythingElse) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("gemmroute-results-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "r.csv").string();
  fs::remove(path);
  {
    ResultsWriter w;
    w.create(path, results_header(fingerprint(), {{"method", "m"}}));
    for (const auto& r : rows()) w.write(r);
    EXPECT_EQ(w.written(), 3);
    ResultsWriter again;
    EXPECT_THROW(again.create(path, "x"), std::exception);  // never overwrites
  }
  {
    std::ofstream f(path, std::ios::app);
    f << "f32,N,N,packed,4,4";  // Ctrl-C mid-write
  }
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  std::vector<Diagnostic> diags;
  Results r = parse_results(buf.str(), diags);
  ASSERT_TRUE(r.truncated_tail);
  {
    ResultsWriter w;
    w.append(path, r.complete_bytes, "resumed now");
    ResultRow extra = rows()[0];
    extra.spelling = "openblas";
    w.write(extra);
  }
  std::ifstream in2(path);
  std::stringstream buf2;
  buf2 << in2.rdbuf();
  Results r2 = parse_results(buf2.str(), diags);
  EXPECT_TRUE(diags.empty());
  EXPECT_FALSE(r2.truncated_tail);
  ASSERT_EQ(r2.rows.size(), 4u);
  EXPECT_EQ(r2.rows[3].spelling, "openblas");
  EXPECT_NE(r2.meta_field("resumed"), nullptr);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gemmroute::measure
