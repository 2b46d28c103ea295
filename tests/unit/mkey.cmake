# mlx5dv indirect mkeys (src/mlx5/mkey.c, qp_post.c; device: eng_umr.c,
# eng_mkey.c): create/destroy, configure + setters, list and interleaved
# layouts, LOCAL_INV, remote invalidation, bad flows.
smx_unit_test(test_mkey unit/test_mkey.c LIBS ibverbs mlx5)
target_include_directories(test_mkey PRIVATE ${CMAKE_CURRENT_LIST_DIR})
# KSM mkeys by DEVX (fw_mkey.c, eng_mkey.c): UCX's atomic key layout (2 GiB
# entities, shifted start), entity selection, bounds.
smx_unit_test(test_mkey_ksm unit/test_ksm.c LIBS ibverbs mlx5)
target_include_directories(test_mkey_ksm PRIVATE ${CMAKE_CURRENT_LIST_DIR})
