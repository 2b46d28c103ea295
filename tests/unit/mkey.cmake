# mlx5dv indirect mkeys (src/mlx5/mkey.c, qp_post.c; device: eng_umr.c,
# eng_mkey.c): create/destroy, configure + setters, list and interleaved
# layouts, LOCAL_INV, remote invalidation, bad flows.
smx_unit_test(test_mkey unit/test_mkey.c LIBS ibverbs mlx5)
target_include_directories(test_mkey PRIVATE ${CMAKE_CURRENT_LIST_DIR})
