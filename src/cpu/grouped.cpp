// Grouped calls on the CPU: small groups run together, spread over the threads.
//
// A grouped call of many tiny groups (the demo's: 600 items in some 280 groups) spent more on
// waking the threads for each group in turn than on the GEMMs. Here the groups that no thread
// count can change run in one parallel region, one group a thread at a time (dynamic schedule):
// every native kernel (each element of C is summed by one thread in one order, whatever the
// threads: tested), and OpenBLAS where its call is single-threaded anyway. A group holding more
// than its share of the work, or an OpenBLAS call that threads, runs alone afterwards with its
// own threads, as before. Results are bit-identical to running the groups one by one.
#include <omp.h>

#include <algorithm>
#include <exception>
#include <optional>
#include <vector>

#include "core/backend.hpp"
#include "cpu/batch.hpp"
#include "cpu/candidates.hpp"

namespace gemmroute::cpu {
namespace {

// Whether the group's result is the same when its launch runs on one thread.
bool thread_invariant(const GroupLaunch& g) {
  if (g.candidate->provider() == Provider::native) return true;
  return openblas_single_threaded(*g.candidate, *g.problem);
}

}  // namespace

void launch_groups(std::span<const GroupLaunch> groups, const Exec& exec) {
  const int threads = omp_get_max_threads();
  double total = 0;
  for (const GroupLaunch& g : groups) total += real_macs(*g.problem);
  std::vector<const GroupLaunch*> together, alone;
  for (const GroupLaunch& g : groups) {
    const bool share = real_macs(*g.problem) * threads <= total;
    (share && thread_invariant(g) ? together : alone).push_back(&g);
  }
  // Too little work to wake the threads for, nothing to spread, or the threads busy with
  // another call: one by one.
  if (threads < 2 || together.size() < 2 || total < kParallelMacs) {
    for (const GroupLaunch& g : groups) g.candidate->launch(*g.problem, exec);
    return;
  }
  std::optional<ThreadClaim> claim(std::in_place);
  if (!*claim) {
    for (const GroupLaunch& g : groups) g.candidate->launch(*g.problem, exec);
    return;
  }
  // Largest first, so that the last groups to start are small and the threads finish together.
  std::stable_sort(together.begin(), together.end(),
                   [](const GroupLaunch* x, const GroupLaunch* y) {
                     return real_macs(*x->problem) > real_macs(*y->problem);
                   });
  std::vector<std::exception_ptr> failed(together.size());
  const auto n = static_cast<std::int64_t>(together.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t i = 0; i < n; ++i) {
    try {
      together[static_cast<std::size_t>(i)]->candidate->launch(
          *together[static_cast<std::size_t>(i)]->problem, exec);
    } catch (...) {
      failed[static_cast<std::size_t>(i)] = std::current_exception();
    }
  }
  claim.reset();  // the groups that run alone claim the threads for themselves
  for (const auto& e : failed) {
    if (e) std::rethrow_exception(e);
  }
  for (const GroupLaunch* g : alone) g->candidate->launch(*g->problem, exec);
}

}  // namespace gemmroute::cpu
