// The CUDA backend, as the build's backend list (src/backends.cpp) makes it.
#pragma once

#include <memory>

#include "core/backend.hpp"

namespace gemmroute::cuda {

// Throws Error(unsupported) naming why when there is no such CUDA device (no driver, no GPU,
// an index past the last device).
std::unique_ptr<Backend> make_backend(Device device);
// The vocabulary alone, for building and checking tables where no GPU is: fingerprint
// `backend cuda` only; make_exec throws.
std::unique_ptr<Backend> make_vocabulary();

}  // namespace gemmroute::cuda
