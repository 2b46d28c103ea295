# FlexIO: libflexio + the DPA runtime (src/flexio), device code through
# softmlx5-dpacc (tools/softmlx5-dpacc.c).
softmlx5_dpacc_app(test_flexio_app APP_NAME test_flexio_app
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_flexio_dev.c
  DEVICE_OPTIONS -O1 -Wall -Werror -Wno-unused-parameter)
smx_unit_test(test_flexio ${CMAKE_CURRENT_LIST_DIR}/test_flexio.c LIBS test_flexio_app)
target_include_directories(test_flexio PRIVATE ${CMAKE_CURRENT_LIST_DIR})
# (its `softmlx5 status` check runs the tool)
set_tests_properties(test_flexio PROPERTIES
  ENVIRONMENT "SMX_STATUS_TOOL=$<TARGET_FILE:softmlx5>")
