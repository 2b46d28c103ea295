# The FlexIO samples (docs/flexio.md). Included once from the top-level
# CMakeLists.txt; each sample also registers its ctest (label unit).
add_subdirectory(${CMAKE_CURRENT_LIST_DIR}/flexio_rpc ${CMAKE_BINARY_DIR}/examples/flexio_rpc)
add_subdirectory(${CMAKE_CURRENT_LIST_DIR}/flexio_pkt_echo ${CMAKE_BINARY_DIR}/examples/flexio_pkt_echo)
add_subdirectory(${CMAKE_CURRENT_LIST_DIR}/flexio_cmdq ${CMAKE_BINARY_DIR}/examples/flexio_cmdq)
add_subdirectory(${CMAKE_CURRENT_LIST_DIR}/flexio_packet_processor ${CMAKE_BINARY_DIR}/examples/flexio_packet_processor)
