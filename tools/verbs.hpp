// The CLI's verbs; each takes the arguments after its name and returns the exit status.
#pragma once

#include <string>
#include <vector>

namespace gemmroute::cli {

using Argv = std::vector<std::string>;

int explain(const Argv& args);
int table(const Argv& args);  // table check | table build
int demo(const Argv& args);
int tune(const Argv& args);   // lattice sweep, --resume, --refine
int bench(const Argv& args);  // auto vs vendor vs every candidate, per shape

}  // namespace gemmroute::cli
