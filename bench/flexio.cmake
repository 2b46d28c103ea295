# The FlexIO benchmark (bench/flexio_bench.c, run by bench/run.sh from make
# bench): host program + device code through softmlx5-dpacc. Its ctest runs
# a short pass that checks every trigger and RPC arrives (no timing asserted):
# 5000 CQ events, more than the process EQ's 4096 entries, so the EQ wraps
# only if the device honours its consumer-index doorbell.
softmlx5_dpacc_app(flexio_bench_dev APP_NAME flexio_bench_app
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/flexio_bench_dev.c
  DEVICE_OPTIONS -O2 -Wall -Werror -mcmodel=medany)
add_executable(flexio_bench ${CMAKE_CURRENT_LIST_DIR}/flexio_bench.c)
target_compile_definitions(flexio_bench PRIVATE DEV_APP_NAME=flexio_bench_app)
target_link_libraries(flexio_bench PRIVATE flexio_bench_dev)

add_test(NAME flexio_bench_smoke COMMAND flexio_bench --iters 4900)
set_tests_properties(flexio_bench_smoke PROPERTIES LABELS unit TIMEOUT 120
  PASS_REGULAR_EXPRESSION "row flexio_rpc_p99 ")
