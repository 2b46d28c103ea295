# Data-path engine unit tests (included by tests/CMakeLists.txt).
foreach(t test_engine_unit test_engine_rc test_engine_err test_engine_evt)
  smx_unit_test(${t} ${CMAKE_CURRENT_LIST_DIR}/${t}.c LIBS smx_device)
  target_include_directories(${t} PRIVATE ${CMAKE_CURRENT_LIST_DIR})
endforeach()
# The shared segment's process table: liveness, bounded waits (fabric/shm.c).
smx_unit_test(test_shm ${CMAKE_CURRENT_LIST_DIR}/test_shm.c LIBS smx_device)
target_include_directories(test_shm PRIVATE ${CMAKE_CURRENT_LIST_DIR})
# The segment on a 64 KiB tmpfs: needs root to mount one (77: skipped).
add_test(NAME test_shm_tmpfs COMMAND test_shm tmpfs)
set_tests_properties(test_shm_tmpfs PROPERTIES LABELS unit TIMEOUT 120
                     SKIP_RETURN_CODE 77)
