// The CPU backend, as the build's backend list (src/backends.cpp) makes it.
#pragma once

#include <memory>

#include "core/backend.hpp"

namespace gemmroute::cpu {

std::unique_ptr<Backend> make_backend(Device device);

}  // namespace gemmroute::cpu
