#include "measure/harness.hpp"

#include <algorithm>
#include <cmath>

namespace gemmroute::measure {

std::vector<std::size_t> arm_order(std::size_t arms, int repetition) {
  std::vector<std::size_t> order(arms);
  for (std::size_t i = 0; i < arms; ++i) {
    order[i] = (static_cast<std::size_t>(repetition) + i) % arms;
  }
  // Odd repetitions run backwards, so an arm does not always follow the same neighbour.
  if (repetition % 2 == 1) std::reverse(order.begin(), order.end());
  return order;
}

std::vector<ArmTiming> time_arms(std::span<const Arm> arms, const HarnessOptions& o,
                                 TimingSource& clock) {
  std::vector<ArmTiming> out(arms.size());
  if (arms.empty()) return out;
  const std::int64_t sets = std::max<std::int64_t>(1, o.sets);
  std::int64_t next_set = 0;
  auto batch = [&](const Arm& arm, std::int64_t calls) {
    return clock.elapsed_us([&] {
      for (std::int64_t c = 0; c < calls; ++c) {
        arm.run(next_set);
        next_set = next_set + 1 == sets ? 0 : next_set + 1;
      }
    });
  };
  // Warm-up, which also measures the time per call that sizes the samples.
  for (std::size_t a = 0; a < arms.size(); ++a) {
    double total = 0, per_call = 0;
    std::int64_t calls = 1;
    for (;;) {
      const double t = batch(arms[a], calls);
      total += t;
      per_call = t / static_cast<double>(calls);
      if (total >= o.warmup_us && t >= 0.5 * o.min_sample_us) break;
      if (calls >= o.max_calls_per_sample) break;
      if (t < 0.5 * o.min_sample_us) calls = std::min(calls * 2, o.max_calls_per_sample);
    }
    std::int64_t n = per_call > 0 ? static_cast<std::int64_t>(std::ceil(o.min_sample_us / per_call))
                                  : o.max_calls_per_sample;
    out[a].calls_per_sample = std::clamp<std::int64_t>(n, 1, o.max_calls_per_sample);
  }
  for (int r = 0; r < o.repetitions; ++r) {
    for (std::size_t a : arm_order(arms.size(), r)) {
      // One untimed lead-in call: what the previous arm left behind (sleeping threads, cold
      // code) is paid here, not inside the sample.
      arms[a].run(next_set);
      next_set = next_set + 1 == sets ? 0 : next_set + 1;
      const double t = batch(arms[a], out[a].calls_per_sample);
      out[a].samples_us.push_back(t / static_cast<double>(out[a].calls_per_sample));
    }
  }
  for (auto& t : out) t.stats = summarize(t.samples_us);
  return out;
}

}  // namespace gemmroute::measure
