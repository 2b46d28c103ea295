# Ethernet queues and NIC receive steering (included by tests/CMakeLists.txt).
smx_unit_test(test_eth ${CMAKE_CURRENT_LIST_DIR}/test_eth.c LIBS smx_device)
target_include_directories(test_eth PRIVATE ${CMAKE_CURRENT_LIST_DIR})
