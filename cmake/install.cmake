# pkg-config files for the installed libraries, in Debian's layout
# (libibverbs 1.14.44.0, libmlx5 1.24.44.0). Included from the top-level
# CMakeLists.txt after GNUInstallDirs and the rdma-core header lookup.
#
# softmlx5 installs no headers of its own: programs compile against
# rdma-core 44's <infiniband/verbs.h> and <infiniband/mlx5dv.h> (Debian's
# libibverbs-dev), so Cflags point at the directory those were found in.

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

foreach(pc libibverbs libmlx5)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/../pkgconfig/${pc}.pc.in
                 ${CMAKE_BINARY_DIR}/pkgconfig/${pc}.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/pkgconfig/${pc}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
