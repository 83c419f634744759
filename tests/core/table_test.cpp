// Table loader robustness: every malformed input in tests/core/table_corpus gives an error at
// an exact position (never a crash), valid inputs load and survive write_table + parse_table,
// and `gemmroute table check` reports FILE:LINE:COL and exits 1.
//
// Corpus layout: NAME.table is the input; NAME.expected holds either `LINE:COL text` (the first
// diagnostic's position and a piece of its message) or `ok N` (loads with N rows).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/backend.hpp"
#include "core/table.hpp"
#include "core/table_roundtrip.hpp"
#include "gemmroute/error.hpp"

namespace gemmroute {
namespace {

namespace fs = std::filesystem;

const fs::path kCorpus = GEMMROUTE_TABLE_CORPUS;
const fs::path kGenericTable = GEMMROUTE_GENERIC_TABLE;

const Backend& cpu_backend() {
  static const std::unique_ptr<Backend> backend = make_backend(Device::cpu());
  return *backend;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

struct Expected {
  bool ok = false;
  std::size_t rows = 0;  // when ok
  int line = 0, column = 0;
  std::string text;  // a piece of the first diagnostic's message
};

Expected read_expected(const fs::path& path) {
  std::istringstream in(read_file(path));
  std::string head;
  in >> head;
  Expected e;
  if (head == "ok") {
    e.ok = true;
    in >> e.rows;
    return e;
  }
  char colon = 0;
  std::istringstream pos(head);
  pos >> e.line >> colon >> e.column;
  std::getline(in >> std::ws, e.text);
  return e;
}

// parse_table, then validate_table when the syntax is clean: what load_table does.
std::vector<Diagnostic> diagnose(std::string_view text, const std::string& path,
                                 Table* out = nullptr) {
  std::vector<Diagnostic> diags;
  Table t = parse_table(text, path, diags);
  if (diags.empty()) validate_table(t, cpu_backend(), diags);
  if (out) *out = std::move(t);
  return diags;
}

// Every diagnostic points inside the text: a real line, a column at most one past its end.
void expect_positions_in_range(std::string_view text, const std::vector<Diagnostic>& diags) {
  std::vector<std::size_t> lengths;
  for (std::size_t pos = 0;;) {
    std::size_t end = text.find('\n', pos);
    lengths.push_back((end == std::string_view::npos ? text.size() : end) - pos);
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
  for (const Diagnostic& d : diags) {
    ASSERT_GE(d.line, 1) << d.message;
    ASSERT_LE(static_cast<std::size_t>(d.line), lengths.size()) << d.message;
    EXPECT_GE(d.column, 1) << d.message;
    EXPECT_LE(static_cast<std::size_t>(d.column), lengths[static_cast<std::size_t>(d.line) - 1] + 1)
        << d.line << ": " << d.message;
    EXPECT_FALSE(d.message.empty());
  }
}

// write_table then parse_table gives the same rows, and writing again gives the same bytes.
void expect_roundtrip(const Table& table) {
  const std::string written = write_table(table);
  std::vector<Diagnostic> diags = diagnose(written, "written.table");
  for (const Diagnostic& d : diags) {
    ADD_FAILURE() << "written table does not re-read: " << format_diagnostic("written.table", d);
  }
  if (!diags.empty()) return;
  std::vector<Diagnostic> none;
  Table again = parse_table(written, "written.table", none);
  EXPECT_EQ(testing::roundtrip_mismatch(table, again), "");
  EXPECT_EQ(write_table(again), written);
}

std::vector<std::string> corpus_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kCorpus)) {
    if (entry.path().extension() == ".table") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

class TableCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(TableCorpus, FirstDiagnosticAtExpectedPosition) {
  const fs::path table_path = kCorpus / (GetParam() + ".table");
  const fs::path expected_path = kCorpus / (GetParam() + ".expected");
  ASSERT_TRUE(fs::exists(expected_path)) << "add " << expected_path;
  const Expected want = read_expected(expected_path);
  const std::string text = read_file(table_path);
  const std::string path = table_path.string();

  Table table;
  std::vector<Diagnostic> diags = diagnose(text, path, &table);
  expect_positions_in_range(text, diags);

  if (want.ok) {
    for (const Diagnostic& d : diags) ADD_FAILURE() << format_diagnostic(path, d);
    Table loaded = load_table(path, cpu_backend());
    EXPECT_EQ(loaded.rows.size(), want.rows);
    expect_roundtrip(loaded);
    return;
  }

  ASSERT_FALSE(diags.empty()) << "expected an error at " << want.line << ":" << want.column;
  EXPECT_EQ(diags[0].line, want.line) << diags[0].message;
  EXPECT_EQ(diags[0].column, want.column) << diags[0].message;
  EXPECT_NE(diags[0].message.find(want.text), std::string::npos)
      << "message '" << diags[0].message << "' lacks '" << want.text << "'";

  const std::string prefix =
      path + ":" + std::to_string(want.line) + ":" + std::to_string(want.column) + ": ";
  try {
    load_table(path, cpu_backend());
    ADD_FAILURE() << "load_table accepted " << path;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::bad_table);
    EXPECT_TRUE(e.message().starts_with(prefix)) << "message: " << e.message().substr(0, 300);
    EXPECT_NE(std::string(e.what()).find(prefix), std::string::npos);
  }
}

std::string corpus_test_name(const ::testing::TestParamInfo<std::string>& param) {
  return param.param;
}

INSTANTIATE_TEST_SUITE_P(Corpus, TableCorpus, ::testing::ValuesIn(corpus_names()),
                         corpus_test_name);

TEST(TableCorpusLayout, EveryExpectationHasATable) {
  for (const auto& entry : fs::directory_iterator(kCorpus)) {
    if (entry.path().extension() != ".expected") continue;
    fs::path table = entry.path();
    table.replace_extension(".table");
    EXPECT_TRUE(fs::exists(table)) << entry.path() << " has no table";
  }
  EXPECT_GE(corpus_names().size(), 60u);
}

TEST(TableLoader, ShippedGenericTableLoadsAndRoundTrips) {
  Table t = load_table(kGenericTable.string(), cpu_backend());
  EXPECT_GT(t.rows.size(), 0u);
  expect_roundtrip(t);
}

TEST(TableLoader, MissingFileIsBadTableWithPath) {
  const std::string path = (kCorpus / "no-such-file.table").string();
  try {
    load_table(path, cpu_backend());
    ADD_FAILURE() << "load_table opened a missing file";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::bad_table);
    EXPECT_NE(e.message().find(path + ":"), std::string::npos) << e.message();
  }
}

// Loads a table and returns the loader's message, or "" when it loaded.
std::string load_error(const std::string& path) {
  try {
    load_table(path, cpu_backend());
    return "";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::bad_table) << e.what();
    return e.message();
  }
}

