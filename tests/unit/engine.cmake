# Data-path engine unit tests (included by tests/CMakeLists.txt).
foreach(t test_engine_unit test_engine_rc test_engine_err test_engine_evt)
  smx_unit_test(${t} ${CMAKE_CURRENT_LIST_DIR}/${t}.c LIBS smx_device)
  target_include_directories(${t} PRIVATE ${CMAKE_CURRENT_LIST_DIR})
endforeach()
