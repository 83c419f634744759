// gemmroute::Error: the one exception type the library throws.
#pragma once

#include <stdexcept>
#include <string>

namespace gemmroute {

enum class Errc {
  invalid_argument,  // a call's argument breaks the BLAS rules; nothing was written
  not_runnable,      // a pin (or route) names a candidate that cannot run this problem
  bad_table,         // a table file failed to parse or validate
  unsupported,       // the build or the device lacks what was asked for (a backend, a library)
  internal,          // a backend failed after selection; a bug or a device failure
};

const char* to_string(Errc code) noexcept;

// Carries a code, the name of the argument at fault (empty when none) and a message that
// names it. what() is "<code>: <message>".
class Error : public std::runtime_error {
 public:
  Error(Errc code, std::string argument, const std::string& message);

  Errc code() const noexcept { return code_; }
  const std::string& argument() const noexcept { return argument_; }
  const std::string& message() const noexcept { return message_; }  // what() less the code

 private:
  Errc code_;
  std::string argument_;
  std::string message_;
};

}  // namespace gemmroute