// /dev/zero was read until memory ran out, a FIFO hung, a directory was an "empty table".
TEST(TableLoader, RefusesWhatIsNotARegularFile) {
  EXPECT_EQ(load_error("/dev/zero"),
            "/dev/zero:0:0: the table file: not a regular file (a character device)");
  const fs::path dir =
      fs::temp_directory_path() / ("gemmroute-table-test-" + std::to_string(getpid()));
  fs::create_directories(dir);
  EXPECT_EQ(load_error(dir.string()),
            dir.string() + ":0:0: the table file: not a regular file (a directory)");
  const fs::path fifo = dir / "fifo.table";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(load_error(fifo.string()),
            fifo.string() + ":0:0: the table file: not a regular file (a FIFO)");
  fs::remove_all(dir);
}

TEST(TableLoader, RefusesAFileOverTheSizeLimit) {
  const fs::path path =
      fs::temp_directory_path() / ("gemmroute-big-" + std::to_string(getpid()) + ".table");
  {
    std::ofstream f(path, std::ios::binary);
    f << read_file(kCorpus / "valid_measured.table");
    f << "# " << std::string((1 << 20) + 100, 'x') << "\n";  // just over 1 MiB
  }
  setenv("GEMMROUTE_MAX_INPUT_MB", "1", 1);
  const std::string message = load_error(path.string());
  EXPECT_NE(message.find("more than the limit of 1 MiB (GEMMROUTE_MAX_INPUT_MB raises it)"),
            std::string::npos)
      << message;
  setenv("GEMMROUTE_MAX_INPUT_MB", "2", 1);
  EXPECT_EQ(load_error(path.string()), "");
  setenv("GEMMROUTE_MAX_INPUT_MB", "lots", 1);
  try {
    load_table(path.string(), cpu_backend());
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), "GEMMROUTE_MAX_INPUT_MB") << e.what();
  }
  unsetenv("GEMMROUTE_MAX_INPUT_MB");
  fs::remove(path);
}

