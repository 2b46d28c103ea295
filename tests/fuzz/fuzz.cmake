# The PRM command-interpreter fuzzer (label: fuzz). run_fuzz.sh builds
# tests/fuzz as its own clang project (libFuzzer + ASan + UBSan) under
# <build>/fuzz, then fuzzes for SMX_FUZZ_SECONDS; skipped (77) without clang's
# libFuzzer runtime. Not part of the unit label: `ctest -L fuzz` runs it.
set(SMX_FUZZ_SECONDS 60 CACHE STRING "seconds fuzz_fw_cmd runs under ctest")
add_test(NAME fuzz_fw_cmd
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/run_fuzz.sh ${PROJECT_SOURCE_DIR}
                 ${CMAKE_BINARY_DIR} ${SMX_FUZZ_SECONDS})
set_tests_properties(fuzz_fw_cmd PROPERTIES LABELS fuzz TIMEOUT 240
                     SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)

# The WQE fuzzer (fuzz_wqe.c): send-queue WQEs into the engine.
set(SMX_FUZZ_WQE_SECONDS 30 CACHE STRING "seconds fuzz_wqe runs under ctest")
add_test(NAME fuzz_wqe
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/run_fuzz.sh ${PROJECT_SOURCE_DIR}
                 ${CMAKE_BINARY_DIR} ${SMX_FUZZ_WQE_SECONDS} fuzz_wqe)
set_tests_properties(fuzz_wqe PROPERTIES LABELS fuzz TIMEOUT 240
                     SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)

# The packet fuzzer (fuzz_ib_pkt.c): RoCEv2 and IBTA header parsers and
# builders (src/device/transport), seeded with the golden packets.
set(SMX_FUZZ_IB_PKT_SECONDS 20 CACHE STRING "seconds fuzz_ib_pkt runs under ctest")
add_test(NAME fuzz_ib_pkt
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/run_fuzz.sh ${PROJECT_SOURCE_DIR}
                 ${CMAKE_BINARY_DIR} ${SMX_FUZZ_IB_PKT_SECONDS} fuzz_ib_pkt)
set_tests_properties(fuzz_ib_pkt PROPERTIES LABELS fuzz TIMEOUT 240
                     SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)

# The receive-path fuzzer (fuzz_rc_rx.c): packet sequences from a peer
# process into the responder and completer of QPs in RTS, seeded by
# gen_rc_rx_corpus and corpus-rc-rx/.
set(SMX_FUZZ_RC_RX_SECONDS 60 CACHE STRING "seconds fuzz_rc_rx runs under ctest")
add_test(NAME fuzz_rc_rx
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/run_fuzz.sh ${PROJECT_SOURCE_DIR}
                 ${CMAKE_BINARY_DIR} ${SMX_FUZZ_RC_RX_SECONDS} fuzz_rc_rx)
set_tests_properties(fuzz_rc_rx PROPERTIES LABELS fuzz TIMEOUT 240
                     SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)

# The same two targets again on the paths a fault spec or the loopback
# link in packets opens: send-queue WQEs of the loopback QP as packets
# through the loopback link, with loss, duplication, reordering and
# corruption on it, and the peer's packet sequences through the
# receive-side fault stage (rules with dir=rx, the same faults before the
# checks).
set(SMX_FUZZ_LOOP_SECONDS 20 CACHE STRING "seconds fuzz_wqe_loop and fuzz_rc_rx_faults run")
add_test(NAME fuzz_wqe_loop
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/run_fuzz.sh ${PROJECT_SOURCE_DIR}
                 ${CMAKE_BINARY_DIR} ${SMX_FUZZ_LOOP_SECONDS} fuzz_wqe)
set_tests_properties(fuzz_wqe_loop PROPERTIES LABELS fuzz TIMEOUT 240
                     SKIP_RETURN_CODE 77 RUN_SERIAL TRUE
                     ENVIRONMENT "SOFTMLX5_LOOPBACK_PACKETS=on;SOFTMLX5_FAULT=loss=3%,dup=3%,reorder=3%,corrupt=2%,seed=9")
add_test(NAME fuzz_rc_rx_faults
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/run_fuzz.sh ${PROJECT_SOURCE_DIR}
                 ${CMAKE_BINARY_DIR} ${SMX_FUZZ_LOOP_SECONDS} fuzz_rc_rx)
set_tests_properties(fuzz_rc_rx_faults PROPERTIES LABELS fuzz TIMEOUT 240
                     SKIP_RETURN_CODE 77 RUN_SERIAL TRUE
                     ENVIRONMENT "SOFTMLX5_FAULT=dir=rx,loss=3%,dup=3%,reorder=3%,corrupt=3%,seed=5")

# The decoder fuzzer (fuzz_decode.c): `softmlx5 decode`'s hex reader and the
# WQE / CQE / mailbox / packet decoders, seeded with the golden dumps.
set(SMX_FUZZ_DECODE_SECONDS 20 CACHE STRING "seconds fuzz_decode runs under ctest")
add_test(NAME fuzz_decode
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/run_fuzz.sh ${PROJECT_SOURCE_DIR}
                 ${CMAKE_BINARY_DIR} ${SMX_FUZZ_DECODE_SECONDS} fuzz_decode)
set_tests_properties(fuzz_decode PROPERTIES LABELS fuzz TIMEOUT 240
                     SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
