// Context: a device, its backend, its default table and the overrides read from the
// environment. Make one per device and keep it; calls through one Context may come from
// several threads at once.
#pragma once

#include <memory>

#include "gemmroute/types.hpp"

namespace gemmroute {

namespace detail {
struct ContextState;
}

class Context {
 public:
  Context();  // the CPU
  explicit Context(Device device);
  ~Context();
  Context(Context&&) noexcept;
  Context& operator=(Context&&) noexcept;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  Device device() const noexcept;
  detail::ContextState& state() const noexcept { return *state_; }

 private:
  std::unique_ptr<detail::ContextState> state_;
};

}  // namespace gemmroute
