# softmlx5_dpacc_app(<target> APP_NAME <name> SOURCES <device .c ...>
#                    [DEVICE_OPTIONS <flag> ...] [HOST_OPTIONS <flag> ...])
#
# Builds FlexIO device sources with softmlx5-dpacc into lib<target>.a (the
# app object, host stubs and registration, as dpacc makes them) and defines
# <target>, an interface library that host executables link: it brings the
# archive, libflexio and the include directories of the FlexIO headers.
# Host code names the app as `extern struct flexio_app *<name>;`.
function(softmlx5_dpacc_app target)
  cmake_parse_arguments(D "" "APP_NAME" "SOURCES;DEVICE_OPTIONS;HOST_OPTIONS" ${ARGN})
  if(NOT D_APP_NAME)
    set(D_APP_NAME __dpa_a_out)
  endif()
  set(srcs)
  foreach(s IN LISTS D_SOURCES)
    get_filename_component(a ${s} ABSOLUTE)
    list(APPEND srcs ${a})
  endforeach()
  file(GLOB fx_headers ${PROJECT_SOURCE_DIR}/src/flexio/include/*.h
                       ${PROJECT_SOURCE_DIR}/src/flexio/include/*/*.h)
  string(JOIN " " devopts ${D_DEVICE_OPTIONS})
  string(JOIN " " hostopts ${D_HOST_OPTIONS})
  set(out ${CMAKE_CURRENT_BINARY_DIR}/lib${target}.a)
  add_custom_command(OUTPUT ${out}
    COMMAND softmlx5-dpacc ${srcs} -o ${out} --app-name=${D_APP_NAME}
            -hostcc=${CMAKE_C_COMPILER} -mcpu=nv-dpa-bf3
            "--devicecc-options=${devopts}" "-hostcc-options=${hostopts}"
    DEPENDS softmlx5-dpacc ${srcs} ${fx_headers}
    COMMENT "softmlx5-dpacc: FlexIO app ${D_APP_NAME}"
    VERBATIM)
  add_custom_target(${target}_dpacc DEPENDS ${out})
  add_library(${target} INTERFACE)
  add_dependencies(${target} ${target}_dpacc)
  target_link_libraries(${target} INTERFACE ${out} flexio)
endfunction()
