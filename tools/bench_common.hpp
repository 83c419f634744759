// What `gemmroute bench` and `gemmroute bench --peers` share: the shapes file and number
// formatting.
#pragma once

#include <string>
#include <vector>

#include "core/problem.hpp"

namespace gemmroute::cli {

struct Shape {
  Key key;
  std::string text;
  int line = 0;
};

// One shape a line: dtype ta tb m n k batch [packed|strided]; '#' comments. Throws
// Error(invalid_argument) listing every bad line.
std::vector<Shape> read_shapes(const std::string& path);

std::string fmt_us(double us);  // "12.3 us", "4.56 ms"
std::string num(double v, const char* format = "%.6g");

}  // namespace gemmroute::cli
