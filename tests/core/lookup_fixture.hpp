// A CPU table written inline, for the tests of the look-up between rows (predict_test.cpp,
// model_test.cpp): rows parsed, validated against the CPU backend and indexed, f32 N N packed
// keys, and the spellings a look-up walks, by the selection S unless told another.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/predict.hpp"
#include "core/table.hpp"

namespace gemmroute::test {

template <Selector S>
class LookupFixture : public ::testing::Test {
 protected:
  void SetUp() override { backend_ = make_backend(Device::cpu()); }

  // `rows`: table lines after the header (a CPU table of the "Fixture CPU").
  Table load(const std::string& rows) {
    std::vector<Diagnostic> d;
    Table t = parse_table(
        "gemmroute-table 1\nfingerprint.backend cpu\nfingerprint.device Fixture CPU\n" + rows,
        "fixture.table", d);
    if (d.empty()) validate_table(t, *backend_, d);
    EXPECT_TRUE(d.empty()) << (d.empty() ? "" : d.front().message);
    t.index();
    return t;
  }

  static Key key(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch) {
    return {Scalar::f32, Op::N, Op::N, Layout::packed, m, n, k, batch};
  }

  // The walk's spellings, in order.
  static std::vector<std::string> walk(const Table& t, const Key& k, Selector s = S) {
    Lookup l = look_up(t, k, s);
    std::vector<std::string> out;
    for (std::size_t i = 0; i < l.size(); ++i) out.push_back(l.entry(t, i).spelling);
    return out;
  }

  using W = std::vector<std::string>;
  std::unique_ptr<Backend> backend_;
};

}  // namespace gemmroute::test
