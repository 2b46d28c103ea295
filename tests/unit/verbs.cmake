# libibverbs + libmlx5 through the public API, on the software device.
smx_unit_test(test_verbs_api unit/test_verbs_api.c LIBS ibverbs mlx5)
target_include_directories(test_verbs_api PRIVATE ${CMAKE_CURRENT_LIST_DIR})
# Direct placement between two processes (docs/multiprocess.md).
smx_unit_test(test_direct unit/test_direct.c LIBS ibverbs)
target_include_directories(test_direct PRIVATE ${CMAKE_CURRENT_LIST_DIR})
# A process forking with the device open (docs/multiprocess.md, "Fork").
smx_unit_test(test_fork unit/test_fork.c LIBS ibverbs)
target_include_directories(test_fork PRIVATE ${CMAKE_CURRENT_LIST_DIR})
# Registered memory the application unmapped: access errors, no crash.
smx_unit_test(test_guard unit/test_guard.c LIBS ibverbs)
target_include_directories(test_guard PRIVATE ${CMAKE_CURRENT_LIST_DIR})
# Raw packet QPs and ibv_create_flow (src/mlx5/raw.c, flow.c).
smx_unit_test(test_raw_qp unit/test_raw_qp.c LIBS ibverbs mlx5)
target_include_directories(test_raw_qp PRIVATE ${CMAKE_CURRENT_LIST_DIR})
# The same binary with the port cabled to a socket (the `wire` knob).
add_test(NAME test_raw_qp_wire COMMAND test_raw_qp wire)
set_tests_properties(test_raw_qp_wire PROPERTIES LABELS unit TIMEOUT 120)
# Registered memory stays the application's: no store lost while re-backing,
# fork() semantics, nothing left after deregistration or close (direct.c).
smx_unit_test(test_regmem unit/test_regmem.c LIBS ibverbs pthread)
target_include_directories(test_regmem PRIVATE ${CMAKE_CURRENT_LIST_DIR})
# The last ibv_close_device leaves no thread, fd or mapping of the device;
# a later open brings a new instance up (src/mlx5/mlx5.c).
smx_unit_test(test_close unit/test_close.c LIBS ibverbs mlx5 pthread)
target_include_directories(test_close PRIVATE ${CMAKE_CURRENT_LIST_DIR})
# SOFTMLX5_TRACE against what a program posted and polled (test_trace.c).
smx_unit_test(test_trace unit/test_trace.c LIBS ibverbs mlx5)
target_include_directories(test_trace PRIVATE ${CMAKE_CURRENT_LIST_DIR})
