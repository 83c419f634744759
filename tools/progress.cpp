#include "progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace gemmroute::cli {

std::string format_duration(double s) {
  char buf[32];
  if (s < 0) s = 0;
  const long t = static_cast<long>(s + 0.5);
  if (t >= 3600) std::snprintf(buf, sizeof buf, "%ldh%02ldm", t / 3600, (t / 60) % 60);
  else if (t >= 60) std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
  else std::snprintf(buf, sizeof buf, "%lds", t);
  return buf;
}

Progress::Progress(std::string unit, int total, double total_work)
    : unit_(std::move(unit)),
      total_(total),
      total_work_(total_work),
      tty_(isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()),
      last_print_(start_) {}

double Progress::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::update(int done, double work_done, const std::string& current) {
  const auto now = std::chrono::steady_clock::now();
  if (!tty_ && printed_ && now - last_print_ < std::chrono::seconds(15)) return;
  last_print_ = now;
  const double elapsed = elapsed_s();
  std::string eta = "ETA --";
  if (work_done > 0 && total_work_ > work_done) {
    eta = "ETA " + format_duration(elapsed * (total_work_ - work_done) / work_done);
  }
  const int bar = 24;
  const double frac = total_ > 0 ? static_cast<double>(done) / total_ : 1.0;
  std::string b(static_cast<std::size_t>(bar), '.');
  for (int i = 0; i < static_cast<int>(frac * bar); ++i) b[static_cast<std::size_t>(i)] = '#';
  char line[512];
  std::snprintf(line, sizeof line, "[%s] %d/%d %s %3.0f%%  elapsed %s  %s  now: %s", b.c_str(),
                done, total_, unit_.c_str(), 100.0 * frac, format_duration(elapsed).c_str(),
                eta.c_str(), current.c_str());
  std::string s = line;
  if (tty_) {
    std::string pad(width_ > s.size() ? width_ - s.size() : 0, ' ');
    std::fprintf(stderr, "\r%s%s", s.c_str(), pad.c_str());
    width_ = s.size();
  } else {
    std::fprintf(stderr, "%s\n", s.c_str());
  }
  std::fflush(stderr);
  printed_ = true;
}

void Progress::clear() {
  if (tty_ && width_ > 0) {
    std::fprintf(stderr, "\r%s\r", std::string(width_, ' ').c_str());
    width_ = 0;
  }
}

void Progress::finish() {
  clear();
}

}  // namespace gemmroute::cli
