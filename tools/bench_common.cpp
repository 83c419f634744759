#include "bench_common.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <string_view>
#include <system_error>

#include "gemmroute/error.hpp"

#ifndef GEMMROUTE_SOURCE_DIR
#define GEMMROUTE_SOURCE_DIR "."
#endif

namespace gemmroute::cli {

std::string run_program(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (int rc = posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ); rc != 0) {
    return "cannot start: " + std::error_code(rc, std::generic_category()).message();
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return "cannot wait for it";
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended by signal " + std::to_string(WTERMSIG(status));
}

void plot(const std::string& verb, const std::string& script, const std::string& csv,
          const std::string& dir) {
  std::filesystem::create_directories(dir);
  const std::string path = std::string(GEMMROUTE_SOURCE_DIR) + "/scripts/" + script;
  const std::string python =
      std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  std::fflush(stdout);
  const std::string why = run_program({python, path, csv, dir});
  if (!why.empty()) {
    std::printf("%s: plotting failed: %s %s %s %s: %s\n", verb.c_str(), python.c_str(),
                path.c_str(), csv.c_str(), dir.c_str(), why.c_str());
  }
}

void write_csv_preamble(std::FILE* csv, const char* magic, const Fingerprint& fingerprint) {
  std::fprintf(csv, "# %s 1\n", magic);
  for (const auto& [k, v] : fingerprint.fields) {
    std::fprintf(csv, "# fingerprint.%s %s\n", k.c_str(), v.c_str());
  }
}

std::string fmt_us(double us) {
  char b[32];
  if (us >= 1e4)
    std::snprintf(b, sizeof b, "%.2f ms", us / 1e3);
  else if (us >= 100)
    std::snprintf(b, sizeof b, "%.1f us", us);
  else if (us >= 10)
    std::snprintf(b, sizeof b, "%.2f us", us);
  else
    std::snprintf(b, sizeof b, "%.3f us", us);
  return b;
}

std::string num(double v, const char* f) {
  char b[32];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

}  // namespace gemmroute::cli
