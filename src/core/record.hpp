// GEMMROUTE_RECORD=FILE: every distinct key a program calls, with how often, appended to FILE
// as shapes-file lines (measure/shapes.hpp) when the process exits, so that `gemmroute tune
// --shapes FILE` measures exactly what the program runs:
//
//   # gemmroute record: pid 4242, 2026-12-02T10:00:00Z, 3 keys
//   f32 N T packed 32 32 32 1000  # calls 120
//
// Each process writes each of its keys once, all in one block under an exclusive lock of the
// file (flock), appended (O_APPEND): many threads and processes may record into one file.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "core/key.hpp"

namespace gemmroute {

class Recorder {
 public:
  // The process's recorder for `path`, opened for appending (created if missing) on first use
  // and written when the process exits. Throws Error(invalid_argument, "GEMMROUTE_RECORD")
  // when the file cannot be opened or is not a regular file.
  static Recorder& open(const std::string& path);

  // Counts one call of `key`. Safe from any thread; takes a lock (recording is for finding
  // the keys to tune, not for production runs).
  void note(const Key& key);
  // Appends the keys counted since the last write, in key order, as one block; called when the
  // process exits. Returns false (and says why on stderr) when the write fails.
  bool write();

  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;
  ~Recorder();

 private:
  Recorder(std::string path, int fd);
  friend struct RecorderRegistry;

  struct KeyHash {
    std::size_t operator()(const Key& k) const noexcept;
  };
  std::string path_;
  int fd_ = -1;
  std::mutex mutex_;
  std::unordered_map<Key, std::int64_t, KeyHash> counts_;
};

}  // namespace gemmroute
