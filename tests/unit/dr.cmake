# mlx5dv_dr steering in libmlx5 (src/mlx5/dr.c), checked with real frames.
smx_unit_test(test_dr ${CMAKE_CURRENT_LIST_DIR}/test_dr.c LIBS ibverbs mlx5)
target_include_directories(test_dr PRIVATE ${CMAKE_CURRENT_LIST_DIR})