constexpr std::string_view kHeader = "gemmroute-table 1\nfingerprint.backend cpu\n";

TEST(TableLoader, CrlfParsesLikeLf) {
  const std::string lf = read_file(kCorpus / "valid_measured.table");
  std::string crlf;
  for (char c : lf) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  std::vector<Diagnostic> d1, d2;
  Table a = parse_table(lf, "lf", d1);
  Table b = parse_table(crlf, "crlf", d2);
  EXPECT_TRUE(d1.empty());
  EXPECT_TRUE(d2.empty());
  EXPECT_EQ(testing::roundtrip_mismatch(a, b), "");
  EXPECT_EQ(write_table(a), write_table(b));
}

TEST(TableLoader, VeryLongLines) {
  // 4 MiB of one header value: fine. 4 MiB of junk in a size: an error at its first byte.
  std::string ok = std::string(kHeader) + "method " + std::string(4 << 20, 'm') +
                   "\nrow f32 N N packed 4 4 4 4 transcribed cpu.small\n";
  EXPECT_TRUE(diagnose(ok, "long").empty());

  std::string bad = std::string(kHeader) + "row f32 N N packed " + std::string(4 << 20, '7') +
                    " 4 4 4 transcribed cpu.small\n";
  auto diags = diagnose(bad, "long");
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].line, 3);
  EXPECT_EQ(diags[0].column, 20);

  // A row with 100000 entries, the last one bad: its column is exact.
  std::string row = "row f32 N N packed 4 4 4 4 transcribed";
  for (int i = 0; i < 100000; ++i) row += " cpu.small";
  const int bad_col = static_cast<int>(row.size()) + 2;
  row += " cpu.small:k=\n";
  diags = diagnose(std::string(kHeader) + row, "long");
  ASSERT_FALSE(diags.empty());
  EXPECT_EQ(diags[0].line, 3);
  EXPECT_EQ(diags[0].column, bad_col + 12);
}

TEST(TableLoader, ManyRows) {
  std::string text(kHeader);
  int rows = 0;
  for (int m = 1; m <= 64; ++m) {
    for (int b = 1; b <= 64; ++b, ++rows) {
      text += "row f64 T N strided " + std::to_string(m) + " 3 5 " + std::to_string(b) +
              " measured cpu.direct@" + std::to_string(m * b) + ".5us\xC2\xB1" + "1.25% openblas@" +
              std::to_string(m + b) + "us+-0%\n";
    }
  }
  Table t;
  auto diags = diagnose(text, "many", &t);
  EXPECT_TRUE(diags.empty());
  EXPECT_EQ(t.rows.size(), static_cast<std::size_t>(rows));
  expect_roundtrip(t);
  // The same rows twice: every second copy is a duplicate naming its first line.
  diags = diagnose(text + text.substr(kHeader.size()), "twice");
  ASSERT_EQ(diags.size(), static_cast<std::size_t>(rows));
  EXPECT_EQ(diags[0].line, 3 + rows);
  EXPECT_EQ(diags[0].message, "duplicate key, first at line 3");
}

