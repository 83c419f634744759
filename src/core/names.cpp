// Text forms of the small enums, and Error.
#include <charconv>

#include "core/problem.hpp"
#include "gemmroute/error.hpp"
#include "gemmroute/options.hpp"
#include "gemmroute/types.hpp"

namespace gemmroute {

const char* to_string(Errc code) noexcept {
  switch (code) {
    case Errc::invalid_argument:
      return "invalid argument";
    case Errc::not_runnable:
      return "not runnable";
    case Errc::bad_table:
      return "bad table";
    case Errc::unsupported:
      return "unsupported";
    case Errc::internal:
      return "internal error";
  }
  return "unknown error";
}

Error::Error(Errc code, std::string argument, const std::string& message)
    : std::runtime_error(std::string(to_string(code)) + ": " + message),
      code_(code),
      argument_(std::move(argument)),
      message_(message) {}

std::string_view to_string(Scalar s) noexcept {
  switch (s) {
    case Scalar::f32:
      return "f32";
    case Scalar::f64:
      return "f64";
    case Scalar::c32:
      return "c32";
    case Scalar::c64:
      return "c64";
    case Scalar::bf16:
      return "bf16";
    case Scalar::f16:
      return "f16";
  }
  return "?";
}

std::string_view to_string(Compute c) noexcept {
  switch (c) {
    case Compute::f32:
      return "f32";
    case Compute::f64:
      return "f64";
    case Compute::c32:
      return "c32";
    case Compute::c64:
      return "c64";
    case Compute::tf32:
      return "tf32";
  }
  return "?";
}

std::string_view to_string(Op op) noexcept {
  switch (op) {
    case Op::N:
      return "N";
    case Op::T:
      return "T";
    case Op::C:
      return "C";
  }
  return "?";
}

std::string_view to_string(Route route) noexcept {
  switch (route) {
    case Route::automatic:
      return "auto";
    case Route::native:
      return "native";
    case Route::vendor:
      return "vendor";
  }
  return "?";
}

std::optional<Scalar> parse_scalar(std::string_view t) noexcept {
  if (t == "f32") return Scalar::f32;
  if (t == "f64") return Scalar::f64;
  if (t == "c32") return Scalar::c32;
  if (t == "c64") return Scalar::c64;
  if (t == "bf16") return Scalar::bf16;
  if (t == "f16") return Scalar::f16;
  return std::nullopt;
}

std::optional<Compute> parse_compute(std::string_view t) noexcept {
  for (Compute c : {Compute::f32, Compute::f64, Compute::c32, Compute::c64, Compute::tf32}) {
    if (t == to_string(c)) return c;
  }
  return std::nullopt;
}

std::optional<Op> parse_op(std::string_view t) noexcept {
  if (t == "N" || t == "n") return Op::N;
  if (t == "T" || t == "t") return Op::T;
  if (t == "C" || t == "c") return Op::C;
  return std::nullopt;
}

std::optional<Route> parse_route(std::string_view t) noexcept {
  if (t == "auto") return Route::automatic;
  if (t == "native") return Route::native;
  if (t == "vendor") return Route::vendor;
  return std::nullopt;
}

std::optional<Device> parse_device(std::string_view t) noexcept {
  if (t == "cpu") return Device::cpu();
  if (t == "cuda") return Device::cuda(0);
  if (t.starts_with("cuda:")) {
    int index = 0;
    auto digits = t.substr(5);
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (ec == std::errc() && end == digits.data() + digits.size() && index >= 0) {
      return Device::cuda(index);
    }
  }
  return std::nullopt;
}

}  // namespace gemmroute
