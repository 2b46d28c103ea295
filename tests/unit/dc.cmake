# DC transport (DCI/DCT, DCI stream channels) through the public API.
smx_unit_test(test_dc unit/test_dc.c LIBS ibverbs mlx5)
target_include_directories(test_dc PRIVATE ${CMAKE_CURRENT_LIST_DIR})
