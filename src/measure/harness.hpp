// The timing loop every measurement goes through (tune and bench alike): warm-up, operand
// rotation, interleaved arms with their order rotated each repetition, and a median. Why each
// step exists: docs/measuring.md.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "measure/device.hpp"
#include "measure/stats.hpp"

namespace gemmroute::measure {

struct HarnessOptions {
  int repetitions = 7;          // timed samples per arm; tables need >= 7
  double warmup_us = 2000;      // per arm, at least this long of calls before timing
  double min_sample_us = 300;   // each sample times back-to-back calls lasting at least this
  std::int64_t max_calls_per_sample = 1 << 20;
  std::int64_t sets = 1;        // operand sets the calls rotate over
};

// One competitor: run(s) makes one call on operand set s (0 <= s < sets).
struct Arm {
  std::string name;
  std::function<void(std::int64_t set)> run;
};

struct ArmTiming {
  Stats stats;                      // microseconds per call
  std::vector<double> samples_us;   // per call, one per repetition, in time order
  std::int64_t calls_per_sample = 1;
};

// Times every arm in one process. Each arm is first warmed up (doubling batches of calls until
// warmup_us has passed), which also sizes its samples: calls_per_sample = ceil(min_sample_us /
// time per call). Then repetition r runs the arms in the order r, r+1, ..., wrapping, each
// timing one sample. Operand sets are taken from one counter shared by all arms, so a set is
// used again only after every other set has been touched.
std::vector<ArmTiming> time_arms(std::span<const Arm> arms, const HarnessOptions& options,
                                 TimingSource& clock);

// The order the arms run in repetition r: rotated by r, and reversed when r is odd (exposed
// for tests and docs).
std::vector<std::size_t> arm_order(std::size_t arms, int repetition);

}  // namespace gemmroute::measure
