// A progress line on stderr for long runs (tune, bench): done / total, percent, elapsed, ETA
// and the current item. On a terminal it redraws one line; otherwise it prints a line at most
// every 15 seconds, so logs stay readable.
#pragma once

#include <chrono>
#include <string>

namespace gemmroute::cli {

std::string format_duration(double seconds);  // "1h02m", "3m05s", "42s"

class Progress {
 public:
  // `unit`: what is counted ("points", "shapes"). total_work: the sum of the items' weights.
  Progress(std::string unit, int total, double total_work);
  // Before item `index` (0-based) starts; weight_done is the summed weight of items finished.
  void update(int done, double work_done, const std::string& current);
  // Clears the redrawn line (terminal) before other output.
  void clear();
  void finish();
  double elapsed_s() const;

 private:
  std::string unit_;
  int total_;
  double total_work_;
  bool tty_;
  std::chrono::steady_clock::time_point start_, last_print_;
  bool printed_ = false;
  std::size_t width_ = 0;
};

}  // namespace gemmroute::cli
