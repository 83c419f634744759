// What tune and bench share on the command line: date stamps, and Ctrl-C handling that lets a
// run stop between measurements.
#pragma once

#include <string>

#include "measure/device.hpp"
#include "measure/measure.hpp"

namespace gemmroute::cli {

std::string now_utc();  // "2026-12-01T09:30:00Z"

// The first Ctrl-C sets a flag (checked between measurements); a second one, a second or more
// later, ends the process (one sooner is taken for the same request delivered twice).
void install_interrupt_handler();
bool interrupted();

}  // namespace gemmroute::cli
