// cuBLASLt records without a GPU (label cuda): the spelling reads back as the record it was
// written from, every way of writing it wrongly is refused with the field and why, the CUDA
// vocabulary resolves records (so tables with them build and check in CI), and a table measured
// with another cuBLASLt version loads with its records not runnable and a note saying why.
#include <gtest/gtest.h>

#include <string>

#include "core/backend.hpp"
#include "core/table.hpp"
#include "cuda/lt.hpp"

namespace gemmroute {
namespace {

using cuda::format_lt;
using cuda::LtRecord;
using cuda::parse_lt;

LtRecord sample() {
  LtRecord r;
  r.algo = 66;
  r.tile = 19;    // CUBLASLT_MATMUL_TILE_64x256 in CUDA 13's header
  r.stages = 16;  // 64x4
  r.cluster = 3;  // 2x1x1
  r.splitk = 4;
  r.reduction = 2;  // compute type
  r.swizzle = 1;
  r.custom = 3;
  r.inner = 0;
  return r;
}

TEST(LtRecords, ReadBackAsWritten) {
  const LtRecord r = sample();
  const std::string s = format_lt(r);
  EXPECT_EQ(s,
            "lt:v=1:algo=66:tile=64x256:stages=64x4:cluster=2x1x1:splitk=4:reduction=compute:"
            "swizzle=1:custom=3:inner=undefined");
  std::string why;
  const auto back = parse_lt(s, &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(*back, r);
  // Ids the header does not name are written as numbers and read back.
  LtRecord odd = r;
  odd.tile = 9999;
  odd.cluster = 999;
  const auto odd_back = parse_lt(format_lt(odd), &why);
  ASSERT_TRUE(odd_back) << why;
  EXPECT_EQ(*odd_back, odd);
  EXPECT_NE(format_lt(odd).find("tile=9999"), std::string::npos);
}

TEST(LtRecords, EveryWrongSpellingSaysWhy) {
  const std::string good = format_lt(sample());
  struct Bad {
    std::string text, says;
  };
  auto replace = [&](std::string from, std::string to) {
    std::string s = good;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  for (const Bad& b : {
           Bad{"cublas", "not an lt: record"},
           Bad{replace("v=1", "v=2"), "version"},
           Bad{replace(":inner=undefined", ""), "fields"},
           Bad{replace("algo=66", "algo=x6"), "algo"},
           Bad{replace("tile=64x256", "tile=65x256"), "unknown tile"},
           Bad{replace("stages=64x4", "stages=64x99"), "unknown stages"},
           Bad{replace("cluster=2x1x1", "cluster=2x1"), "unknown cluster"},
           Bad{replace("reduction=compute", "reduction=sum"), "unknown reduction"},
           Bad{replace("splitk=4", "splitk=0"), "splitk"},
           Bad{replace("swizzle=1", "swizzle=-1"), "swizzle"},
           Bad{replace("custom=3", "custom=a"), "custom"},
           Bad{replace("tile=64x256", "tile=19"), "write this record as"},  // not canonical
           Bad{replace("algo=66:tile=64x256", "tile=64x256:algo=66"), "field 2"},
           Bad{good + ":extra=1", "fields"},
           Bad{"lt:v=1:algo=66:", "parameter name"},
       }) {
    SCOPED_TRACE(b.text);
    std::string why;
    EXPECT_FALSE(parse_lt(b.text, &why));
    EXPECT_NE(why.find(b.says), std::string::npos) << why;
  }
}

// The vocabulary (no device) resolves records, refuses bad ones with the reason, and owns what
// it made; the records it makes never run.
TEST(LtRecords, TheVocabularyResolvesRecords) {
  bool offline = false;
  const auto backend = make_backend_or_vocabulary(Device::cuda(0), &offline);
  const Resolved r = backend->resolve(format_lt(sample()));
  ASSERT_TRUE(r.candidate) << r.error;
  EXPECT_TRUE(r.owned);
  EXPECT_EQ(r.candidate->spelling(), format_lt(sample()));
  EXPECT_EQ(r.candidate->provider(), Provider::vendor);
  Problem p;
  p.dtype = Scalar::bf16;
  p.m = p.n = p.k = 8;
  p.batch = 1;
  EXPECT_FALSE(r.candidate->reproducible(p)) << "split-K 4 is not reproducible";
  const Resolved bad = backend->resolve("lt:v=1:algo=66");
  EXPECT_FALSE(bad.candidate);
  EXPECT_NE(bad.error.find("bad cuBLASLt record"), std::string::npos) << bad.error;
  EXPECT_TRUE(backend->find("lt.heuristic"));
  EXPECT_EQ(backend->candidates().front()->spelling(), "lt.heuristic")
      << "lt.heuristic is first in tie-break order (the default cuBLASLt's records must beat)";
  EXPECT_EQ(backend->vendor_default(Scalar::bf16).spelling(), "lt.heuristic");
  EXPECT_EQ(backend->vendor_default(DType(Scalar::f32, Scalar::f32, Compute::tf32)).spelling(),
            "lt.heuristic");
  EXPECT_EQ(backend->vendor_default(Scalar::f32).spelling(), "cublas");
}

// A table measured with another cuBLASLt: its records load, not runnable, with a note; entries
// that do not depend on cuBLASLt's version stay runnable.
TEST(LtRecords, AnotherCublasLtVersionDisablesItsRecords) {
  bool offline = false;
  const auto backend = make_backend_or_vocabulary(Device::cuda(0), &offline);
  std::string text =
      "gemmroute-table 1\n"
      "fingerprint.backend cuda\n"
      "fingerprint.cublaslt 0.0.1\n"
      "row bf16 T N packed 4096 16 4096 1 measured " +
      format_lt(sample()) + "@10us±1% lt.heuristic@11us±1% cublas@12us±1%\n";
  std::vector<Diagnostic> diags;
  Table t = parse_table(text, "lt.table", diags);
  ASSERT_TRUE(diags.empty()) << (diags.empty() ? "" : diags[0].message);
  validate_table(t, *backend, diags);
  ASSERT_TRUE(diags.empty()) << (diags.empty() ? "" : diags[0].message);
  ASSERT_EQ(t.rows.size(), 1u);
  const auto& e = t.rows[0].entries;
  EXPECT_EQ(e[0].unrunnable, "measured with another fingerprint.cublaslt");
  EXPECT_TRUE(e[1].unrunnable.empty());
  EXPECT_TRUE(e[2].unrunnable.empty());
  bool noted = false;
  for (const auto& n : t.notes)
    noted = noted || n.find("fingerprint.cublaslt") != std::string::npos;
  EXPECT_TRUE(noted);
  // A record that does not parse is a table error at its column.
  const std::string row = "row bf16 T N packed 8 8 8 1 measured lt:v=1:algo=66:tile=64x256@1us±1%";
  Table bad =
      parse_table("gemmroute-table 1\nfingerprint.backend cuda\n" + row + "\n", "bad.table", diags);
  ASSERT_TRUE(diags.empty());
  validate_table(bad, *backend, diags);
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].line, 3);
  EXPECT_EQ(diags[0].column, static_cast<int>(row.find("lt:")) + 1);
  EXPECT_NE(diags[0].message.find("bad cuBLASLt record"), std::string::npos) << diags[0].message;
}

}  // namespace
}  // namespace gemmroute
