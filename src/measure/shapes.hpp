// Shapes files: the keys `gemmroute bench` and `gemmroute tune --shapes` measure, one a line in
// the key's grammar (core/key.hpp), as GEMMROUTE_RECORD writes them:
//
//   # comment
//   f32 N T packed 32 32 32 1000   # calls 12
//   f64 N N 16 16 16 64 strided    # the first shapes files' order: layout last, or left out
//
// A real scalar's C folds to T. A trailing `# calls N` (the recorder's count) is kept.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/key.hpp"

namespace gemmroute::measure {

struct Shape {
  Key key;
  std::string text;        // the key as to_string writes it
  std::int64_t calls = 0;  // from `# calls N`; 0 when the line has none
  int line = 0;
};

// Every bad line is appended to `errors` as "path:line:col: message" (one a line), including
// shapes whose operands would need more than 2^63 bytes; lines that fail are left out.
std::vector<Shape> parse_shapes(std::string_view text, const std::string& path,
                                std::string& errors);
// Reads a file (core/files.hpp limits) and parses it; throws Error(invalid_argument) listing
// every bad line.
std::vector<Shape> read_shapes(const std::string& path);

// Shapes with the same key merged into the first, their calls summed: what several processes
// recording into one file leave.
std::vector<Shape> distinct_shapes(const std::vector<Shape>& shapes);

}  // namespace gemmroute::measure
