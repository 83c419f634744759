// libFuzzer target for the table loader: parse_table, then validate_table against the CPU
// backend. Whatever parses and validates cleanly is written with write_table and parsed again:
// it must re-read without a diagnostic, hold the same rows, write the same bytes, and find
// each of its own keys at distance 0. Every diagnostic must point inside the input.
// Built by -DGEMMROUTE_FUZZ=ON with clang; run by scripts/fuzz.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/backend.hpp"
#include "core/table.hpp"
#include "core/table_roundtrip.hpp"

namespace {

using namespace gemmroute;

[[noreturn]] void fail(std::string_view input, const std::string& what) {
  std::fprintf(stderr, "table_fuzz: %s\n--- input (%zu bytes) ---\n%.*s\n---\n", what.c_str(),
               input.size(), static_cast<int>(input.size() < 4096 ? input.size() : 4096),
               input.data());
  std::abort();
}

void check_positions(std::string_view text, const std::vector<Diagnostic>& diags) {
  std::vector<std::size_t> lengths;
  for (std::size_t pos = 0;;) {
    std::size_t end = text.find('\n', pos);
    lengths.push_back((end == std::string_view::npos ? text.size() : end) - pos);
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
  for (const Diagnostic& d : diags) {
    if (d.line < 1 || static_cast<std::size_t>(d.line) > lengths.size() || d.column < 1 ||
        static_cast<std::size_t>(d.column) > lengths[static_cast<std::size_t>(d.line) - 1] + 1 ||
        d.message.empty()) {
      fail(text, "diagnostic outside the input: " + format_diagnostic("input", d));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::unique_ptr<Backend> backend = make_backend(Device::cpu());
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  std::vector<Diagnostic> diags;
  Table table = parse_table(text, "input", diags);
  check_positions(text, diags);
  if (!diags.empty()) return 0;
  validate_table(table, *backend, diags);
  check_positions(text, diags);
  if (!diags.empty()) return 0;

  const std::string written = write_table(table);
  std::vector<Diagnostic> again_diags;
  Table again = parse_table(written, "written", again_diags);
  if (again_diags.empty()) validate_table(again, *backend, again_diags);
  if (!again_diags.empty()) {
    fail(text, "write_table output does not re-read: " +
                   format_diagnostic("written", again_diags[0]) + "\n--- written ---\n" + written);
  }
  if (std::string why = testing::roundtrip_mismatch(table, again); !why.empty()) {
    fail(text, "round trip changed the table: " + why + "\n--- written ---\n" + written);
  }
  if (write_table(again) != written) {
    fail(text, "write_table is not a fixed point:\n--- first ---\n" + written + "--- second ---\n" +
                   write_table(again));
  }

  table.index();
  for (const Row& row : table.rows) {
    Nearest n = nearest_row(table, row.key);
    if (!n.row || !(n.row->key == row.key) || n.distance != 0) {
      fail(text, "nearest_row misses its own key " + to_string(row.key));
    }
  }
  return 0;
}
