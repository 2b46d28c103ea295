# Signature mkeys (src/mlx5/mkey.c, qp_post.c, cq_poll.c; device: eng_sig.c,
# fw_psv.c): wire/memory T10-DIF and CRC insert, strip and check against
# bitwise reference CRCs, mkey_check reports, pipelining (SQD, cancel), bad flows.
smx_unit_test(test_sig unit/test_sig.c LIBS ibverbs mlx5)
target_include_directories(test_sig PRIVATE ${CMAKE_CURRENT_LIST_DIR})
# The same with messages between the loopback QP's ends as packets (the
# loopback link in packets): a WRITE of several packets into a signature key
# is staged whole and goes through the key with its last packet.
add_test(NAME test_sig_loop COMMAND test_sig)
set_tests_properties(test_sig_loop PROPERTIES LABELS unit
                     ENVIRONMENT "SOFTMLX5_LOOPBACK_PACKETS=on")
