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
  char buf[1024];
  std::snprintf(
      buf, sizeof buf,
      "%s; warm-up >= %.3g ms per arm; operands rotated over >= %.3gx the %.3g MiB cache "
      "(%s); arms interleaved in one process, order rotated each repetition and reversed on odd ones, an untimed lead-in call before each sample; median of %d "
      "repetitions, each >= %.3g us of back-to-back calls; spread = interquartile range / median; each "
      "arm checked once per point against the long-double reference (<= %.3g multiply-adds "
      "sampled); random full-mantissa operands, %s",
      d.clock_name().c_str(), o.harness.warmup_us / 1000.0, o.operands.rotation_factor,
      static_cast<double>(d.cache_bytes()) / 1048576.0, d.cache_source().c_str(),
      o.harness.repetitions, o.harness.min_sample_us, o.check_macs,
      o.operands.unit_scalars ? "alpha = beta = 1" : "nonzero alpha and beta");
  return buf;
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
