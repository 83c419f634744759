// Opening the host libraries (libraries.hpp): dlopen(RTLD_NOW | RTLD_LOCAL), once per process.
#include "cpu/libraries.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <string_view>
#include <vector>

#ifndef GEMMROUTE_LIBRARY_DIRS
#define GEMMROUTE_LIBRARY_DIRS ""
#endif

namespace gemmroute::cpu {
namespace {

// The handle of the first of `names` that opens, unless the environment variable `env` is
// set: then only the file it names, or nothing when it says "none".
void* open_first(const char* env, const std::vector<std::string>& names) {
  if (env) {
    const char* forced = std::getenv(env);
    if (forced && *forced) {
      if (std::string_view(forced) == "none") return nullptr;
      return dlopen(forced, RTLD_NOW | RTLD_LOCAL);
    }
  }
  for (const std::string& name : names) {
    if (void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
  }
  return nullptr;
}

// `file` in each directory this build installs or builds libraries into, then the plain name
// (the loader's own search).
std::vector<std::string> in_library_dirs(const std::string& file) {
  std::vector<std::string> out;
  const std::string all = GEMMROUTE_LIBRARY_DIRS;
  std::size_t pos = 0;
  while (pos <= all.size()) {
    std::size_t end = all.find(':', pos);
    if (end == std::string::npos) end = all.size();
    if (end > pos) out.push_back(all.substr(pos, end - pos) + "/" + file);
    pos = end + 1;
  }
  out.push_back(file);
  return out;
}

template <class F>
void take(void* handle, F& fn, const char* symbol) {
  fn = reinterpret_cast<F>(dlsym(handle, symbol));
}

}  // namespace

const OpenBlasLibrary& openblas_library() {
  static const OpenBlasLibrary lib = [] {
    OpenBlasLibrary l;
    l.handle = open_first(nullptr, {"libopenblas.so.0", "libopenblas.so"});
    if (!l.handle) return l;
    take(l.handle, l.sgemm, "cblas_sgemm");
    take(l.handle, l.dgemm, "cblas_dgemm");
    take(l.handle, l.cgemm, "cblas_cgemm");
    take(l.handle, l.zgemm, "cblas_zgemm");
    take(l.handle, l.sbgemm, "cblas_sbgemm");
    take(l.handle, l.config, "openblas_get_config");
    take(l.handle, l.corename, "openblas_get_corename");
    take(l.handle, l.memory_alloc, "blas_memory_alloc");
    take(l.handle, l.memory_free, "blas_memory_free");
    return l;
  }();
  return lib;
}

const LibxsmmLibrary& libxsmm_library() {
  static const LibxsmmLibrary lib = [] {
    LibxsmmLibrary l;
    l.handle = open_first("GEMMROUTE_LIBXSMM", in_library_dirs("libgemmroute_libxsmm.so"));
    if (!l.handle) return l;
    take(l.handle, l.smmdispatch, "libxsmm_smmdispatch");
    take(l.handle, l.dmmdispatch, "libxsmm_dmmdispatch");
    take(l.handle, l.mmbatch, "libxsmm_mmbatch");
    take(l.handle, l.init, "libxsmm_init");
    take(l.handle, l.target_arch, "libxsmm_get_target_arch");
    take(l.handle, l.version, "gemmroute_libxsmm_version");
    // LIBXSMM initialises itself on first use too; doing it here keeps that (its CPUID probe
    // and registry) out of the first timed call.
    if (l.ok()) l.init();
    return l;
  }();
  return lib;
}

const BlisLibrary& blis_library() {
  static const BlisLibrary lib = [] {
    BlisLibrary l;
    l.handle = open_first("GEMMROUTE_BLIS", {"libblis.so.4"});
    if (!l.handle) return l;
    take(l.handle, l.sgemm, "bli_sgemm_ex");
    take(l.handle, l.dgemm, "bli_dgemm_ex");
    take(l.handle, l.cgemm, "bli_cgemm_ex");
    take(l.handle, l.zgemm, "bli_zgemm_ex");
    take(l.handle, l.version, "bli_info_get_version_str");
    take(l.handle, l.arch_id, "bli_arch_query_id");
    take(l.handle, l.arch_name, "bli_arch_string");
    return l;
  }();
  return lib;
}

std::string openblas_config() {
  const OpenBlasLibrary& lib = openblas_library();
  return lib.config ? std::string(lib.config()) : std::string();
}

std::string openblas_corename() {
  const OpenBlasLibrary& lib = openblas_library();
  return lib.corename ? std::string(lib.corename()) : std::string();
}

std::string libxsmm_description() {
  const LibxsmmLibrary& lib = libxsmm_library();
  if (!lib.ok()) return {};
  return std::string(lib.version ? lib.version() : "unknown-version") + " " + lib.target_arch();
}

std::string blis_description() {
  const BlisLibrary& lib = blis_library();
  if (!lib.ok()) return {};
  std::string s = lib.version ? lib.version() : "unknown-version";
  if (lib.arch_id && lib.arch_name) s += std::string(" ") + lib.arch_name(lib.arch_id());
  return s;
}

}  // namespace gemmroute::cpu
