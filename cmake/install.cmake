# pkg-config files for the installed libraries, in Debian's layout
# (libibverbs 1.14.44.0, libmlx5 1.24.44.0). Included from the top-level
# CMakeLists.txt after GNUInstallDirs and the rdma-core header lookup.
#
# Verbs programs compile against rdma-core 44's <infiniband/verbs.h> and
# <infiniband/mlx5dv.h> (Debian's libibverbs-dev), so those Cflags point at
# the directory they were found in. The FlexIO headers are ours and go to
# <prefix>/include as the SDK lays them out (libflexio/, libflexio-dev/,
# libflexio-libc/, dpaintrin.h): libflexio.pc for host code, and
# libflexio-dev.pc for device code, whose `dpacc` variable names
# softmlx5-dpacc.

if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(SMX_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  set(SMX_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()

if(IBVERBS_INCLUDE_DIR)
  set(SMX_PC_INCLUDEDIR "${IBVERBS_INCLUDE_DIR}")
else()
  message(FATAL_ERROR "cmake/install.cmake: IBVERBS_INCLUDE_DIR is not set; "
          "include this file after find_path(IBVERBS_INCLUDE_DIR ...)")
endif()

# prefix= is relative to the .pc file's own place (${pcfiledir}, known to
# pkg-config and pkgconf), so `cmake --install --prefix DIR` gives files
# that name DIR, whatever prefix was configured.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(SMX_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  set(SMX_PC_PREFIX "\${pcfiledir}")
  string(REPLACE "/" ";" parts "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
  foreach(p IN LISTS parts)
    if(NOT p STREQUAL "" AND NOT p STREQUAL ".")
      string(APPEND SMX_PC_PREFIX "/..")
    endif()
  endforeach()
endif()

foreach(var INCLUDEDIR BINDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${var}}")
    set(SMX_PC_INST_${var} "${CMAKE_INSTALL_${var}}")
  else()
    set(SMX_PC_INST_${var} "\${prefix}/${CMAKE_INSTALL_${var}}")
  endif()
endforeach()
set(SMX_PC_FLEXIO_INCLUDEDIR "${SMX_PC_INST_INCLUDEDIR}")
set(SMX_PC_BINDIR "${SMX_PC_INST_BINDIR}")

foreach(pc libibverbs libmlx5 libflexio libflexio-dev)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/../pkgconfig/${pc}.pc.in
                 ${CMAKE_BINARY_DIR}/pkgconfig/${pc}.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/pkgconfig/${pc}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
