#include "measure_common.hpp"

#include <csignal>
#include <cstdio>
#include <ctime>

namespace gemmroute::cli {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;

extern "C" void on_interrupt(int) {
  g_interrupted = 1;
  std::signal(SIGINT, SIG_DFL);
}

}  // namespace

std::string method_line(const measure::MeasureDevice& d, const measure::MeasureOptions& o) {
  // Numbers are short; the names (clock, cache source) come from the device and may be long,
  // so the line is built whole, never cut at a buffer's end.
  auto g = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return std::string(buf);
  };
  return d.clock_name() + "; warm-up >= " + g(o.harness.warmup_us / 1000.0) +
         " ms per arm; operands rotated over >= " + g(o.operands.rotation_factor) + "x the " +
         g(static_cast<double>(d.cache_bytes()) / 1048576.0) + " MiB cache (" + d.cache_source() +
         "); arms interleaved in one process, order rotated each repetition and reversed on odd "
         "ones, an untimed lead-in call before each sample; median of " +
         std::to_string(o.harness.repetitions) +
         " repetitions, each >= " + g(o.harness.min_sample_us) +
         " us of back-to-back calls; spread = interquartile range / median; each arm checked "
         "once per point against the long-double reference (<= " +
         g(o.check_macs) +
         " multiply-adds sampled); random full-mantissa operands, nonzero alpha and beta";
}

std::string now_utc() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void install_interrupt_handler() { std::signal(SIGINT, on_interrupt); }

bool interrupted() { return g_interrupted != 0; }

}  // namespace gemmroute::cli
