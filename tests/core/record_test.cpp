// GEMMROUTE_RECORD under concurrent appenders: six processes of eight threads each record into
// one file at once. Every process writes one whole block (never interleaved with another's),
// each of its keys once, with the right count; a forked child writes nothing.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "measure/shapes.hpp"

extern char** environ;

namespace gemmroute {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Record, ConcurrentProcessesAndThreadsAppendWholeBlocks) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("gemmroute-record-" + std::to_string(getpid())))
          .string();
  std::filesystem::remove(path);
  const std::string var = "GEMMROUTE_RECORD=" + path;
  std::vector<char*> env;
  for (char** e = environ; *e; ++e) {
    if (std::string(*e).rfind("GEMMROUTE_RECORD=", 0) != 0) env.push_back(*e);
  }
  env.push_back(const_cast<char*>(var.c_str()));
  env.push_back(nullptr);
  constexpr int kProcesses = 6;
  std::vector<pid_t> pids;
  for (int i = 0; i < kProcesses; ++i) {
    char program[] = GEMMROUTE_RECORD_PROGRAM;
    char fork_arg[] = "fork";
    char* argv[] = {program, i % 2 ? fork_arg : nullptr, nullptr};
    pid_t pid = 0;
    ASSERT_EQ(posix_spawn(&pid, program, nullptr, nullptr, argv, env.data()), 0);
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  const std::string text = read_file(path);
  std::filesystem::remove(path);
  ASSERT_FALSE(text.empty());
  ASSERT_EQ(text.back(), '\n');
  // Blocks: a `# gemmroute record` line, then that process's 80 keys, none from another.
  std::istringstream lines(text);
  std::string line;
  int blocks = 0, in_block = -1;
  while (std::getline(lines, line)) {
    if (line.rfind("# gemmroute record: pid ", 0) == 0) {
      EXPECT_NE(line.find(", 80 keys"), std::string::npos) << line;
      if (in_block >= 0) {
        EXPECT_EQ(in_block, 80);
      }
      ++blocks;
      in_block = 0;
    } else {
      ++in_block;
    }
  }
  EXPECT_EQ(in_block, 80);
  EXPECT_EQ(blocks, kProcesses);  // forked children wrote nothing
  std::string errors;
  auto shapes = measure::parse_shapes(text, path, errors);
  EXPECT_EQ(errors, "");
  EXPECT_EQ(shapes.size(), 80u * kProcesses);
  auto distinct = measure::distinct_shapes(shapes);
  ASSERT_EQ(distinct.size(), 80u);
  for (const auto& s : distinct) {
    // m = 1 + t % 4 for threads t = m - 1 and m + 3, which call m and m + 4 times.
    EXPECT_EQ(s.calls, kProcesses * (2 * s.key.m + 4)) << s.text;
    EXPECT_EQ(s.key.layout, Layout::packed);
  }
}

}  // namespace
}  // namespace gemmroute
