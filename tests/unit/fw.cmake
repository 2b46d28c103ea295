# Firmware unit tests and PRM golden vectors (included by tests/CMakeLists.txt).
smx_unit_test(test_fw_cmd ${CMAKE_CURRENT_LIST_DIR}/test_fw_cmd.c LIBS smx_device)
smx_unit_test(test_fw_obj ${CMAKE_CURRENT_LIST_DIR}/test_fw_obj.c LIBS smx_device)
smx_unit_test(test_fw_qp ${CMAKE_CURRENT_LIST_DIR}/test_fw_qp.c LIBS smx_device)
smx_unit_test(test_prm_golden ${CMAKE_CURRENT_LIST_DIR}/../prm/test_prm_golden.c LIBS smx_device)
foreach(t test_fw_cmd test_fw_obj test_fw_qp test_prm_golden)
  target_include_directories(${t} PRIVATE ${CMAKE_CURRENT_LIST_DIR})
endforeach()
