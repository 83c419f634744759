// What `gemmroute bench`, `bench --peers` and `bench --overhead` share: the shapes file,
// number formatting and running a plotting script.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "core/fingerprint.hpp"
#include "measure/shapes.hpp"

namespace gemmroute::cli {

// Shapes files are read by measure/shapes.hpp (the key's one grammar).
using measure::read_shapes;
using measure::Shape;

// Runs a program with exactly these arguments (argv[0] searched in PATH), never through a
// shell, so no path can be read as a command. Empty when it ran and exited 0, else why not.
std::string run_program(const std::vector<std::string>& args);

// Runs scripts/<script> of the source tree over the CSV `csv`, drawing into `dir` (made if
// missing). A failure is a line on stdout after `verb`, not an error: the CSV stands.
void plot(const std::string& verb, const std::string& script, const std::string& csv,
          const std::string& dir);

// A bench CSV's first lines: "# <magic> 1" and the device's fingerprint, one "# fingerprint.K V"
// line per field (every bench verb writes them so; scripts/plot_*.py and the replay read them).
void write_csv_preamble(std::FILE* csv, const char* magic, const Fingerprint& fingerprint);

std::string fmt_us(double us);  // "12.3 us", "4.56 ms"
std::string num(double v, const char* format = "%.6g");

}  // namespace gemmroute::cli
