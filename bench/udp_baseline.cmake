# The network baselines of make bench (bench/udp_baseline.c, run by
# bench/run.sh between two network namespaces). Its ctest runs both modes
# briefly over loopback, IPv4 and IPv6, and checks that each printed its
# figures (no timing asserted).
add_executable(udp_baseline ${CMAKE_CURRENT_LIST_DIR}/udp_baseline.c)

add_test(NAME udp_baseline_smoke
  COMMAND sh -c "p=$((40000 + $$ % 20000)); b='$<TARGET_FILE:udp_baseline>'; \
    { $b lat server 127.0.0.1 -p $p -t 20 & } ; $b lat client 127.0.0.1 -p $p -n 2000 && wait $! && \
    { $b bw server ::1 -p $((p + 1)) -t 20 & } ; $b bw client ::1 -p $((p + 1)) -d 0.3 && wait $!")
set_tests_properties(udp_baseline_smoke PROPERTIES LABELS unit TIMEOUT 60
  PASS_REGULAR_EXPRESSION "udp_lat family=4 iters=2000 median_us=[0-9.]+ p99_us=[0-9.]+.*udp_bw family=6 bytes_per_s=[1-9]")
