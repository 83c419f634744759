// The one symbol libgemmroute_libxsmm.so adds to LIBXSMM: the version of the archive it was
// relinked from (LIBXSMM itself has no run-time version query), for the device fingerprint.
#include <libxsmm_version.h>

extern "C" __attribute__((visibility("default"))) const char* gemmroute_libxsmm_version() {
  return LIBXSMM_CONFIG_VERSION;
}
