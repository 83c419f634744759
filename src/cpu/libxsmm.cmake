# libgemmroute_libxsmm.so: LIBXSMM relinked as a shared object for the `libxsmm` candidate to
# dlopen. Debian's libxsmm-dev ships static archives only. The archive is linked whole with
# libxsmmnoblas (LIBXSMM's stand-in for the BLAS it falls back to; the candidate never takes
# that path), every symbol bound inside the object (-Bsymbolic) and only LIBXSMM's API
# exported, so no call from it can land in the drop-in BLAS. Without libxsmm-dev nothing is
# built and the candidate says "library not found".
option(GEMMROUTE_LIBXSMM "Relink LIBXSMM (libxsmm-dev) for the libxsmm candidate" ON)
find_file(GEMMROUTE_LIBXSMM_ARCHIVE libxsmm.a PATHS /usr/lib /usr/local/lib)
find_file(GEMMROUTE_LIBXSMM_NOBLAS libxsmmnoblas.a PATHS /usr/lib /usr/local/lib)
find_path(GEMMROUTE_LIBXSMM_INCLUDE libxsmm_version.h)
if(GEMMROUTE_LIBXSMM AND GEMMROUTE_LIBXSMM_ARCHIVE AND GEMMROUTE_LIBXSMM_NOBLAS
   AND GEMMROUTE_LIBXSMM_INCLUDE)
  find_package(Threads REQUIRED)
  add_library(gemmroute_libxsmm SHARED cpu/libxsmm_version.cpp)
  target_include_directories(gemmroute_libxsmm PRIVATE ${GEMMROUTE_LIBXSMM_INCLUDE})
  target_link_options(gemmroute_libxsmm PRIVATE
    -Wl,-Bsymbolic
    -Wl,--version-script=${CMAKE_CURRENT_SOURCE_DIR}/cpu/libxsmm.map
    -Wl,--whole-archive ${GEMMROUTE_LIBXSMM_ARCHIVE} ${GEMMROUTE_LIBXSMM_NOBLAS}
    -Wl,--no-whole-archive)
  target_link_libraries(gemmroute_libxsmm PRIVATE Threads::Threads rt ${CMAKE_DL_LIBS} m)
  set_target_properties(gemmroute_libxsmm PROPERTIES LINK_DEPENDS
                        ${CMAKE_CURRENT_SOURCE_DIR}/cpu/libxsmm.map)
  # Built whenever the library is: a candidate of libgemmroute finds it at run time.
  add_dependencies(gemmroute gemmroute_libxsmm)
  install(TARGETS gemmroute_libxsmm LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  message(STATUS "gemmroute: relinking LIBXSMM from ${GEMMROUTE_LIBXSMM_ARCHIVE}")
else()
  message(STATUS "gemmroute: no LIBXSMM (libxsmm-dev); the libxsmm candidate will not run")
endif()
