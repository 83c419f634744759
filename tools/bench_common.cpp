#include "bench_common.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "gemmroute/error.hpp"

namespace gemmroute::cli {

std::vector<Shape> read_shapes(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(Errc::invalid_argument, "shapes", path + ": cannot open");
  std::vector<Shape> out;
  std::string line, errors;
  int no = 0;
  while (std::getline(in, line)) {
    ++no;
    if (auto h = line.find('#'); h != std::string::npos) line.resize(h);
    std::istringstream ss(line);
    std::vector<std::string> t;
    for (std::string w; ss >> w;) t.push_back(w);
    if (t.empty()) continue;
    auto bad = [&](const std::string& why) {
      errors += "\n" + path + ":" + std::to_string(no) + ": " + why;
    };
    if (t.size() != 7 && t.size() != 8) {
      bad("expected 'dtype ta tb m n k batch [packed|strided]'");
      continue;
    }
    auto dtype = parse_scalar(t[0]);
    auto ta = parse_op(t[1]);
    auto tb = parse_op(t[2]);
    auto layout = parse_layout(t.size() == 8 ? t[7] : "packed");
    std::int64_t v[4] = {0, 0, 0, 0};
    bool ok = dtype && ta && tb && layout;
    for (int i = 0; i < 4 && ok; ++i) {
      char* end = nullptr;
      v[i] = std::strtoll(t[3 + i].c_str(), &end, 10);
      ok = *end == '\0' && v[i] >= 1;
    }
    if (!ok) {
      bad("bad field (dtype f32|f64|c32|c64, ops N|T|C, sizes >= 1, layout packed|strided)");
      continue;
    }
    Key k{*dtype, fold_op(*dtype, *ta), fold_op(*dtype, *tb), *layout, v[0], v[1], v[2], v[3]};
    out.push_back({k, to_string(k), no});
  }
  if (!errors.empty()) throw Error(Errc::invalid_argument, "shapes", errors.substr(1));
  return out;
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
