// What tune and bench share on the command line: the measuring method written into results
// files, date stamps, and Ctrl-C handling that lets a run stop between measurements.
#pragma once

#include <string>

#include "measure/device.hpp"
#include "measure/measure.hpp"

namespace gemmroute::cli {

// One line naming every step of the method and its parameters.
std::string method_line(const measure::MeasureDevice& device, const measure::MeasureOptions& o);
std::string now_utc();  // "2026-12-01T09:30:00Z"

// The first Ctrl-C sets a flag (checked between measurements); a second one ends the process.
void install_interrupt_handler();
bool interrupted();

}  // namespace gemmroute::cli
