# Ethernet queues and NIC receive steering (included by tests/CMakeLists.txt).
smx_unit_test(test_eth ${CMAKE_CURRENT_LIST_DIR}/test_eth.c LIBS smx_device)
target_include_directories(test_eth PRIVATE ${CMAKE_CURRENT_LIST_DIR})
# FlexIO Ethernet queues on top of them (src/flexio/host/queues.c).
if(TARGET test_flexio_app)
  smx_unit_test(test_flexio_eth ${CMAKE_CURRENT_LIST_DIR}/test_flexio_eth.c
    LIBS test_flexio_app ibverbs mlx5)
  target_include_directories(test_flexio_eth PRIVATE ${CMAKE_CURRENT_LIST_DIR})
  # RMPs and a DPA handler receiving through one (src/flexio/host/queues.c).
  smx_unit_test(test_flexio_rmp ${CMAKE_CURRENT_LIST_DIR}/test_flexio_rmp.c
    LIBS test_flexio_app ibverbs mlx5)
  target_include_directories(test_flexio_rmp PRIVATE ${CMAKE_CURRENT_LIST_DIR})
endif()
