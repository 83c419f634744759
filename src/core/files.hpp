// Files in and out, the one way every part of gemmroute reads and writes them.
//
// Reading: only regular files (a directory, FIFO, device or socket is refused before a byte is
// read, so /dev/zero or a FIFO cannot exhaust memory or hang), at most input_limit_bytes() of
// them, and never more memory than the file holds.
//
// Writing: a temporary beside the target, renamed over it only when the whole file is written
// (OutputFile::commit); a failure leaves nothing behind. An existing target is replaced only
// when the command was told to (`--force`), never when it is a directory or special file, and
// never when it is one of the command's inputs (compared by device and inode, not by path).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace gemmroute {

// The default size limit of an input file, and the variable that overrides it (in MiB).
inline constexpr std::int64_t kDefaultInputLimitMiB = 256;
inline constexpr const char* kInputLimitVariable = "GEMMROUTE_MAX_INPUT_MB";

// GEMMROUTE_MAX_INPUT_MB (a whole number of MiB from 1 to 1048576) when set, else 256 MiB.
// Throws Error(invalid_argument) naming the variable for any other value.
std::int64_t input_limit_bytes();

// Reads the whole of a regular file of at most input_limit_bytes(). False, with why ("not a
// regular file (a directory)", "cannot open: No such file or directory", "holds 300 MiB, more
// than the limit of 256 MiB (GEMMROUTE_MAX_INPUT_MB)"), when it cannot. Callers make their own
// Error of it, in their own format.
bool read_input_file(const std::string& path, std::string& text, std::string& why);

// What a command may do to the file it writes.
struct OutputRules {
  bool replace = false;             // replace an existing regular file (--force, or the verb's
                                    // purpose, as `tune --refine TABLE`)
  std::vector<std::string> inputs;  // the command's input files: the output must be none of them
};

// Refuses, with Error(invalid_argument, argument, "<path>: why"), an output that is a directory
// or any other non-regular file, that is the same file as one of rules.inputs, or that exists
// while !rules.replace. Writes nothing.
void check_output(const std::string& path, const std::string& argument, const OutputRules& rules);

// A file written whole or not at all. The constructor checks the target (check_output) and
// creates the temporary beside it; the destructor removes the temporary unless commit() ran.
class OutputFile {
 public:
  OutputFile(std::string path, std::string argument, const OutputRules& rules);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // The temporary's stream, for writers that print (fprintf, fputs).
  std::FILE* stream() { return file_; }
  void write(std::string_view text);
  // Flushes to the temporary (so an observer sees progress); throws when writing failed.
  void flush();
  // Flushes, syncs and renames the temporary over the target. Without rules.replace it never
  // replaces a file that appeared meanwhile. Throws Error(invalid_argument) when any write
  // failed; the temporary is then removed and the target left as it was.
  void commit();

  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail(const std::string& why);

  std::string path_, argument_, temp_;
  bool replace_ = false;
  std::FILE* file_ = nullptr;
  bool committed_ = false;
};

}  // namespace gemmroute
