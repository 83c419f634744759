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
