// The optional host libraries (LIBXSMM, BLIS): how the backend describes them in its
// fingerprint, and what a table measured with them does on this machine. Run twice by CTest:
// as found, and with both hidden (GEMMROUTE_LIBXSMM=none GEMMROUTE_BLIS=none), so CI checks
// the machine without them whatever it has installed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "core/backend.hpp"
#include "core/select.hpp"
#include "core/table.hpp"

namespace gemmroute {
namespace {

bool hidden(const char* env) {
  const char* v = std::getenv(env);
  return v && std::string(v) == "none";
}

const Backend& cpu() {
  static auto backend = make_backend(Device::cpu());
  return *backend;
}

// A packed 4x4x4 f32 batch with alpha 1 and beta 0 (what LIBXSMM dispatches directly).
Problem problem() {
  static float storage[3 * 16 * 8] = {};
  Problem p;
  p.m = p.n = p.k = 4;
  p.batch = 8;
  p.a = {storage, nullptr, 4, 16};
  p.b = {storage + 16 * 8, nullptr, 4, 16};
  p.c = {storage + 32 * 8, nullptr, 4, 16};
  return p;
}

TEST(CpuLibraries, FingerprintNamesEachLibraryOrNone) {
  const std::string* xsmm = cpu().fingerprint().get("libxsmm");
  const std::string* blis = cpu().fingerprint().get("blis");
  ASSERT_NE(xsmm, nullptr);
  ASSERT_NE(blis, nullptr);
  const bool xsmm_runs = cpu().find("libxsmm")->can_run(problem()).ok;
  const bool blis_runs = cpu().find("blis")->can_run(problem()).ok;
  EXPECT_EQ(*xsmm == "none", !xsmm_runs) << *xsmm;
  EXPECT_EQ(*blis == "none", !blis_runs) << *blis;
  if (hidden("GEMMROUTE_LIBXSMM")) {
    EXPECT_EQ(*xsmm, "none");
  }
  if (hidden("GEMMROUTE_BLIS")) {
    EXPECT_EQ(*blis, "none");
  }
  if (xsmm_runs) {
    EXPECT_EQ(xsmm->rfind("1.", 0), 0u) << "a version first: " << *xsmm;
  }
  if (blis_runs) {
    EXPECT_EQ(blis->rfind("0.", 0), 0u) << "a version first: " << *blis;
  }
}

TEST(CpuLibraries, AMissingLibraryIsNotFound) {
  for (const char* name : {"libxsmm", "blis", "blis:par=item"}) {
    const Candidate* c = cpu().find(name);
    ASSERT_NE(c, nullptr) << name;
    const std::string field = std::string(name).substr(0, 4) == "blis" ? "blis" : "libxsmm";
    if (*cpu().fingerprint().get(field) != "none") continue;
    Verdict v = c->can_run(problem());
    EXPECT_FALSE(v.ok);
    EXPECT_EQ(std::string(v.reason).rfind("library not found", 0), 0u) << v.reason;
  }
}

// A table measured where both libraries won rows: on a machine whose libraries differ (or
// are missing), their entries are not runnable, with the field named, and the walk goes on.
TEST(CpuLibraries, EntriesOfAnotherLibraryVersionAreNotRunnable) {
  const std::string text = R"(gemmroute-table 1
fingerprint.backend cpu
fingerprint.libxsmm 0.1 fixture
fingerprint.blis 0.0.1 fixture
tuner test
row f32 N N packed 4 4 4 8 measured libxsmm@1us±1% blis@2us±1% cpu.small@3us±1%
)";
  std::vector<Diagnostic> d;
  Table t = parse_table(text, "fixture.table", d);
  validate_table(t, cpu(), d);
  ASSERT_TRUE(d.empty()) << d.front().message;
  t.index();
  const auto& entries = t.rows.at(0).entries;
  EXPECT_EQ(entries[0].unrunnable, "measured with another fingerprint.libxsmm");
  EXPECT_EQ(entries[1].unrunnable, "measured with another fingerprint.blis");
  EXPECT_EQ(entries[2].unrunnable, "");
  Problem p = problem();
  Trace trace;
  Selection s = select(p, key_of(p), &t, cpu(), Exec(), Overrides{}, &trace);
  EXPECT_EQ(s.candidate->spelling(), "cpu.small");
  ASSERT_GE(trace.steps.size(), 2u);
  EXPECT_EQ(trace.steps[0].reason, "measured with another fingerprint.libxsmm");
}

// The same table with this machine's own fingerprint fields: the entries run where the
// libraries do, and where they are missing can_run says so.
TEST(CpuLibraries, EntriesOfThisMachinesLibrariesRunWhereTheLibraryDoes) {
  const std::string text = "gemmroute-table 1\nfingerprint.backend cpu\nfingerprint.libxsmm " +
                           *cpu().fingerprint().get("libxsmm") + "\nfingerprint.blis " +
                           *cpu().fingerprint().get("blis") +
                           "\ntuner test\nrow f32 N N packed 4 4 4 8 measured libxsmm@1us±1% "
                           "blis@2us±1% cpu.small@3us±1%\n";
  std::vector<Diagnostic> d;
  Table t = parse_table(text, "fixture.table", d);
  validate_table(t, cpu(), d);
  ASSERT_TRUE(d.empty()) << d.front().message;
  t.index();
  Problem p = problem();
  Trace trace;
  Selection s = select(p, key_of(p), &t, cpu(), Exec(), Overrides{}, &trace);
  const bool xsmm = *cpu().fingerprint().get("libxsmm") != "none";
  const bool blis = *cpu().fingerprint().get("blis") != "none";
  EXPECT_EQ(s.candidate->spelling(), xsmm ? "libxsmm" : blis ? "blis" : "cpu.small");
  if (!xsmm) {
    EXPECT_EQ(trace.steps.at(0).reason, "library not found (LIBXSMM)");
  }
}

}  // namespace
}  // namespace gemmroute
