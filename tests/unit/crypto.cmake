# Crypto offload (included by tests/CMakeLists.txt): the AES-XTS and key
# unwrap primitives, the firmware's CRYPTO_LOGIN / DEK objects and caps.
smx_unit_test(test_crypto ${CMAKE_CURRENT_LIST_DIR}/test_crypto.c LIBS smx_device)
target_include_directories(test_crypto PRIVATE ${CMAKE_CURRENT_LIST_DIR})
smx_unit_test(test_fw_crypto ${CMAKE_CURRENT_LIST_DIR}/test_fw_crypto.c LIBS smx_device)
target_include_directories(test_fw_crypto PRIVATE ${CMAKE_CURRENT_LIST_DIR})
