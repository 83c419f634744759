#include "bench_common.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <string_view>
#include <system_error>

#include "core/files.hpp"
#include "core/table.hpp"
#include "gemmroute/error.hpp"
#include "measure/operands.hpp"

namespace gemmroute::cli {

using measure::checked_set_bytes;

std::vector<Shape> read_shapes(const std::string& path) {
  std::string text, why;
  if (!read_input_file(path, text, why)) {
    throw Error(Errc::invalid_argument, "shapes", path + ": the shapes file: " + why);
  }
  std::vector<Shape> out;
  std::string errors;
  int no = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    ++no;
    if (auto h = line.find('#'); h != std::string_view::npos) line = line.substr(0, h);
    struct Field {
      std::string_view text;
      int column;
    };
    std::vector<Field> t;
    for (std::size_t i = 0; i < line.size();) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
      const std::size_t start = i;
      while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
      if (i > start) t.push_back({line.substr(start, i - start), static_cast<int>(start) + 1});
    }
    if (t.empty()) continue;
    auto bad = [&](int column, const std::string& message) {
      errors +=
          "\n" + path + ":" + std::to_string(no) + ":" + std::to_string(column) + ": " + message;
    };
    if (t.size() != 7 && t.size() != 8) {
      bad(t.front().column, "expected 'dtype ta tb m n k batch [packed|strided]', found " +
                                std::to_string(t.size()) + " fields");
      continue;
    }
    auto dtype = parse_scalar(t[0].text);
    auto ta = parse_op(t[1].text);
    auto tb = parse_op(t[2].text);
    auto layout = parse_layout(t.size() == 8 ? t[7].text : "packed");
    if (!dtype) {
      bad(t[0].column, "dtype: expected f32, f64, c32 or c64");
      continue;
    }
    if (!ta || !tb) {
      bad(t[ta ? 2 : 1].column, std::string(ta ? "tb" : "ta") + ": expected N, T or C");
      continue;
    }
    if (!layout) {
      bad(t[7].column, "layout: expected packed or strided");
      continue;
    }
    constexpr const char* kSizes[] = {"m", "n", "k", "batch"};
    std::int64_t v[4] = {0, 0, 0, 0};
    bool ok = true;
    for (int i = 0; i < 4 && ok; ++i) {
      const Field& f = t[3 + static_cast<std::size_t>(i)];
      auto [end_ptr, ec] = std::from_chars(f.text.data(), f.text.data() + f.text.size(), v[i]);
      ok = ec == std::errc() && end_ptr == f.text.data() + f.text.size() && v[i] >= 1 &&
           v[i] <= kMaxTableSize;
      if (!ok) bad(f.column, std::string(kSizes[i]) + ": expected a whole number from 1 to 2^62");
    }
    if (!ok) continue;
    Key k{*dtype, fold_op(*dtype, *ta), fold_op(*dtype, *tb), *layout, v[0], v[1], v[2], v[3]};
    if (!checked_set_bytes(k)) {
      bad(t[3].column, "the operands of this shape need more than 2^63 bytes");
      continue;
    }
    out.push_back({k, to_string(k), no});
  }
  if (!errors.empty()) throw Error(Errc::invalid_argument, "shapes", errors.substr(1));
  return out;
}

std::string run_program(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (int rc = posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ); rc != 0) {
    return "cannot start: " + std::error_code(rc, std::generic_category()).message();
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return "cannot wait for it";
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended by signal " + std::to_string(WTERMSIG(status));
}

std::string fmt_us(double us) {
  char b[32];
  if (us >= 1e4)
    std::snprintf(b, sizeof b, "%.2f ms", us / 1e3);
  else if (us >= 100)
    std::snprintf(b, sizeof b, "%.1f us", us);
  else if (us >= 10)
    std::snprintf(b, sizeof b, "%.2f us", us);
  else
    std::snprintf(b, sizeof b, "%.3f us", us);
  return b;
}

std::string num(double v, const char* f) {
  char b[32];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

}  // namespace gemmroute::cli
