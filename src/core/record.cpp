#include "core/record.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <vector>

#include "gemmroute/error.hpp"

namespace gemmroute {

// Every recorder of the process, written when it exits (the destructor of this static). A
// forked child starts with no counts: the parent writes its own.
struct RecorderRegistry {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<Recorder>> recorders;

  static RecorderRegistry& get() {
    static RecorderRegistry registry;
    return registry;
  }
  RecorderRegistry() {
    pthread_atfork(
        [] {
          auto& r = get();
          r.mutex.lock();
          for (auto& [path, rec] : r.recorders) rec->mutex_.lock();
        },
        [] {
          auto& r = get();
          for (auto& [path, rec] : r.recorders) rec->mutex_.unlock();
          r.mutex.unlock();
        },
        [] {
          auto& r = get();
          for (auto& [path, rec] : r.recorders) {
            rec->counts_.clear();
            rec->mutex_.unlock();
          }
          r.mutex.unlock();
        });
  }
  ~RecorderRegistry() {
    std::lock_guard lock(mutex);
    for (auto& [path, rec] : recorders) rec->write();
  }
};

std::size_t Recorder::KeyHash::operator()(const Key& k) const noexcept {
  std::uint64_t h = static_cast<std::uint64_t>(dtype_bits(k.dtype)) * 0x9E3779B97F4A7C15ull;
  for (std::uint64_t v :
       {std::uint64_t(k.ta), std::uint64_t(k.tb), std::uint64_t(k.layout), std::uint64_t(k.m),
        std::uint64_t(k.n), std::uint64_t(k.k), std::uint64_t(k.batch)}) {
    h = (h ^ v) * 0x100000001B3ull;
  }
  return static_cast<std::size_t>(h);
}

Recorder::Recorder(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}

Recorder::~Recorder() {
  if (fd_ >= 0) ::close(fd_);
}

Recorder& Recorder::open(const std::string& path) {
  auto& registry = RecorderRegistry::get();
  std::lock_guard lock(registry.mutex);
  auto it = registry.recorders.find(path);
  if (it != registry.recorders.end()) return *it->second;
  auto refuse = [&](const std::string& why) {
    throw Error(Errc::invalid_argument, "GEMMROUTE_RECORD",
                "GEMMROUTE_RECORD='" + path + "': " + why);
  };
  if (path.empty()) refuse("empty path");
  // O_NONBLOCK: a FIFO must not hang the program here; it is refused below.
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0644);
  if (fd < 0) refuse(std::string("cannot open for appending: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    refuse("not a regular file");
  }
  ::fcntl(fd, F_SETFL, O_APPEND);  // blocking writes from here on
  std::unique_ptr<Recorder> rec(new Recorder(path, fd));
  return *registry.recorders.emplace(path, std::move(rec)).first->second;
}

void Recorder::note(const Key& key) {
  std::lock_guard lock(mutex_);
  ++counts_[key];
}

bool Recorder::write() {
  std::vector<std::pair<Key, std::int64_t>> keys;
  {
    std::lock_guard lock(mutex_);
    keys.assign(counts_.begin(), counts_.end());
    counts_.clear();
  }
  if (keys.empty()) return true;
  auto order = [](const Key& k) {
    return std::make_tuple(k.dtype, k.ta, k.tb, k.layout, k.m, k.n, k.k, k.batch);
  };
  std::sort(keys.begin(), keys.end(),
            [&](const auto& a, const auto& b) { return order(a.first) < order(b.first); });
  char when[32] = "";
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  std::string text = "# gemmroute record: pid " + std::to_string(::getpid()) + ", " + when + ", " +
                     std::to_string(keys.size()) + " keys\n";
  for (const auto& [key, calls] : keys) {
    text += to_string(key) + "  # calls " + std::to_string(calls) + "\n";
  }
  // One block per process: other appenders wait for the lock, so blocks never interleave.
  bool ok = ::flock(fd_, LOCK_EX) == 0;
  std::size_t done = 0;
  while (ok && done < text.size()) {
    const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<std::size_t>(n);
  }
  const int err = errno;
  ::flock(fd_, LOCK_UN);
  if (!ok) {
    std::fprintf(stderr, "gemmroute: GEMMROUTE_RECORD='%s': writing failed: %s\n", path_.c_str(),
                 std::strerror(err));
  }
  return ok;
}

}  // namespace gemmroute
