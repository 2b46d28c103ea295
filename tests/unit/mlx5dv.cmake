# mlx5dv extensions of libmlx5 (src/mlx5: dv CQ/QP, raw WQE, memcpy, clock,
# port, reserved QPNs, alloc types), through the public API.
smx_unit_test(test_mlx5dv unit/test_mlx5dv.c LIBS ibverbs mlx5)
target_include_directories(test_mlx5dv PRIVATE ${CMAKE_CURRENT_LIST_DIR})
