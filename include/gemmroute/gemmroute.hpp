// The whole public API of gemmroute.
#pragma once

#include "gemmroute/context.hpp"
#include "gemmroute/error.hpp"
#include "gemmroute/gemm.hpp"
#include "gemmroute/options.hpp"
#include "gemmroute/types.hpp"
