// Measuring one point: build its operand sets, check every arm once against the long-double
// reference, then time the arms that passed, interleaved, with the shared harness. tune and
// bench both call measure_arms; tune's arms are the backend's candidates, bench adds `auto`.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/candidate.hpp"
#include "core/problem.hpp"
#include "measure/device.hpp"
#include "measure/harness.hpp"
#include "measure/operands.hpp"

namespace gemmroute::measure {

// ok: checked and timed. failed: wrong result (never ranked). error: launch threw.
// not_runnable: can_run refused (recorded so a resumed run does not ask again).
enum class Status { ok, failed, error, not_runnable };
std::string_view to_string(Status status) noexcept;
bool parse_status(std::string_view text, Status& status) noexcept;

struct MeasureOptions {
  HarnessOptions harness;   // harness.sets is set per point from the operand sets
  OperandOptions operands;
  // Reference work per arm check, in multiply-adds: items (and, for one huge item, column
  // blocks at both edges) are sampled to stay near it. The reference runs in long double.
  double check_macs = 1 << 20;
};

// One arm: a name (a candidate spelling, or "auto"), whether it can run, and the call.
struct LaunchArm {
  std::string name;
  std::function<Verdict(const Problem&)> can_run;  // empty: always
  std::function<void(const Problem&)> launch;
};
// The arm that launches `candidate` with the resources of `exec` (which must outlive it).
LaunchArm arm_for(const Candidate& candidate, const Exec& exec);

struct ArmResult {
  std::string name;
  Status status = Status::ok;
  Stats stats;                     // us per call; set when ok
  // For ok: the samples stats summarises, us per call, one per repetition in time order.
  // Sample r of every arm of a point comes from repetition r (the arms interleaved), so two
  // arms' samples pair up: differences taken pair by pair cancel what drifts between them.
  std::vector<double> samples_us;
  std::int64_t calls_per_sample = 0;
  std::string detail;              // why not ok; for ok, the check's worst error over bound
  // For ok: output_digest of the C its check launch wrote on operand set 0. The same for two
  // arms of one point when they gave bit-identical C on the same operands.
  std::optional<std::uint64_t> digest;
};

struct PointReport {
  std::vector<ArmResult> arms;     // in the order given
  std::int64_t sets = 0;
  std::int64_t set_bytes = 0;
};

// With an arena, operand memory is reused from point to point.
PointReport measure_arms(const Key& key, std::span<const LaunchArm> arms, MeasureDevice& device,
                         const MeasureOptions& options, Arena* arena = nullptr);

// Checks one launch on a copy of set 0 (restored afterwards): runs it, downloads C and compares
// sampled items with reference::check_against_reference. Empty string when correct, else why not.
// digest, when given, receives output_digest of the whole C region it wrote.
std::string check_arm(const OperandSets& sets, const LaunchArm& arm, MeasureDevice& device,
                      double check_macs, double* worst = nullptr, std::uint64_t* digest = nullptr);
// The same, with set 0's bytes as made kept in `snapshot` between the checks of one point
// (downloaded by the first, reused by the rest: large operand sets are then read back once per
// arm, not twice).
std::string check_arm(const OperandSets& sets, const LaunchArm& arm, MeasureDevice& device,
                      double check_macs, double* worst, std::uint64_t* digest,
                      std::vector<char>* snapshot);

// A 64-bit digest of bytes (every bit counts): equal digests mean bit-identical output with
// overwhelming probability. Stable across builds and machines (results files keep it).
std::uint64_t output_digest(const void* bytes, std::size_t size);

// Multiply-adds and minimum bytes moved (A and B read, C read and written) of one call.
double macs_of(const Key& key);
double flops_of(const Key& key);  // 2 per real multiply-add, 8 per complex
double bytes_of(const Key& key);

// One line naming every step of the method and its parameters, as results files, tables and
// bench output record it.
std::string method_line(const MeasureDevice& device, const MeasureOptions& options);

// "gemmroute <version> (commit <hash>)", as recorded in results and tables.
std::string tuner_version();

}  // namespace gemmroute::measure
