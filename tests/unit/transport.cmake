# The transport's fault stage and port counters (src/device/transport,
# included by tests/CMakeLists.txt).
smx_unit_test(test_trn_fault ${CMAKE_CURRENT_LIST_DIR}/test_trn_fault.c
  LIBS smx_device)
target_include_directories(test_trn_fault PRIVATE ${CMAKE_CURRENT_LIST_DIR})
# The counters in the slots of the shared segment, summed; the CLI's
# `softmlx5 counters` (given as the argument) reads the same sums.
add_executable(test_trn_counters ${CMAKE_CURRENT_LIST_DIR}/test_trn_counters.c)
target_link_libraries(test_trn_counters PRIVATE smx_device)
target_include_directories(test_trn_counters PRIVATE ${CMAKE_CURRENT_LIST_DIR})
add_test(NAME test_trn_counters
         COMMAND test_trn_counters $<TARGET_FILE:softmlx5>)
set_tests_properties(test_trn_counters PROPERTIES LABELS unit TIMEOUT 120)

# Acceptance tests of the inter-process transport (IBTA packets, reliability,
# fault injection): public verbs API and environment variables only. They
# also carry the label "transport", so `ctest -L transport` runs them alone.

# A process stopped (SIGSTOP, 2 s) or killed in the middle of RC traffic.
add_executable(test_stop unit/test_stop.c)
target_link_libraries(test_stop PRIVATE ibverbs)
target_include_directories(test_stop PRIVATE ${CMAKE_CURRENT_LIST_DIR})
add_test(NAME test_stop_kill COMMAND test_stop kill)
set_tests_properties(test_stop_kill PROPERTIES LABELS unit TIMEOUT 60)
add_test(NAME test_stop_flood COMMAND test_stop flood)
set_tests_properties(test_stop_flood PROPERTIES LABELS "unit;transport"
                     TIMEOUT 60)

# A lost last ACK towards a QP destroyed after receiving (its tombstone
# answers) and towards a process killed (retries exhausted).
smx_unit_test(test_tomb unit/test_tomb.c LIBS ibverbs)
target_include_directories(test_tomb PRIVATE ${CMAKE_CURRENT_LIST_DIR})
set_tests_properties(test_tomb PROPERTIES LABELS "unit;transport")

# A two-process verbs test that reads the port's counters with the softmlx5
# tool this build makes (SMX_TOOL).
function(smx_counters_test name)
  add_executable(${name} unit/${name}.c)
  target_link_libraries(${name} PRIVATE ibverbs)
  target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_FUNCTION_LIST_DIR})
  target_compile_definitions(${name} PRIVATE SMX_TOOL="$<TARGET_FILE:softmlx5>")
  add_dependencies(${name} softmlx5)
endfunction()

# A READ that lost one response packet asks again only for the rest
# (SOFTMLX5_FAULT="nth=N,class=rdresp"); a WRITE that lost one packet (and
# its resend) is resent from it.
smx_counters_test(test_read_resume)
add_test(NAME test_read_resume COMMAND test_read_resume)
set_tests_properties(test_read_resume PROPERTIES LABELS "unit;transport"
                     TIMEOUT 120)

# SEND by reference between two processes, and the same with
# SOFTMLX5_DIRECT=0: data, immediates, order, a stale reference, a receive
# too short.
smx_counters_test(test_send_ref)
add_test(NAME test_send_ref COMMAND test_send_ref)
set_tests_properties(test_send_ref PROPERTIES LABELS "unit;transport"
                     TIMEOUT 120)

# Direct SEND: an RC receive queue lent to the sending process (order,
# contents, a stopped receiver, a deregistered receive, one too short, ERR
# with placed SENDs waiting).
smx_counters_test(test_direct_send)
add_test(NAME test_direct_send COMMAND test_direct_send)
set_tests_properties(test_direct_send PROPERTIES LABELS "unit;transport"
                     TIMEOUT 120)

# UC WRITEs stay in order between processes: a flag written after data is
# never visible first while the target is stopped.
smx_counters_test(test_uc_order)
add_test(NAME test_uc_order COMMAND test_uc_order)
set_tests_properties(test_uc_order PROPERTIES LABELS "unit;transport"
                     TIMEOUT 120)

# RC through SOFTMLX5_FAULT="loss=5%,dup=1%,reorder=2%,seed=N", N = 1, 2, 3.
smx_counters_test(test_fault_rc)
# --loop: both ends in one process, on the loopback link in packets.
foreach(seed 1 2 3)
  add_test(NAME test_fault_rc_${seed} COMMAND test_fault_rc ${seed})
  set_tests_properties(test_fault_rc_${seed} PROPERTIES LABELS "unit;transport"
                       TIMEOUT 120)
  add_test(NAME test_fault_rc_loop_${seed} COMMAND test_fault_rc --loop ${seed})
  set_tests_properties(test_fault_rc_loop_${seed} PROPERTIES
                       LABELS "unit;transport" TIMEOUT 120)
endforeach()

# IBTA packets, RoCEv2 encapsulation and ICRC (src/device/transport):
# golden packets made by scapy / struct.pack + zlib (gen_golden_pkts.py),
# every structural check on malformed input.
smx_unit_test(test_ib_pkt unit/test_ib_pkt.c LIBS smx_device)
target_include_directories(test_ib_pkt PRIVATE ${CMAKE_CURRENT_LIST_DIR})

# SOFTMLX5_PCAP: several processes capture every golden packet, rebuilt by
# the C builders, into one file; check_pcap.py re-checks every record and
# ICRC in pure Python and has tshark dissect each one (skipped, 77, without
# tshark).
add_executable(pcap_writer ${CMAKE_CURRENT_LIST_DIR}/../transport/pcap_writer.c)
target_include_directories(pcap_writer PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(pcap_writer PRIVATE smx_device)
add_test(NAME transport_pcap
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/../transport/check_pcap.py
                 --writer $<TARGET_FILE:pcap_writer>)
set_tests_properties(transport_pcap PROPERTIES LABELS unit TIMEOUT 120
                     SKIP_RETURN_CODE 77)

# The loopback link in packets: test_engine_rc's RC / UC / UD traffic in one
# process (SEND, WRITE, READ, atomics, immediates, segmentation), captured
# and checked as any capture (ICRCs in Python, tshark dissects every packet).
add_test(NAME transport_capture_loop
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/../transport/check_pcap.py
                 --expect 00,01,02,03,04,0a,0b,0c,0d,0e,0f,11,12,13,14,24,2a,64,65
                 --capture-of $<TARGET_FILE:test_engine_rc>)
set_tests_properties(transport_capture_loop PROPERTIES LABELS "unit;transport"
                     TIMEOUT 120 SKIP_RETURN_CODE 77)

# A capture of one run of each transport between two processes
# (tests/transport/capture_run.py): perftest and ibverbs-utils pairs under
# `softmlx5 run`, and capture_peer for the messages those programs do not
# send (immediate data, pads, zero lengths, solicited events).
add_executable(capture_peer ${CMAKE_CURRENT_LIST_DIR}/../transport/capture_peer.c)
target_link_libraries(capture_peer PRIVATE ibverbs)
# Label conformance: unmodified programs under `softmlx5 run` (not in the
# sanitizer build); make check runs it after the pingpong pairs. About 25 s.
add_test(NAME transport_capture
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/../transport/capture_run.py
                 --build ${CMAKE_BINARY_DIR})
set_tests_properties(transport_capture PROPERTIES LABELS "conformance;transport"
                     TIMEOUT 300 SKIP_RETURN_CODE 77)
