// Bounded reading and whole-or-nothing writing of files (see files.hpp).
#include "core/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "gemmroute/error.hpp"

namespace gemmroute {
namespace {

std::string errno_text(int err) {
  return std::error_code(err, std::generic_category()).message();
}

// "a directory", "a FIFO" ...: what a non-regular file is, for messages.
const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

std::string mib(std::int64_t bytes) {
  const std::int64_t whole = bytes >> 20;
  if (whole << 20 == bytes) return std::to_string(whole) + " MiB";
  return std::to_string(bytes) + " bytes";
}

// Closes a descriptor on every path out of a scope.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::int64_t input_limit_bytes() {
  const char* v = std::getenv(kInputLimitVariable);
  if (!v || !*v) return kDefaultInputLimitMiB << 20;
  const std::string_view text(v);
  std::int64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < 1 || n > (1 << 20)) {
    throw Error(Errc::invalid_argument, kInputLimitVariable,
                std::string(kInputLimitVariable) + "='" + std::string(text) +
                    "': expected a whole number of MiB from 1 to 1048576");
  }
  return n << 20;
}

bool read_input_file(const std::string& path, std::string& text, std::string& why) {
  const std::int64_t limit = input_limit_bytes();
  text.clear();
  // O_NONBLOCK: opening a FIFO with no writer must not hang (it is refused right after).
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)};
  if (f.fd < 0) {
    why = "cannot open: " + errno_text(errno);
    return false;
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) {
    why = "cannot stat: " + errno_text(errno);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    why = std::string("not a regular file (") + kind_of(st.st_mode) + ")";
    return false;
  }
  auto too_large = [&](std::int64_t bytes) {
    why = "holds " + (bytes > limit ? mib(bytes) : "more than " + mib(limit)) +
          ", more than the limit of " + mib(limit) + " (" + kInputLimitVariable + " raises it)";
    return false;
  };
  if (st.st_size > limit) return too_large(st.st_size);
  text.resize(static_cast<std::size_t>(st.st_size));
  std::size_t used = 0;
  for (;;) {
    // The file may have grown since fstat: read one byte past the limit to notice.
    if (used == text.size()) {
      if (static_cast<std::int64_t>(used) > limit) return too_large(limit + 1);
      text.resize(std::min<std::size_t>(static_cast<std::size_t>(limit) + 1,
                                        std::max<std::size_t>(used * 2, 4096)));
    }
    const ssize_t got = ::read(f.fd, text.data() + used, text.size() - used);
    if (got < 0) {
      if (errno == EINTR) continue;
      why = "cannot read: " + errno_text(errno);
      text.clear();
      return false;
    }
    if (got == 0) break;
    used += static_cast<std::size_t>(got);
  }
  if (static_cast<std::int64_t>(used) > limit) return too_large(limit + 1);
  text.resize(used);
  return true;
}

void check_output(const std::string& path, const std::string& argument, const OutputRules& rules) {
  auto refuse = [&](const std::string& why) {
    throw Error(Errc::invalid_argument, argument, path + ": " + why);
  };
  if (path.empty()) refuse("an empty path");
  struct stat out {};
  if (::stat(path.c_str(), &out) != 0) {
    if (errno == ENOENT) return;  // absent: nothing to compare or replace
    refuse("cannot stat: " + errno_text(errno));
  }
  if (!S_ISREG(out.st_mode)) {
    refuse(std::string("is ") + kind_of(out.st_mode) + "; the output must be a regular file");
  }
  for (const std::string& in : rules.inputs) {
    struct stat st {};
    if (::stat(in.c_str(), &st) == 0 && st.st_dev == out.st_dev && st.st_ino == out.st_ino) {
      refuse("is the same file as the input " + in + "; write the output elsewhere");
    }
  }
  if (!rules.replace) refuse("exists; not replaced (--force replaces it)");
}

OutputFile::OutputFile(std::string path, std::string argument, const OutputRules& rules)
    : path_(std::move(path)), argument_(std::move(argument)), replace_(rules.replace) {
  check_output(path_, argument_, rules);
  namespace fs = std::filesystem;
  const fs::path target(path_);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100 && !file_; ++attempt) {
    std::string name = ".";
    name += target.filename().string();
    name += '.';
    name += std::to_string(::getpid());
    name += '.';
    name += std::to_string(counter.fetch_add(1));
    name += ".tmp";
    const std::string temp = (dir / name).string();
    // 0666 less the umask, as the target would have been made directly.
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
      if (errno == EEXIST) continue;
      throw Error(Errc::invalid_argument, argument_,
                  path_ + ": cannot create a file in " + dir.string() + ": " + errno_text(errno));
    }
    file_ = ::fdopen(fd, "w");
    if (!file_) {
      const int err = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      throw Error(Errc::invalid_argument, argument_, path_ + ": " + errno_text(err));
    }
    temp_ = temp;
  }
  if (!file_) throw Error(Errc::invalid_argument, argument_, path_ + ": no free temporary name");
}

OutputFile::~OutputFile() {
  if (file_) std::fclose(file_);
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
}

void OutputFile::fail(const std::string& why) {
  if (file_) std::fclose(file_);
  file_ = nullptr;
  ::unlink(temp_.c_str());
  temp_.clear();
  throw Error(Errc::invalid_argument, argument_, path_ + ": " + why + "; nothing was written");
}

void OutputFile::write(std::string_view text) {
  if (!file_) fail("already closed");
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size()) {
    fail("cannot write: " + errno_text(errno));
  }
}

void OutputFile::flush() {
  if (!file_) fail("already closed");
  if (std::fflush(file_) != 0 || std::ferror(file_)) fail("cannot write: " + errno_text(errno));
}

void OutputFile::commit() {
  flush();
  if (::fsync(::fileno(file_)) != 0 && errno != EINVAL) fail("cannot sync: " + errno_text(errno));
  std::FILE* f = file_;
  file_ = nullptr;
  if (std::fclose(f) != 0) {
    const int err = errno;
    ::unlink(temp_.c_str());
    temp_.clear();
    throw Error(Errc::invalid_argument, argument_,
                path_ + ": cannot write: " + errno_text(err) + "; nothing was written");
  }
  int rc = 0;
  if (replace_) {
    rc = ::rename(temp_.c_str(), path_.c_str());
  } else {
    rc = ::renameat2(AT_FDCWD, temp_.c_str(), AT_FDCWD, path_.c_str(), RENAME_NOREPLACE);
    if (rc != 0 && (errno == EINVAL || errno == ENOSYS)) {
      // A filesystem without RENAME_NOREPLACE: link() refuses an existing target just as well.
      rc = ::link(temp_.c_str(), path_.c_str());
      if (rc == 0) ::unlink(temp_.c_str());
    }
  }
  if (rc != 0) {
    const int err = errno;
    ::unlink(temp_.c_str());
    temp_.clear();
    throw Error(
        Errc::invalid_argument, argument_,
        path_ + ": " +
            (err == EEXIST ? std::string("appeared while it was being written; not replaced")
                           : "cannot rename the temporary over it: " + errno_text(err)) +
            "; nothing was written");
  }
  committed_ = true;
}

}  // namespace gemmroute
