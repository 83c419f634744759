// Candidate: one runnable implementation, named by its spelling. Backends own them; the
// selector only asks can_run and workspace_bytes and calls launch.
#pragma once

#include <cstddef>
#include <string_view>

#include "core/exec.hpp"
#include "core/problem.hpp"

namespace gemmroute {

// can_run's answer. reason is a static string (no allocation on the selection path); empty
// when ok.
struct Verdict {
  bool ok = true;
  const char* reason = "";

  static Verdict yes() { return {true, ""}; }
  static Verdict no(const char* why) { return {false, why}; }
};

enum class Provider { native, vendor };

class Candidate {
 public:
  virtual ~Candidate() = default;
  virtual std::string_view spelling() const = 0;
  virtual Provider provider() const = 0;
  // Exactly the problems launch instantiates. The problem is validated and folded.
  virtual Verdict can_run(const Problem& problem) const = 0;
  // Whether two launches of the problem give the same bytes (false for split-K reductions
  // whose order of accumulation varies run to run): deterministic mode takes only these.
  virtual bool reproducible(const Problem&) const { return true; }
  // Device workspace a launch of this problem needs (taken from the Exec, never allocated).
  virtual std::size_t workspace_bytes(const Problem&) const { return 0; }
  // Runs the whole batch with the Context's resources (asynchronously where the device is);
  // throws Error(not_runnable) if can_run refuses the problem or the Exec's workspace is
  // smaller than workspace_bytes.
  virtual void launch(const Problem& problem, const Exec& exec) const = 0;
};

// For launch implementations: throws when can_run refuses or the workspace is too small. A
// candidate that uses no workspace may test its own can_run first (a direct call in a final
// class) and call this only when that refuses, to throw with the reason.
void require_runnable(const Candidate& candidate, const Problem& problem, const Exec& exec);

// can_run and the workspace together: what the selector asks before it takes a candidate.
inline Verdict runnable(const Candidate& candidate, const Problem& problem, const Exec& exec) {
  Verdict v = candidate.can_run(problem);
  if (v.ok && candidate.workspace_bytes(problem) > exec.workspace_bytes()) {
    return Verdict::no("needs more workspace than the Context has");
  }
  return v;
}

}  // namespace gemmroute
