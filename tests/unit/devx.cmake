# DEVX through libmlx5's public API (src/mlx5/devx.c).
smx_unit_test(test_devx ${CMAKE_CURRENT_LIST_DIR}/test_devx.c LIBS ibverbs mlx5)
target_include_directories(test_devx PRIVATE ${CMAKE_CURRENT_LIST_DIR})
