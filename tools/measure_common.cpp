#include "measure_common.hpp"

#include <time.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <ctime>

namespace gemmroute::cli {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;
std::atomic<std::int64_t> g_first_ns{0};  // when the first SIGINT came (CLOCK_MONOTONIC)

std::int64_t monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);  // async-signal-safe
  return std::int64_t{t.tv_sec} * 1000000000 + t.tv_nsec;
}

// The first SIGINT asks for a clean stop after the current point. A second one a second or more
// later ends the process at once, as Ctrl-C twice does elsewhere; one within the second is the
// same request delivered twice (`timeout -s INT` signals the process and then its group, and
// with several threads both can arrive), and is ignored.
extern "C" void on_interrupt(int) {
  const std::int64_t now = monotonic_ns();
  if (!g_interrupted) {
    g_first_ns.store(now, std::memory_order_relaxed);
    g_interrupted = 1;
    return;
  }
  if (now - g_first_ns.load(std::memory_order_relaxed) >= 1000000000) _exit(130);
}

}  // namespace

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
