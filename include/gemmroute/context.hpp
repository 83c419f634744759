// Context: a device, its backend, its default table, its execution resources (on CUDA a
// stream, the cuBLAS handles and a workspace) and the overrides read from the environment.
// Make one per device and keep it; calls through one Context may come from several threads at
// once. Making one is the expensive step (backend, table, handles); calls are cheap.
#pragma once

#include <memory>

#include "gemmroute/types.hpp"

struct CUstream_st;  // cudaStream_t is CUstream_st*; no CUDA header is needed to name it

namespace gemmroute {

namespace detail {
struct ContextState;
struct Access;
}  // namespace detail

class Context {
 public:
  Context();  // the CPU
  explicit Context(Device device);
  // A CUDA Context that runs every call on the caller's stream (as frameworks that own their
  // streams need); the stream must outlive the Context. Other devices refuse a stream.
  Context(Device device, CUstream_st* stream);
  ~Context();
  Context(Context&&) noexcept;
  Context& operator=(Context&&) noexcept;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // Both throw Error(invalid_argument) on a moved-from Context, as every call through one does.
  Device device() const;
  // The stream calls are enqueued on (CUDA), or nullptr (CPU).
  CUstream_st* stream() const;

 private:
  friend struct detail::Access;
  std::unique_ptr<detail::ContextState> state_;
};

}  // namespace gemmroute