TEST(TableLoader, TruncatedAtEveryByte) {
  // A file cut anywhere either parses (cut at an entry boundary) or reports a position inside
  // what is left; never a crash or a position past the end.
  for (const char* name : {"valid_measured.table", "valid_crlf.table"}) {
    const std::string text = read_file(kCorpus / name);
    for (std::size_t n = 0; n <= text.size(); ++n) {
      std::string_view cut(text.data(), n);
      auto diags = diagnose(cut, "cut");
      expect_positions_in_range(cut, diags);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(TableLoader, RandomBytesAndMutations) {
  // Deterministic junk: random bytes, and the valid corpus with bytes flipped, inserted, removed.
  std::mt19937_64 rng(20261130);
  const std::string base = read_file(kCorpus / "valid_measured.table");
  const char alphabet[] = "@\xC2\xB1%:= \t\n\r#0123456789.-+eEnaifusm";
  for (int iter = 0; iter < 3000; ++iter) {
    std::string text;
    if (iter % 3 == 0) {
      text.resize(rng() % 512);
      for (char& c : text) c = static_cast<char>(rng());
      if (iter % 2) text = std::string(kHeader) + text;
    } else {
      text = base;
      const int edits = 1 + static_cast<int>(rng() % 8);
      for (int e = 0; e < edits && !text.empty(); ++e) {
        std::size_t at = rng() % text.size();
        char c = (rng() % 2) ? alphabet[rng() % (sizeof alphabet - 1)] : static_cast<char>(rng());
        switch (rng() % 3) {
          case 0:
            text[at] = c;
            break;
          case 1:
            text.insert(at, 1, c);
            break;
          default:
            text.erase(at, 1 + rng() % 8);
            break;
        }
      }
    }
    Table t;
    auto diags = diagnose(text, "mutant", &t);
    expect_positions_in_range(text, diags);
    if (diags.empty()) expect_roundtrip(t);
    if (HasFailure()) {
      ADD_FAILURE() << "iteration " << iter << " input:\n" << text;
      return;
    }
  }
}

#ifdef GEMMROUTE_CLI
struct CliRun {
  int status = -1;
  std::string output;
};

// Output is stdout and stderr together, or stdout alone.
CliRun run_cli(const std::string& args, bool with_stderr = true) {
  CliRun r;
  std::string cmd =
      std::string("'") + GEMMROUTE_CLI + "' " + args + (with_stderr ? " 2>&1" : " 2>/dev/null");
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

TEST(TableCheckCli, MalformedPrintsFileLineColAndExits1) {
  for (const char* name : {"duplicate_key", "size_negative", "binary_nul", "spelling_unknown",
                           "empty", "header_only_no_rows", "duplicate_key_beside_syntax_error"}) {
    const std::string path = (kCorpus / (std::string(name) + ".table")).string();
    const Expected want = read_expected(kCorpus / (std::string(name) + ".expected"));
    CliRun r = run_cli("table check '" + path + "'");
    EXPECT_EQ(r.status, 1) << name << ":\n" << r.output;
    const std::string line =
        path + ":" + std::to_string(want.line) + ":" + std::to_string(want.column) + ": ";
    EXPECT_TRUE(r.output.starts_with(line)) << name << ":\n" << r.output;
    EXPECT_EQ(r.output.find("ok:"), std::string::npos) << r.output;
  }
}

TEST(TableCheckCli, EveryErrorIsOneLine) {
  const std::string path = (kCorpus / "multiple_errors_first_reported.table").string();
  CliRun r = run_cli("table check '" + path + "'");
  EXPECT_EQ(r.status, 1);
  std::istringstream lines(r.output);
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) {
    EXPECT_TRUE(line.starts_with(path + ":")) << line;
    ++count;
  }
  EXPECT_EQ(count, 3) << r.output;  // bad ta, unknown header field after rows, zero size
}

TEST(TableCheckCli, ValidPrintsRowCountAndExits0) {
  CliRun r = run_cli("table check '" + (kCorpus / "valid_measured.table").string() + "'");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("ok: 4 rows"), std::string::npos) << r.output;
}

// A table without rows was accepted (`ok: 0 rows`), and duplicate keys were reported only once
// every syntax error was fixed.
TEST(TableCheckCli, NoRowsAndDuplicatesBesideSyntaxErrorsAreReported) {
  const std::string path = (kCorpus / "duplicate_key_beside_syntax_error.table").string();
  CliRun r = run_cli("table check '" + path + "'");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.output, path + ":8:1: duplicate key, first at line 7\n" + path +
                          ":9:52: expected '\xC2\xB1' (or '+-') and a spread after the time\n");
}

TEST(TableCheckCli, SpecialFilesAreRefusedAndMisuseGoesToStderr) {
  CliRun r = run_cli("table check /dev/zero");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.output, "/dev/zero:0:0: the table file: not a regular file (a character device)\n");
  r = run_cli("table check /");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.output, "/:0:0: the table file: not a regular file (a directory)\n");
  r = run_cli("table check", false);  // usage goes to stderr, so nothing is left here
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output, "");
  r = run_cli("table check a b", false);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output, "");
}

TEST(TableCheckCli, MissingFileExits1) {
  const std::string path = (kCorpus / "no-such-file.table").string();
  CliRun r = run_cli("table check '" + path + "'");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(r.output.starts_with(path + ":")) << r.output;
}
#endif

}  // namespace
}  // namespace gemmroute
